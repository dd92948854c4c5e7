// Stores that work everywhere: in memory, and over HTTP(S) with fetch.
// The contract (the same as zarrita.js): keys are absolute ("/a/b/.zarray");
// get(key, {signal}) → Uint8Array | undefined (undefined: no such key);
// optional getRange(key, {offset, length} | {suffixLength}, {signal}),
// set(key, bytes), delete(key), list(prefix) → names directly under prefix,
// sub-prefixes ending in "/".
import { listNames } from "./files.js";

function checkKey(key) {
  if (typeof key !== "string" || !key.startsWith("/")) {
    throw new TypeError(`store keys are absolute paths starting with "/", got ${JSON.stringify(key)}`);
  }
  return key;
}

function sliceRange(bytes, range, what) {
  const n = bytes.length;
  if (range.suffixLength !== undefined) {
    const s = Number(range.suffixLength);
    if (s > n) throw new RangeError(`${what}: last ${s} bytes of a ${n}-byte value`);
    return bytes.subarray(n - s);
  }
  const off = Number(range.offset ?? 0);
  const end = range.length === undefined ? n : off + Number(range.length);
  if (off < 0 || end > n || end < off) {
    throw new RangeError(`${what}: bytes ${off}-${end - 1} of a ${n}-byte value`);
  }
  return bytes.subarray(off, end);
}

/** A store in memory (a Map from absolute keys to bytes). */
export class MemoryStore {
  /** @param {Iterable<[string, Uint8Array]> | Record<string, Uint8Array>} [entries] */
  constructor(entries) {
    /** @type {Map<string, Uint8Array>} */
    this.map = new Map();
    if (entries) {
      const it = Symbol.iterator in Object(entries) ? entries : Object.entries(entries);
      for (const [k, v] of it) this.map.set(checkKey(k), v);
    }
  }
  get(key) {
    return this.map.get(checkKey(key));
  }
  getRange(key, range) {
    const v = this.map.get(checkKey(key));
    return v === undefined ? undefined : sliceRange(v, range, key);
  }
  has(key) {
    return this.map.has(checkKey(key));
  }
  set(key, value) {
    if (!(value instanceof Uint8Array)) throw new TypeError("MemoryStore values are Uint8Array");
    this.map.set(checkKey(key), value);
  }
  delete(key) {
    return this.map.delete(checkKey(key));
  }
  list(prefix = "/") {
    return listNames(this.map.keys(), checkKey(prefix));
  }
  keys() {
    return this.map.keys();
  }
  get size() {
    return this.map.size;
  }
}

/** A counting semaphore bounding requests in flight. */
class Limiter {
  constructor(n) {
    this.free = Math.max(1, n | 0);
    this.waiting = [];
  }
  acquire(signal) {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, signal, onAbort: null };
      if (signal) {
        entry.onAbort = () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal.reason ?? abortError());
        };
        signal.addEventListener("abort", entry.onAbort, { once: true });
      }
      this.waiting.push(entry);
    });
  }
  release() {
    const next = this.waiting.shift();
    if (next) {
      if (next.signal) next.signal.removeEventListener("abort", next.onAbort);
      next.resolve();
    } else {
      this.free++;
    }
  }
}

function abortError() {
  const e = new Error("The operation was aborted");
  e.name = "AbortError";
  return e;
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? abortError());
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason ?? abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** An HTTP error other than 404. */
export class HTTPError extends Error {
  constructor(status, url, message) {
    super(message ?? `HTTP ${status} for ${url}`);
    this.name = "HTTPError";
    this.status = status;
    this.url = url;
  }
}

const retryStatus = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Reads URLs and byte ranges of them with fetch: what FetchStore and the
 * reference sets' target reads share (Range headers, checked answers,
 * retries with backoff, a bound on requests in flight). `range` is null
 * (the whole file), {offset, length} ({offset} alone: to the end) or
 * {suffix}. A 404 (and, strict, a 410) is undefined.
 *
 * Strict (reference targets, as the Go engine's HTTP fetcher): a ranged
 * read must be answered 206 for the bytes asked for (fewer only at the end
 * of the file); a 200 with the whole file is an error unless the range is
 * the whole file anyway or acceptFullResponse is set, since a target may
 * be gigabytes. Not strict (FetchStore): a 200 is sliced.
 *
 * noStoreRanges sends ranged requests with cache: "no-store" (unless
 * requestInit sets cache): Chromium's HTTP cache lets one request per URL
 * at a time through, which would serialise the concurrent ranges of one
 * target file (measured in tests/browser: 1 request in flight instead of 6).
 * @internal
 */
export class HTTPReader {
  constructor(options = {}) {
    this.headers = options.headers;
    this.requestInit = options.requestInit ?? {};
    this.fetchImpl = options.fetch ?? ((req) => globalThis.fetch(req));
    this.retries = options.retries ?? 3;
    this.retryDelay = options.retryDelay ?? 100;
    this.limiter = new Limiter(options.concurrency ?? 16);
    this.strict = !!options.strict;
    this.acceptFullResponse = !!options.acceptFullResponse;
    this.noStoreRanges = !!options.noStoreRanges && this.requestInit.cache === undefined;
    /** Requests sent (each retry counts), bytes received in answers, requests in flight. */
    this.requests = 0;
    this.bytes = 0;
    this.inFlight = 0;
  }

  async read(url, range, signal) {
    const headers = new Headers(this.headers);
    if (range) {
      headers.set(
        "Range",
        range.suffix !== undefined
          ? `bytes=-${range.suffix}`
          : range.length === undefined
            ? `bytes=${range.offset}-`
            : `bytes=${range.offset}-${range.offset + range.length - 1}`,
      );
    }
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted?.();
      await this.limiter.acquire(signal);
      let status = 0;
      let failure;
      try {
        this.requests++;
        this.inFlight++;
        const init = { ...this.requestInit, headers, signal };
        if (range && this.noStoreRanges) init.cache = "no-store";
        const req = new Request(url, init);
        const res = await this.fetchImpl(req).finally(() => this.inFlight--);
        status = res.status;
        if (status === 404 || (this.strict && status === 410)) {
          await res.body?.cancel().catch(() => {});
          return undefined;
        }
        if (status === 200 || status === 206) {
          if (this.strict) this.#checkStatus(url, range, status, res);
          const body = new Uint8Array(await res.arrayBuffer());
          this.bytes += body.length;
          return this.strict && status === 206 ? checkPartial(url, range, res.headers, body) : checkBody(url, range, status, res.headers, body);
        }
        await res.body?.cancel().catch(() => {});
        failure = new HTTPError(status, String(url));
        if (!retryStatus.has(status)) throw failure;
      } catch (e) {
        if (signal?.aborted || e?.name === "AbortError") throw e;
        if (e instanceof HTTPError && !retryStatus.has(e.status)) throw e;
        if (e instanceof RangeMismatchError) throw e;
        if (!(e instanceof HTTPError) && !(e instanceof TypeError)) throw e;
        failure = e; // network error (fetch rejects with TypeError) or retryable status
      } finally {
        this.limiter.release();
      }
      if (attempt >= this.retries) {
        const msg = failure instanceof HTTPError ? failure.message : `fetch ${url} failed: ${failure?.message}`;
        const err = new HTTPError(status, String(url), `${msg} (after ${attempt + 1} attempts)`);
        err.cause = failure;
        throw err;
      }
      const delay = this.retryDelay * 2 ** attempt * (0.5 + Math.random());
      await sleep(Math.min(delay, 10_000), signal);
    }
  }

  #checkStatus(url, range, status, res) {
    if (status === 206 && !range) {
      res.body?.cancel().catch(() => {});
      throw new RangeMismatchError(`${url}: 206 Partial Content to a request without Range`);
    }
    if (status === 200 && range && !this.acceptFullResponse && !(range.suffix === undefined && range.offset === 0 && range.length === undefined)) {
      res.body?.cancel().catch(() => {});
      const what = range.suffix !== undefined ? `the last ${range.suffix} bytes` : `bytes ${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`;
      throw new RangeMismatchError(
        `${url}: the server ignored the Range header (200 with the whole file instead of 206 for ${what}); pass acceptFullResponse: true to read such servers`,
      );
    }
  }
}

/**
 * A read-only store over HTTP(S).
 *
 * - 404 → the key is absent (undefined); every other failure is an error.
 * - Ranges are real Range requests (`bytes=a-b`, suffixes `bytes=-n`). A
 *   206 is checked against the range asked for (Content-Range and length);
 *   a server that ignores Range and answers 200 with the whole body is
 *   detected and the body sliced, so the bytes are right either way.
 * - Network errors, 408/425/429 and 5xx are retried with exponential backoff
 *   and jitter (`retries`, default 3).
 * - At most `concurrency` requests are in flight (default 16).
 * - Ranged requests are sent with `cache: "no-store"` (unless
 *   `requestInit.cache` or `noStoreRanges: false` says otherwise): Chromium's
 *   HTTP cache lets one request per URL through at a time, which would
 *   serialise the inner-chunk reads of a shard.
 */
export class FetchStore {
  #reader;
  /**
   * @param {string | URL} url the root of the hierarchy
   * @param {{headers?: HeadersInit, fetch?: (req: Request) => Promise<Response>,
   *   concurrency?: number, retries?: number, retryDelay?: number,
   *   requestInit?: RequestInit}} [options]
   */
  constructor(url, options = {}) {
    const base = new URL(String(url), globalThis.location?.href);
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    this.url = base;
    this.#reader = new HTTPReader({ noStoreRanges: true, ...options });
  }

  /** Requests sent (each retry counts), for diagnostics. */
  get requests() {
    return this.#reader.requests;
  }
  set requests(n) {
    this.#reader.requests = n;
  }
  /** Bytes received (bodies of answers), for diagnostics. */
  get bytes() {
    return this.#reader.bytes;
  }
  /** Requests waiting for their answer's headers. */
  get inFlight() {
    return this.#reader.inFlight;
  }

  /** The URL of a key. */
  resolve(key) {
    checkKey(key);
    const u = new URL(this.url.href);
    const rel = key
      .slice(1)
      .split("/")
      .map((s) => encodeURIComponent(s))
      .join("/");
    u.pathname = this.url.pathname + rel;
    return u;
  }

  async get(key, options = {}) {
    return this.#reader.read(this.resolve(key), null, options.signal);
  }

  async getRange(key, range, options = {}) {
    if (range.suffixLength !== undefined) {
      const n = Number(range.suffixLength);
      if (!(n > 0)) throw new RangeError(`bad suffixLength ${range.suffixLength}`);
      return this.#reader.read(this.resolve(key), { suffix: n }, options.signal);
    }
    const offset = Number(range.offset ?? 0);
    const length = range.length === undefined ? undefined : Number(range.length);
    if (!(offset >= 0) || (length !== undefined && !(length >= 0))) {
      throw new RangeError(`bad range ${JSON.stringify(range)}`);
    }
    if (length === 0) {
      const whole = await this.#reader.read(this.resolve(key), null, options.signal);
      return whole === undefined ? undefined : new Uint8Array(0);
    }
    return this.#reader.read(this.resolve(key), { offset, length }, options.signal);
  }
}

/** A ranged response that does not match the range asked for. */
export class RangeMismatchError extends Error {
  constructor(message) {
    super(message);
    this.name = "RangeMismatchError";
  }
}

function checkBody(url, range, status, headers, body) {
  if (!range) return body;
  if (status === 200) {
    // The server ignored Range and sent the whole value: slice it here.
    const n = body.length;
    if (range.suffix !== undefined) {
      if (range.suffix > n) {
        throw new RangeMismatchError(`${url}: last ${range.suffix} bytes asked for, the value has ${n}`);
      }
      return body.subarray(n - range.suffix);
    }
    const end = range.length === undefined ? n : range.offset + range.length;
    if (end > n) {
      throw new RangeMismatchError(`${url}: bytes ${range.offset}-${end - 1} asked for, the value has ${n}`);
    }
    return body.subarray(range.offset, end);
  }
  // 206: check Content-Range when it is readable (CORS may hide it) and the length.
  const cr = headers.get("Content-Range");
  let total;
  if (cr) {
    const m = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(cr.trim());
    if (!m) throw new RangeMismatchError(`${url}: unreadable Content-Range ${JSON.stringify(cr)}`);
    const start = Number(m[1]);
    const last = Number(m[2]);
    total = m[3] === "*" ? undefined : Number(m[3]);
    if (last - start + 1 !== body.length) {
      throw new RangeMismatchError(`${url}: Content-Range ${cr} but ${body.length} bytes received`);
    }
    const wantStart =
      range.suffix !== undefined ? (total === undefined ? start : Math.max(0, total - range.suffix)) : range.offset;
    if (start !== wantStart) {
      throw new RangeMismatchError(`${url}: asked for a range starting at ${wantStart}, got Content-Range ${cr}`);
    }
  }
  const want =
    range.suffix !== undefined
      ? total === undefined
        ? range.suffix
        : Math.min(range.suffix, total)
      : range.length === undefined
        ? body.length
        : range.length;
  if (body.length !== want) {
    throw new RangeMismatchError(`${url}: ${want} bytes asked for, ${body.length} received`);
  }
  return body;
}

/**
 * Checks a 206 strictly (reference targets): Content-Range must answer the
 * range asked for; fewer bytes only at the end of the file. When CORS hides
 * Content-Range, the length must be the one asked for.
 */
function checkPartial(url, range, headers, body) {
  const cr = headers.get("Content-Range");
  const n = body.length;
  if (!cr) {
    const ok = range.suffix !== undefined ? n > 0 && n <= range.suffix : range.length === undefined ? true : n === range.length;
    if (!ok) throw new RangeMismatchError(`${url}: ${range.suffix ?? range.length} bytes asked for, ${n} received`);
    return body;
  }
  const m = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(cr.trim());
  if (!m) throw new RangeMismatchError(`${url}: unreadable Content-Range ${JSON.stringify(cr)}`);
  const first = Number(m[1]);
  const last = Number(m[2]);
  const total = m[3] === "*" ? -1 : Number(m[3]);
  if (last - first + 1 !== n) throw new RangeMismatchError(`${url}: Content-Range ${cr} but ${n} bytes received`);
  const bad = () => new RangeMismatchError(`${url}: Content-Range ${cr} does not answer ${describeRange(range)}`);
  if (range.suffix !== undefined) {
    if (total >= 0 && (last !== total - 1 || n !== Math.min(range.suffix, total))) throw bad();
    if (n > range.suffix) throw bad();
    return body;
  }
  if (first !== range.offset) throw bad();
  if (range.length !== undefined) {
    const want = range.offset + range.length - 1;
    if (last > want || (last < want && (total < 0 || last !== total - 1))) throw bad();
  } else if (total >= 0 && last !== total - 1) {
    throw bad();
  }
  return body;
}

function describeRange(range) {
  if (range.suffix !== undefined) return `the last ${range.suffix} bytes`;
  return range.length === undefined ? `bytes ${range.offset}-` : `bytes ${range.offset}-${range.offset + range.length - 1}`;
}
