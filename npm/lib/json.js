// JSON text for the Go side: BigInt as exact integers, NaN and ±Infinity as
// the bare tokens zarr-python writes (the engine's JSON reader accepts them),
// TypedArrays as arrays. JSON.stringify would lose all three.

export function toJSONText(value) {
  const out = [];
  write(value, out, new Set());
  return out.join("");
}

function write(v, out, seen) {
  switch (typeof v) {
    case "bigint":
      out.push(v.toString());
      return;
    case "number":
      if (Number.isNaN(v)) out.push("NaN");
      else if (v === Infinity) out.push("Infinity");
      else if (v === -Infinity) out.push("-Infinity");
      else out.push(JSON.stringify(v));
      return;
    case "string":
      out.push(JSON.stringify(v));
      return;
    case "boolean":
      out.push(v ? "true" : "false");
      return;
    case "undefined":
    case "function":
    case "symbol":
      out.push("null");
      return;
  }
  if (v === null) {
    out.push("null");
    return;
  }
  if (seen.has(v)) throw new TypeError("cannot serialise a cyclic structure to JSON");
  seen.add(v);
  try {
    if (typeof v.toJSON === "function" && !(v instanceof Date)) {
      write(v.toJSON(), out, seen);
    } else if (Array.isArray(v) || ArrayBuffer.isView(v)) {
      out.push("[");
      for (let i = 0; i < v.length; i++) {
        if (i) out.push(",");
        write(v[i], out, seen);
      }
      out.push("]");
    } else if (v instanceof Date) {
      out.push(JSON.stringify(v.toISOString()));
    } else {
      out.push("{");
      let first = true;
      for (const [k, x] of Object.entries(v)) {
        if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
        if (!first) out.push(",");
        first = false;
        out.push(JSON.stringify(k), ":");
        write(x, out, seen);
      }
      out.push("}");
    }
  } finally {
    seen.delete(v);
  }
}
