// Number, size and error formatting for the viewer.

/** A number for people: integers in full, others with 6 significant digits. */
export function formatNumber(v) {
  if (typeof v === "bigint") return v.toString();
  if (typeof v !== "number") return String(v);
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "∞" : "−∞";
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-4 || a >= 1e9)) return v.toExponential(4).replace(/\.?0+e/, "e");
  return String(Number(v.toPrecision(6)));
}

export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  const u = ["KiB", "MiB", "GiB", "TiB"];
  let i = -1;
  do {
    n /= 1024;
    i++;
  } while (n >= 1024 && i < u.length - 1);
  return `${n.toFixed(n < 10 ? 1 : 0)} ${u[i]}`;
}

export function formatShape(shape) {
  return shape.length ? shape.join(" × ") : "scalar (0-d)";
}

/**
 * An error in plain words: {title, detail, hint}. Knows the package's
 * ZarrError codes, its HTTPError, network failures and zip problems.
 */
export function explain(e, context = "") {
  let msg = String(e?.message ?? e);
  if (e?.where && !msg.includes(e.where)) msg = `${e.where}: ${msg}`;
  const code = e?.code;
  const net = /failed to fetch|networkerror|fetch .* failed|load failed/i.test(msg) || e?.name === "TypeError";
  const status = e?.status ?? Number(/HTTP (\d{3})/.exec(msg)?.[1] ?? 0);
  if (status === 401 || status === 403) {
    return { title: "Access denied", detail: msg, hint: "The server refused the request. The data may be private, or the link may have expired." };
  }
  if (status >= 500) {
    return { title: "The server had a problem", detail: msg, hint: "It answered with an error (HTTP " + status + "). Try again later." };
  }
  if (net && code !== "NOT_FOUND") {
    return {
      title: "Could not reach the data",
      detail: msg,
      hint: "The server may be down, the address mistyped, or the server may not allow this page to read it (it needs to send CORS headers such as Access-Control-Allow-Origin).",
    };
  }
  switch (code) {
    case "NOT_FOUND":
      return {
        title: context === "open" ? "No Zarr data found at this address" : "Not found",
        detail: msg + (e.suggest ? ` — did you mean “${e.suggest}”?` : ""),
        hint:
          context === "open"
            ? "The address should point at the folder that holds zarr.json (Zarr v3), .zgroup or .zarray (v2), at a .zip of such a folder, or at a kerchunk reference file (.json) or Parquet reference directory."
            : "",
      };
    case "INVALID_METADATA":
      return { title: "The metadata could not be understood", detail: msg, hint: "A zarr.json, .zarray or .zgroup document is malformed or uses values the format does not allow." };
    case "UNSUPPORTED":
      return { title: "This uses something zarr-wasm cannot read yet", detail: msg, hint: "" };
    case "CODEC":
      return { title: "A chunk could not be decoded", detail: msg, hint: "The stored bytes do not match the array's codecs (damaged data, or metadata that describes the chunks wrongly)." };
    case "SELECTION":
      return { title: "That part of the array cannot be selected", detail: msg, hint: "" };
    case "TOO_LARGE":
      return { title: "Too large to hold in memory", detail: msg, hint: "The engine refused before allocating it; a smaller selection or a strided view works." };
    case "ENGINE_EXITED":
      return { title: "The engine stopped", detail: msg, hint: "The next action starts a fresh engine; open the data again." };
    case "ABORTED":
      return null;
    case "STORE":
      return { title: "Reading from the store failed", detail: msg, hint: "" };
  }
  return { title: "Something went wrong", detail: msg, hint: "" };
}
