// ZarrError: every failure of the API, with a machine-readable code.

// Generated from zarr/errs/errs.go by internal/errcodes (make codes): do not edit.
/** Error codes: the Go engine's (zarr/errs), then those only this package gives. */
export const codes = Object.freeze([
  "NOT_FOUND",
  "INVALID_METADATA",
  "UNSUPPORTED",
  "CODEC",
  "SELECTION",
  "INVALID_ARGUMENT",
  "STORE",
  "ABORTED",
  "READ_ONLY",
  "EXISTS",
  "TOO_LARGE",
  "CONFLICT",
  "ACCESS_DENIED",
  "ENGINE_EXITED",
  "INTERNAL",
]);
// End of the generated error codes.

export class ZarrError extends Error {
  /**
   * @param {string} code one of `codes`
   * @param {string} message
   * @param {{where?: string, suggest?: string, cause?: unknown}} [details]
   */
  constructor(code, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "ZarrError";
    this.code = code;
    if (details.where !== undefined) this.where = details.where;
    if (details.suggest !== undefined) this.suggest = details.suggest;
  }
}

/**
 * zarrita.js's error names for this package's codes (codes zarrita has no
 * name for, such as STORE or ABORTED, have none).
 */
const zarritaTags = Object.freeze({
  NOT_FOUND: "NotFoundError",
  INVALID_METADATA: "InvalidMetadataError",
  SELECTION: "InvalidSelectionError",
  UNSUPPORTED: "UnsupportedError",
  CODEC: "CodecPipelineError",
});

/**
 * As zarrita's isZarritaError(err, ...tags): whether err is a ZarrError
 * (with tags: one whose code zarrita names by one of them, "NotFoundError",
 * "InvalidMetadataError", "InvalidSelectionError", "UnsupportedError",
 * "CodecPipelineError"). An error's name for it is err._tag.
 */
export function isZarritaError(err, ...tags) {
  if (!(err instanceof ZarrError)) return false;
  return tags.length === 0 || tags.includes(err._tag);
}

Object.defineProperty(ZarrError.prototype, "_tag", {
  get() {
    return zarritaTags[this.code];
  },
});

/** Turns a rejection from the Go bridge (or anything thrown) into a ZarrError. */
export function toZarrError(e) {
  if (e instanceof ZarrError) return e;
  if (e && typeof e === "object" && e.__zarrWasmError) {
    let msg = String(e.message ?? "");
    const prefix = `${e.code}: `;
    if (msg.startsWith(prefix)) msg = msg.slice(prefix.length);
    return new ZarrError(e.code, msg, {
      where: e.where || undefined,
      suggest: e.suggest || undefined,
    });
  }
  if (e && typeof e === "object" && e.name === "AbortError") {
    return new ZarrError("ABORTED", e.message || "the operation was aborted", { cause: e });
  }
  return new ZarrError("STORE", e instanceof Error ? e.message : String(e), { cause: e });
}
