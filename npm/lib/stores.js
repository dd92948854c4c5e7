// Stores that work everywhere: in memory, and over HTTP(S) with fetch.
// The contract (the same as zarrita.js): keys are absolute ("/a/b/.zarray");
// get(key, {signal}) → Uint8Array | undefined (undefined: no such key);
// optional getRange(key, {offset, length} | {suffixLength}, {signal}),
// set(key, bytes), delete(key), list(prefix) → names directly under prefix,
// sub-prefixes ending in "/". Versions are an optional extension of it
// (see readAnswer).
import { listNames } from "./files.js";
import { ZarrError } from "./errors.js";
import { checkOptions } from "./options.js";
import { loadNodeHTTP, nodeHTTPLoaded, nodeGet } from "./nodehttp.js";
import { ObjectAccess, mappedLocation, maxErrorBody } from "./s3.js";

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

/**
 * Versions (the engine's side of the store contract, optional for any
 * store): called with `{versioned: true}`, get and getRange may answer
 * `{data, generation}` (data undefined: no such key), honour `ifMatch`
 * (another version: `{changed: true}`) and `ifNoneMatch` (the same
 * version: `{notModified: true, generation}`); set and delete may honour
 * `ifMatch` and `ifNoneMatch: "*"` (create only), answering `{generation}`
 * or `{changed: true}`. Called without `versioned`, they answer as plain
 * zarrita stores do.
 */
function readAnswer(v, generation, range, key, options) {
  if (options?.ifMatch !== undefined && options.ifMatch !== generation) return { changed: true };
  if (options?.ifNoneMatch !== undefined && options.ifNoneMatch === generation) return { notModified: true, generation };
  return { data: v === undefined || !range ? v : sliceRange(v, range, key), generation };
}

/**
 * A store in memory (a Map from absolute keys to bytes). Each value has a
 * generation (a number per Uint8Array stored, so a value put straight into
 * `map` gets a new one too), so reads are versioned and set/delete can be
 * conditional.
 */
export class MemoryStore {
  #ids = new WeakMap();
  #next = 0;
  /** @param {Iterable<[string, Uint8Array]> | Record<string, Uint8Array>} [entries] */
  constructor(entries) {
    /** @type {Map<string, Uint8Array>} */
    this.map = new Map();
    if (entries) {
      const it = Symbol.iterator in Object(entries) ? entries : Object.entries(entries);
      for (const [k, v] of it) this.map.set(checkKey(k), v);
    }
  }
  /** The generation of key's value (null: no value). */
  generation(key) {
    const v = this.map.get(checkKey(key));
    if (v === undefined) return null;
    let id = this.#ids.get(v);
    if (id === undefined) {
      id = ++this.#next;
      this.#ids.set(v, id);
    }
    return `m${id}`;
  }
  get(key, options) {
    const v = this.map.get(checkKey(key));
    return options?.versioned ? readAnswer(v, this.generation(key), null, key, options) : v;
  }
  getRange(key, range, options) {
    const v = this.map.get(checkKey(key));
    if (options?.versioned) return readAnswer(v, this.generation(key), range, key, options);
    return v === undefined ? undefined : sliceRange(v, range, key);
  }
  has(key) {
    return this.map.has(checkKey(key));
  }
  set(key, value, options) {
    if (!(value instanceof Uint8Array)) throw new TypeError("MemoryStore values are Uint8Array");
    if (!writeAllowed(this.generation(key), options)) return { changed: true };
    this.map.set(checkKey(key), value);
    return options?.versioned ? { generation: this.generation(key) } : undefined;
  }
  delete(key, options) {
    if (!writeAllowed(this.generation(key), options)) return { changed: true };
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

/** Whether a conditional write may go ahead at the current generation (null: no value). */
export function writeAllowed(current, options) {
  if (options?.ifMatch !== undefined && options.ifMatch !== current) return false;
  if (options?.ifNoneMatch === "*" && current !== null) return false;
  return true;
}

/** A counting semaphore bounding requests in flight. */
class Limiter {
  constructor(n) {
    this.size = this.free = Math.max(1, n | 0);
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
  /** Changes how many may run at once (those running finish; waiting ones start as room frees). */
  resize(n) {
    n = Math.max(1, n | 0);
    this.free += n - this.size;
    this.size = n;
    while (this.free > 0 && this.waiting.length > 0) {
      this.free--;
      const next = this.waiting.shift();
      if (next.signal) next.signal.removeEventListener("abort", next.onAbort);
      next.resolve();
    }
  }
  release() {
    if (this.free < 0) {
      this.free++; // (shrunk: this one's place goes)
      return;
    }
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

/** Waits ms (rejecting when signal aborts). */
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

/** An HTTP error other than 404/410. */
export class HTTPError extends Error {
  constructor(status, url, message) {
    super(message ?? `HTTP ${status} for ${url}`);
    this.name = "HTTPError";
    this.status = status;
    this.url = url;
  }
}

/**
 * The retry and timeout policy of every HTTP read the package makes
 * (FetchStore, reference files and targets): the same numbers as Go's
 * zarr/store/http (docs/stores.md, "Timeouts, caps and retries"). Times in milliseconds.
 */
export const httpDefaults = Object.freeze({
  /** One attempt: the response headers, and then each next piece of the body, must come within this. */
  timeout: 30_000,
  /** One read, every attempt and back-off included. */
  totalTimeout: 120_000,
  /** Retries after the first attempt. */
  retries: 3,
  /** First back-off, doubled each retry and spread by a random factor 0.5–1.5. */
  retryDelay: 200,
  /** Longest back-off; a Retry-After longer than this ends the read instead. */
  maxRetryDelay: 10_000,
  /** Largest body of a whole object (a range's body: its length + rangeSlack). */
  maxBodyBytes: 2 ** 30,
});

/** Bytes a 206 body may run past the range asked for before the read stops. */
export const rangeSlack = 4096;

const retryStatus = new Set([408, 425, 429, 500, 502, 503, 504]);

/** A failure worth another attempt (after `after` ms when the server said so). */
class Retryable extends Error {
  constructor(message, after = -1) {
    super(message);
    this.after = after;
  }
}

/** Retry-After in ms (seconds or an HTTP date); -1 when absent or unreadable. */
function retryAfter(headers) {
  const v = headers.get("Retry-After")?.trim();
  if (!v) return -1;
  if (/^\d+$/.test(v)) return Math.min(Number(v), 2 ** 20) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? -1 : Math.max(0, t - Date.now());
}

function option(v, def) {
  return v === undefined || v === null ? def : Number(v);
}

function storeError(message, cause) {
  return new ZarrError("STORE", message, cause === undefined ? {} : { cause });
}

/** Resolves or rejects with p, unless signal aborts first. */
function raceAbort(p, signal) {
  if (!signal) return p;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

const stalled = Symbol("stalled");

/** A suffix range answered from the start of the file: ask again for `range`. */
class SuffixFromStart extends Error {
  constructor(range) {
    super("suffix range answered from the start");
    this.range = range;
  }
}

/**
 * Reads URLs and byte ranges of them with fetch: what FetchStore and the
 * reference sets' reads share (Range headers, checked answers, timeouts,
 * capped bodies, retries with backoff, a bound on requests in flight).
 * `range` is null (the whole file), {offset, length} ({offset} alone: to
 * the end) or {suffix}. A 404 or 410 is undefined.
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
    /** Whether requests may go through node:http(s) (see nodeTransport). */
    this.node = options.fetch === undefined && nodeTransport && plainInit(this.requestInit);
    this.nodeHeaders = null; // (this.headers as a plain object, names in lower case: made on first use)
    this.retries = option(options.retries, httpDefaults.retries);
    this.retryDelay = option(options.retryDelay, httpDefaults.retryDelay);
    this.maxRetryDelay = option(options.maxRetryDelay, httpDefaults.maxRetryDelay);
    this.timeout = option(options.timeout, httpDefaults.timeout);
    this.totalTimeout = option(options.totalTimeout, httpDefaults.totalTimeout);
    this.maxBodyBytes = option(options.maxBodyBytes, httpDefaults.maxBodyBytes);
    this.limiter = new Limiter(options.concurrency ?? 16);
    this.strict = !!options.strict;
    this.acceptFullResponse = !!options.acceptFullResponse;
    this.noStoreRanges = !!options.noStoreRanges && this.requestInit.cache === undefined;
    /** Requests sent (each retry counts), bytes received in answers, requests in flight. */
    this.requests = 0;
    this.bytes = 0;
    this.inFlight = 0;
  }

  /**
   * htmlIsAbsent: an HTML answer (content-type text/html) means the key is
   * absent: dev servers with an SPA fallback answer 200 with index.html
   * for any file they do not have.
   *
   * `versioned` (optional): {ifMatch, ifNoneMatch, headers: boolean}: the
   * answer is then {data, generation, etag, lastModified} (generation: the
   * ETag, else "last-modified:" and the date; etag and lastModified: the
   * headers themselves), {notModified: true, generation} for a 304, or {changed:
   * true} for a 412; with `headers`, the conditions are sent (If-Match,
   * If-None-Match, or the date forms).
   *
   * `extra` (optional, FetchStore's object-store side, see s3.js):
   * {sign(method, url, [[name, value]]) → {url, headers to add}: signs
   * each attempt; onError(url, status, headers, body) → "absent", "denied"
   * or a failure {status, code, message, retry, expired}: what an answer
   * other than 200/206 (304/412 when versioned) means, given the start of
   * its body; refresh() → a new sign, after an answer that says the
   * credentials expired (once); maxBody: the cap of a whole body}.
   */
  async read(url, range, signal, htmlIsAbsent = false, versioned = undefined, extra = undefined) {
    let node = false;
    if (this.node) {
      const u = typeof url === "string" ? parseURL(url) : url;
      node = u !== null && nodeUsable(u);
      if (node) url = u;
    }
    if (node && !nodeHTTPLoaded()) {
      try {
        await loadNodeHTTP();
      } catch {
        this.node = node = false;
      }
    }
    let headers;
    if (node) {
      headers = { ...(this.nodeHeaders ??= Object.fromEntries(new Headers(this.headers))) };
      if (versioned?.headers) setConditions((k, v) => (headers[k.toLowerCase()] = v), versioned);
      if (range) headers.range = rangeHeader(range);
    } else {
      headers = new Headers(this.headers);
      if (versioned?.headers) setConditions((k, v) => headers.set(k, v), versioned);
      if (range) headers.set("Range", rangeHeader(range));
    }
    // The total timeout runs from the first attempt (not while waiting for
    // a free slot among the requests in flight).
    let deadline = Infinity;
    const totalMs = this.totalTimeout;
    const fail = (msg, attempts, cause) =>
      storeError(`GET ${url}: ${msg}${attempts > 1 ? ` (after ${attempts} attempts)` : ""}`, cause);
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted?.();
      await this.limiter.acquire(signal);
      if (deadline === Infinity && totalMs > 0) deadline = Date.now() + totalMs;
      let failure;
      let suffixRetry = null;
      let refresh = false;
      try {
        let [u, h] = [url, headers];
        if (extra?.sign) [u, h] = signed(extra.sign, "GET", url, headers, node);
        return await this.#attempt(u, range, h, node, signal, deadline, htmlIsAbsent, versioned, extra);
      } catch (e) {
        if (signal?.aborted) throw signal.reason ?? e;
        if (e instanceof SuffixFromStart) {
          suffixRetry = e.range;
        } else if (e === stalled) {
          throw fail(`gave up after ${totalMs} ms (the total timeout)`, attempt + 1);
        } else if (e instanceof ObjectStoreFailure) {
          if (e.f.expired && extra?.refresh && !refreshed) refresh = true;
          else if (e.f.retry) failure = Object.assign(new Retryable(e.f.message), { status: e.f.status });
          else throw failureError(e.f, url);
        } else {
          if (!(e instanceof Retryable)) throw e;
          failure = e;
        }
      } finally {
        this.limiter.release();
      }
      if (suffixRetry) return this.read(url, suffixRetry, signal, htmlIsAbsent, versioned, extra);
      if (refresh) {
        // the server said the credentials expired: new ones, once, at once
        refreshed = true;
        extra = { ...extra, sign: await extra.refresh() };
        attempt--;
        continue;
      }
      if (attempt >= this.retries) {
        if (failure.status) {
          const err = new HTTPError(failure.status, String(url), `${failure.message} (after ${attempt + 1} attempts)`);
          err.code = "STORE";
          throw err;
        }
        throw fail(failure.message, attempt + 1, failure.cause);
      }
      let wait = Math.min(this.retryDelay * 2 ** attempt * (0.5 + Math.random()), this.maxRetryDelay);
      if (failure.after >= 0) {
        if (failure.after > this.maxRetryDelay) {
          throw fail(`${failure.message}; the server asks to retry after ${failure.after / 1000} s, longer than the ${this.maxRetryDelay} ms this client waits`, attempt + 1);
        }
        wait = failure.after;
      }
      if (Date.now() + wait > deadline) {
        throw fail(`${failure.message}; the next attempt (in ${Math.round(wait)} ms) would pass the total timeout`, attempt + 1);
      }
      await sleep(wait, signal);
    }
  }

  /**
   * The size of url from a HEAD request (fetch, the reader's headers and
   * requestInit, signed by extra.sign as a read), for a suffix range asked
   * for as a plain one: {size}, {absent: true} for 404/410, or null when
   * the answer says neither (then the suffix range is asked for, and its
   * answer read by the whole policy). One attempt, the attempt timeout.
   */
  async size(url, signal, extra = undefined) {
    await this.limiter.acquire(signal);
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = this.timeout > 0 ? setTimeout(() => ac.abort(stalled), this.timeout) : null;
    try {
      let [u, h] = [url, new Headers(this.headers)];
      if (extra?.sign) [u, h] = signed(extra.sign, "HEAD", url, h, false);
      this.requests++;
      const res = await raceAbort(this.fetchImpl(new Request(u, { ...this.requestInit, method: "HEAD", headers: h, signal: ac.signal })), ac.signal);
      res.body?.cancel().catch(() => {});
      if (res.status === 404 || res.status === 410) return { absent: true };
      const n = Number(res.headers.get("Content-Length") ?? NaN);
      return res.status === 200 && Number.isSafeInteger(n) && n >= 0 ? { size: n } : null;
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      return null;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      this.limiter.release();
    }
  }

  /** One request (through node:http(s) when node); throws Retryable for failures worth another attempt. */
  async #attempt(url, range, headers, node, signal, deadline, htmlIsAbsent, versioned, extra) {
    // abort(reason) ends the request: an AbortController's for fetch, the request's own for node:http.
    let ac = null;
    let handle = null;
    const abort = (reason) => (handle ? handle.abort(reason) : ac?.abort(reason));
    if (!node) ac = new AbortController();
    const onAbort = () => abort(signal.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let why = null; // "attempt" or "total" when a timer aborted the request
    // The attempt's timer: it fires at the attempt timeout after the last
    // progress (or at the deadline, when that comes first). Progress only
    // notes the time; the timer, when it fires early, is set again for the
    // rest (one timer per attempt, not one per piece of the body).
    let stallTimer = null;
    let last = Date.now();
    const attemptMs = this.timeout > 0 ? this.timeout : Infinity;
    const onTimer = () => {
      stallTimer = null;
      const now = Date.now();
      if (now >= deadline) why = "total";
      else if (now - last >= attemptMs) why = "attempt";
      else return setTimer(now);
      abort(stalled);
    };
    const setTimer = (now) => {
      const at = Math.min(last + attemptMs, deadline);
      if (at !== Infinity) stallTimer = setTimeout(onTimer, Math.max(0, at - now));
    };
    const arm = () => {
      last = Date.now();
    };
    const timedOut = () => {
      if (why === "total") return stalled;
      return new Retryable(`no answer for ${this.timeout} ms (the attempt timeout)`);
    };
    setTimer(last);
    try {
      this.requests++;
      let res;
      try {
        this.inFlight++;
        if (node) {
          handle = nodeGet(url, headers);
          res = await handle.promise.finally(() => this.inFlight--);
        } else {
          const init = { ...this.requestInit, headers, signal: ac.signal };
          if (range && this.noStoreRanges) init.cache = "no-store";
          // raced: a fetch hook may not honour the signal
          res = await raceAbort(this.fetchImpl(new Request(url, init)), ac.signal).finally(() => this.inFlight--);
        }
      } catch (e) {
        if (signal?.aborted) throw signal.reason ?? e;
        if (why) throw timedOut();
        if (e instanceof TypeError) throw new Retryable(`fetch ${url} failed: ${e.message}`);
        throw e;
      }
      arm();
      const status = res.status;
      const cancel = () => res.body?.cancel().catch(() => {});
      const generation = versioned ? generationOf(res.headers) : null;
      if (extra?.onError && status !== 200 && status !== 206 && !(versioned && (status === 304 || status === 412)) && !retryStatus.has(status)) {
        // An object store's answer: its error document says what it means.
        let body = new Uint8Array(0);
        try {
          body = await readCapped(res, maxErrorBody, arm, abort, url);
        } catch (e) {
          if (signal?.aborted) throw signal.reason ?? e;
          if (why) throw timedOut();
        }
        const v = await extra.onError(String(url), status, res.headers, body);
        if (v === "absent") return versioned ? { data: undefined, generation: null } : undefined;
        if (v === "denied") return versioned ? { data: undefined, generation: null, denied: true } : undefined;
        throw new ObjectStoreFailure(v);
      }
      if (status === 404 || status === 410) {
        cancel();
        return versioned ? { data: undefined, generation: null } : undefined;
      }
      if (versioned && status === 304) {
        cancel();
        return { notModified: true, generation: generation ?? versioned.ifNoneMatch };
      }
      if (versioned && status === 412) {
        cancel();
        return { changed: true };
      }
      if (htmlIsAbsent && status === 200 && /^\s*text\/html/i.test(res.headers.get("content-type") ?? "")) {
        cancel();
        return versioned ? { data: undefined, generation: null } : undefined;
      }
      if (status !== 200 && status !== 206) {
        cancel();
        const err = new HTTPError(status, String(url));
        if (!retryStatus.has(status)) {
          err.code = "STORE";
          throw err;
        }
        const r = new Retryable(err.message, retryAfter(res.headers));
        r.status = status;
        throw r;
      }
      this.#checkStatus(url, range, status, res);
      // The cap: a 206 carries the range asked for (plus a little slack),
      // anything else at most maxBodyBytes.
      let cap = extra?.maxBody ?? this.maxBodyBytes;
      if (status === 206 && range) {
        if (range.suffix !== undefined) cap = Math.min(cap, range.suffix + rangeSlack);
        else if (range.length !== undefined) cap = Math.min(cap, range.length + rangeSlack);
      }
      let body;
      try {
        body = await readCapped(res, cap, arm, abort, url);
        this.bytes += body.length;
      } catch (e) {
        if (signal?.aborted) throw signal.reason ?? e;
        if (why) throw timedOut();
        if (e instanceof TypeError) throw new Retryable(`reading the body of ${url} failed: ${e.message}`);
        throw e;
      }
      const data = await (async () => {
        if (!range) return body;
        if (this.strict && status === 206) return checkPartial(url, range, res.headers, body);
        try {
          return checkBody(url, range, status, res.headers, body);
        } catch (e) {
          // Servers that read "bytes=-N" as "bytes=0-N" (sirv, behind vite
          // and vite preview) still say the file's size: the same bytes are
          // asked for again by offset.
          if (e.total === undefined) throw e;
          throw new SuffixFromStart({ offset: Math.max(0, e.total - range.suffix), length: Math.min(range.suffix, e.total) });
        }
      })();
      if (!versioned) return data;
      return { data, generation, etag: res.headers.get("ETag") ?? undefined, lastModified: res.headers.get("Last-Modified") ?? undefined };
    } finally {
      clearTimeout(stallTimer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  #checkStatus(url, range, status, res) {
    if (!this.strict) return;
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

/** An object store's failure answer (s3.js, ObjectAccess.answer), on its way out of an attempt. */
class ObjectStoreFailure extends Error {
  constructor(f) {
    super(f.message);
    this.f = f;
  }
}

/** The HTTPError of an object store's failure: its status, and the code the engine gave it. */
function failureError(f, url) {
  const e = new HTTPError(f.status, String(url), f.message);
  e.code = f.code;
  return e;
}

/**
 * url and headers signed by sign (HTTPReader.read's extra): headers is a
 * plain object (node) or a Headers; what is sent is what was signed.
 */
function signed(sign, method, url, headers, node) {
  const pairs = node ? Object.entries(headers) : [...headers];
  const out = sign(method, String(url), pairs);
  if (!out) return [url, headers];
  let u = out.url === String(url) ? url : out.url;
  if (node && u !== url) u = parseURL(u);
  if (!out.headers.length) return [u, headers];
  if (node) {
    const h = { ...headers };
    for (const [k, v] of out.headers) h[k.toLowerCase()] = v;
    return [u, h];
  }
  const h = new Headers(headers);
  for (const [k, v] of out.headers) h.set(k, v);
  return [u, h];
}

/** The generation of an answer: its ETag, else its Last-Modified (as Go's store). */
function generationOf(headers) {
  const etag = headers.get("ETag");
  if (etag) return etag;
  const lm = headers.get("Last-Modified");
  return lm ? `last-modified:${lm}` : null;
}

/** Sets (with set(name, value)) the request headers of {ifMatch, ifNoneMatch} (generations as generationOf makes them). */
function setConditions(set, { ifMatch, ifNoneMatch }) {
  if (typeof ifMatch === "string") {
    if (ifMatch.startsWith("last-modified:")) set("If-Unmodified-Since", ifMatch.slice(14));
    else if (!ifMatch.startsWith("W/")) set("If-Match", ifMatch); // (a weak ETag never matches If-Match)
  }
  if (typeof ifNoneMatch === "string") {
    if (ifNoneMatch.startsWith("last-modified:")) set("If-Modified-Since", ifNoneMatch.slice(14));
    else set("If-None-Match", ifNoneMatch);
  }
}

/** The Range header of range ({suffix} or {offset, length?}). */
function rangeHeader(range) {
  if (range.suffix !== undefined) return `bytes=-${range.suffix}`;
  return range.length === undefined ? `bytes=${range.offset}-` : `bytes=${range.offset}-${range.offset + range.length - 1}`;
}

/**
 * Node's own HTTP client (lib/nodehttp.js) instead of fetch, in Node (not
 * Bun or Deno, whose node:http is a layer over their fetch): the same
 * requests and answers for about 40 % of the CPU per request. Only when
 * nothing asks for fetch: no `fetch` option, requestInit with nothing but
 * options Node's fetch ignores or that mean the same there, fetch itself
 * not replaced since this module loaded (a mock or an instrumented fetch
 * keeps seeing every request), no undici dispatcher of another kind than
 * its default Agent installed (a proxy through setGlobalDispatcher keeps
 * working), and an http(s) URL without credentials.
 */
const nodeTransport =
  typeof process === "object" && process !== null && typeof process.versions?.node === "string" &&
  process.versions.bun === undefined && globalThis.Deno === undefined && globalThis.location === undefined &&
  typeof globalThis.fetch === "function";
const fetchAtLoad = globalThis.fetch;
const undiciDispatcher = Symbol.for("undici.globalDispatcher.1");
/** requestInit options with which node:http does what fetch does in Node. */
const nodeInitKeys = new Set(["cache", "credentials", "mode", "referrer", "referrerPolicy", "priority", "keepalive", "headers", "redirect"]);

function plainInit(init) {
  for (const k of Object.keys(init)) {
    if (!nodeInitKeys.has(k)) return false;
    const v = init[k];
    if (k === "redirect" && v !== undefined && v !== "follow") return false;
    if (k === "cache" && v === "only-if-cached") return false;
  }
  return true;
}

function parseURL(s) {
  try {
    return new URL(s);
  } catch {
    return null;
  }
}

function nodeUsable(url) {
  if (globalThis.fetch !== fetchAtLoad) return false;
  const d = globalThis[undiciDispatcher];
  if (d !== undefined && d?.constructor?.name !== "Agent") return false;
  return (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "";
}

/**
 * Reads a response body, at most cap bytes: a longer one (announced or
 * arriving) aborts the request and is a STORE error. progress() is called
 * as bytes arrive (it re-arms the attempt's timer).
 */
async function readCapped(res, cap, progress, abort, url) {
  const over = () => {
    abort(new Error("body over the cap"));
    return storeError(`GET ${url}: the response body runs past the ${cap}-byte cap (maxBodyBytes, or the range asked for); connection closed`);
  };
  const announced = Number(res.headers.get("Content-Length") ?? NaN);
  if (announced > cap && !res.headers.get("Content-Encoding")) {
    res.body?.cancel().catch(() => {});
    throw over();
  }
  if (typeof res.read === "function") return res.read(cap, progress, over); // (node:http's answer)
  if (!res.body) {
    const b = new Uint8Array(await res.arrayBuffer());
    if (b.length > cap) throw over();
    return b;
  }
  const reader = res.body.getReader();
  const parts = [];
  let n = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.length;
      if (n > cap) {
        reader.cancel().catch(() => {});
        throw over();
      }
      parts.push(value);
      progress();
    }
  } finally {
    reader.releaseLock?.();
  }
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(n);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** How long a primed answer (FetchStore[primeRead]) may be taken. */
const primedMs = 10_000;
/** @internal FetchStore's method that reads a key and keeps the answer for the next get. */
export const primeRead = Symbol("zarr-wasm primeRead");

/**
 * FetchStore's default `concurrency` (see FetchStore): 64 in Node; in a
 * browser 16 until the protocol of the store's server is known, then 6
 * over HTTP/1.x (the connections a browser opens to one server) and 64
 * over HTTP/2 or HTTP/3 (streams of one connection).
 */
const fetchConcurrency = { node: 64, unknown: 16, http1: 6, multiplexed: 64 };
const inBrowser = globalThis.location !== undefined;

/**
 * The protocol a browser last fetched from origin with, from the resource
 * timing entries: "h2", "h3", "http/1.1"…, or "" when not known (no entry
 * yet, or another origin that sends no Timing-Allow-Origin).
 */
function protocolOf(origin) {
  const entries = globalThis.performance?.getEntriesByType?.("resource") ?? [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.nextHopProtocol && e.name.startsWith(origin + "/")) return e.nextHopProtocol;
  }
  return "";
}

/**
 * A store over HTTP(S) and object stores (S3, S3-compatible servers,
 * GCS): read-only unless given credentials (or `writable`).
 *
 * - Locations: an http(s) URL, or `s3://bucket/prefix`
 *   (https://bucket.s3.amazonaws.com/prefix; with `region`,
 *   bucket.s3.<region>.amazonaws.com; with `endpoint`, path-style
 *   <endpoint>/bucket/prefix for S3-compatible servers) or
 *   `gs://bucket/prefix` (https://storage.googleapis.com/bucket/prefix),
 *   mapped by the engine (Go's urlx.ObjectURL).
 * - 404 and 410 → the key is absent (undefined). 403 (while
 *   `missingStatus`, default [403, 404, 410], has it) is what S3 and GCS
 *   answer for a missing key to readers who may not list the bucket: for a
 *   metadata key it means absent (the engine then opens the node from the
 *   keys that exist, and says ACCESS_DENIED when every one was refused);
 *   for another key absent once metadata at or above its directory was
 *   read from this store (a missing chunk: fill value), ACCESS_DENIED
 *   otherwise. `missingStatus: [404, 410]` makes every 403 ACCESS_DENIED.
 *   An S3 error document that says something else (a bad signature,
 *   expired credentials, a clock out of step, a bucket in another region,
 *   no such bucket) is an error with the code the engine gives it.
 * - Signed requests: `credentials` ({accessKeyId, secretAccessKey,
 *   sessionToken?}, or a function returning them, asked again near their
 *   `expiration` and when the server says they expired) sign every request
 *   with AWS Signature Version 4 in the engine, for `region`. In a browser
 *   reads are signed in the query (`signing: "query"`, no extra headers, so
 *   no CORS preflight), elsewhere in headers. Presigned URLs are fetched as
 *   they are.
 * - Listing: `list(prefix)` asks a bucket for ListObjectsV2 pages
 *   (`listable` says whether the location is a bucket's).
 * - Writes (with `credentials` or `writable`): `set` is a PUT, `delete` a
 *   DELETE, carrying the engine's conditions as If-None-Match: * and
 *   If-Match: <ETag> (412: `{changed: true}`). Whether the server honours
 *   them is probed once, on a throw-away key, before the first conditional
 *   write (`conditionalWrites`: "probe", true, false); where it does not,
 *   writes go without conditions (`conditionalWrites` is then false).
 * - Every other failure is an error.
 * - A suffix (the last n bytes of a key: a shard's index) is a Range
 *   `bytes=-n`, except in a browser for another origin (`suffixRanges`,
 *   "same-origin" by default), where such a Range is not CORS-safelisted
 *   and would cost a preflight: a HEAD gives the size, then the bytes are
 *   asked for as `bytes=a-b` (the two requests zarrita.js makes); a HEAD
 *   refused (403) is followed by a read of the first byte, whose error
 *   document says whether the key is absent.
 * - Ranges are real Range requests (`bytes=a-b`, suffixes `bytes=-n`). A
 *   206 is checked against the range asked for (Content-Range and length);
 *   a server that ignores Range and answers 200 with the whole body is
 *   detected and the body sliced, so the bytes are right either way.
 * - Timeouts, capped bodies and retries follow `httpDefaults` (the same
 *   policy as Go's zarr/store/http): `timeout` per attempt, `totalTimeout`
 *   per read, `maxBodyBytes` for a whole object (a range: its length plus
 *   `rangeSlack`), `retries` of network errors, timed-out attempts,
 *   truncated bodies and 408/425/429/500/502/503/504 after a jittered
 *   exponential back-off (`retryDelay`, `maxRetryDelay`) or the server's
 *   Retry-After.
 * - At most `concurrency` requests are in flight: by default 64 in Node
 *   (node:http opens a connection per request in flight, as many as
 *   asked); in a browser 16 until the server's protocol is known, then 6
 *   over HTTP/1.x (a browser sends 6 at a time per server and queues the
 *   rest, their attempt timers running) and 64 over HTTP/2 or HTTP/3 (one
 *   connection's streams). The protocol comes from the page's resource
 *   timing entries for the server (`protocol`): known for the page's own
 *   origin, and for another that sends `Timing-Allow-Origin`; otherwise 16
 *   stays. An array's reads fetch and decode that many chunks at once
 *   (`get(sel, {concurrency})` still decides).
 * - Ranged requests are sent with `cache: "no-store"` (unless
 *   `requestInit.cache` or `noStoreRanges: false` says otherwise): Chromium's
 *   HTTP cache lets one request per URL through at a time, which would
 *   serialise the inner-chunk reads of a shard.
 * - Versions: asked with `{versioned: true}` (the engine does), answers
 *   carry the ETag (else Last-Modified) as their generation, and `ifMatch`
 *   / `ifNoneMatch` are sent as If-Match / If-None-Match (412: `{changed:
 *   true}`, 304: `{notModified: true}`). `conditionalRequests` says when
 *   the headers are sent: "same-origin" (default: always in Node; in a
 *   browser only to the page's own origin, because for another origin they
 *   make every request a CORS preflight, which servers that do not allow
 *   those headers refuse), true or false. Without them the engine compares
 *   the ETag of each answer instead (another origin must expose it:
 *   `Access-Control-Expose-Headers: ETag`); a 304 then needs the headers.
 */
export class FetchStore {
  #reader;
  #protocolPending;
  #access;
  #prefix = null;
  #primed = null; // key → {answer (a versioned read's), until (ms)}: see primeRead
  /**
   * @param {string | URL} url the root of the hierarchy: an http(s) URL, or
   *   an object-store location (s3://bucket/prefix, gs://bucket/prefix)
   * @param {import("../index.js").FetchStoreOptions} [options]
   */
  constructor(url, options = {}) {
    options = checkOptions("FetchStore", options);
    const where = String(url);
    this.#access = new ObjectAccess(where, options);
    /** The location given (an http(s) URL, or s3:// or gs://). */
    this.location = where;
    /** The root's http(s) URL, ending in "/" (for an s3:// or gs:// location, once the engine mapped it: null before). */
    this.url = null;
    if (!mappedLocation.test(where)) this.#setBase(where);
    else if (this.#access.mapNow()) this.#setBase(this.#access.mapped.url);
    this.#reader = new HTTPReader({ noStoreRanges: true, ...options, concurrency: options.concurrency ?? (inBrowser ? fetchConcurrency.unknown : fetchConcurrency.node) });
    // (in a browser without the option: set from the protocol once an answer says it)
    this.#protocolPending = options.concurrency === undefined && inBrowser ? 8 : 0; // (answers to look after)
    const sr = options.suffixRanges ?? "same-origin";
    /**
     * Whether the last bytes of a key (a shard's index) are asked for as a
     * suffix range (bytes=-n), or after a HEAD for the size as a plain range
     * (see the class comment): resolved like conditionalRequests.
     */
    this.suffixRanges = sr === "same-origin" ? globalThis.location === undefined || this.#sameOrigin() : !!sr;
    const c = options.conditionalRequests ?? "same-origin";
    /** Whether conditions are sent as request headers (see the class comment). */
    this.conditionalRequests = c === "same-origin" ? globalThis.location === undefined || this.#sameOrigin() : !!c;
    if (options.writable || options.credentials) {
      // (own properties: a store without them is read-only to the engine)
      this.set = (key, value, opts) => this.#write("PUT", checkKey(key), value, opts);
      this.delete = (key, opts) => this.#write("DELETE", checkKey(key), null, opts);
    }
  }

  #setBase(where) {
    const base = new URL(where, globalThis.location?.href);
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    this.url = base;
    this.#prefix = null;
  }

  #sameOrigin() {
    // (an s3:// location not yet mapped: its origin is the object store's, another than the page's)
    return this.url !== null && this.url.origin === globalThis.location.origin;
  }

  /** Requests in flight at most (the `concurrency` option); reads take as many chunks at once. */
  get concurrency() {
    return this.#reader.limiter.size;
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

  /**
   * Whether list() works: the location is an object store's bucket (an
   * s3:// or gs:// location, S3's or GCS's own host names, or a URL under
   * the endpoint option). Undefined until the engine has read the location.
   */
  get listable() {
    try {
      const m = this.#access.mapNow();
      return m ? m.bucket !== "" : undefined;
    } catch {
      return false; // (a bad location: the first request says why)
    }
  }

  /**
   * Whether the server honours conditional writes (If-None-Match, If-Match):
   * undefined until the first conditional write probed it (or as the
   * conditionalWrites option says). Where it does not, writes are made
   * without conditions, as to a store without generations.
   */
  get conditionalWrites() {
    return this.#access.conditional;
  }

  /** The URL of a key. */
  resolve(key) {
    checkKey(key);
    if (this.url === null) {
      const m = this.#access.mapNow();
      if (!m) throw new ZarrError("STORE", `${this.location}: the engine maps object-store locations; read through zarr.open, or call zarr.init() first`);
      this.#setBase(m.url);
    }
    const rel = key
      .slice(1)
      .split("/")
      .map((s) => encodeURIComponent(s))
      .join("/");
    // (One parse of the whole URL: the root's up to its path, the key's path, the root's query.)
    const u = this.url;
    this.#prefix ??= u.href.slice(0, u.href.length - u.search.length - u.hash.length);
    return new URL(this.#prefix + rel + u.search + u.hash);
  }

  /** Maps the location and gets credentials when a request needs them first. */
  async #ready() {
    await this.#access.ready();
    if (this.url === null) this.#setBase(this.#access.mapped.url);
  }

  #versioned(options) {
    if (!options?.versioned) return undefined;
    return { ifMatch: options.ifMatch, ifNoneMatch: options.ifNoneMatch, headers: this.conditionalRequests };
  }

  /** Reads key (range null: all of it), noting the directories whose metadata was read (see the class comment on 403). */
  async #read(key, range, options, htmlIsAbsent) {
    if (this.#access.pending) await this.#ready();
    const versioned = this.#versioned(options);
    const r = await this.#reader.read(this.resolve(key), range, options?.signal, htmlIsAbsent, versioned, this.#access.readExtra(key));
    if (r !== undefined && (!versioned || r.data !== undefined)) this.#access.noteRead(key);
    if (this.#protocolPending) this.#learnProtocol();
    return r;
  }

  /** Sets the default concurrency from the protocol the browser fetched from the store's server with, once it is known. */
  #learnProtocol() {
    if (this.url === null) return;
    const p = protocolOf(this.url.origin);
    this.#protocolPending--; // (another origin without Timing-Allow-Origin never says: 16 stays)
    if (p === "") return;
    this.#protocolPending = 0;
    /** The protocol of the store's server, as the browser reports it ("h2", "http/1.1"…; undefined until known). */
    this.protocol = p;
    this.#reader.limiter.resize(/^http\/1/.test(p) ? fetchConcurrency.http1 : /^h[23]/.test(p) ? fetchConcurrency.multiplexed : fetchConcurrency.unknown);
  }

  async get(key, options = {}) {
    const p = this.#primed?.get(key);
    if (p) {
      this.#primed.delete(key);
      // (a conditional read asks the server: the answer may be older than what the engine holds)
      if (Date.now() < p.until && options.ifMatch === undefined && options.ifNoneMatch === undefined) {
        return options.versioned ? p.answer : p.answer.data;
      }
    }
    return this.#read(key, null, options, metadataKey.test(key));
  }

  /**
   * Reads key and keeps the answer for the next get() of it, once, for a
   * few seconds: storeFromUrl looks at a directory's .zmetadata to tell a
   * Parquet reference set, and the engine, opening the hierarchy right
   * after, takes that answer instead of asking the server again.
   * @internal
   */
  async [primeRead](key, signal) {
    const answer = await this.#read(key, null, { signal, versioned: true }, true);
    (this.#primed ??= new Map()).set(key, { answer, until: Date.now() + primedMs });
    return answer.data;
  }

  async getRange(key, range, options = {}) {
    const versioned = this.#versioned(options);
    if (range.suffixLength !== undefined) {
      const n = Number(range.suffixLength);
      if (!(n > 0)) throw new RangeError(`bad suffixLength ${range.suffixLength}`);
      if (!this.suffixRanges) {
        // (a suffix Range is not CORS-safelisted: the size, then a plain range)
        if (this.#access.pending) await this.#ready();
        const head = await this.#reader.size(this.resolve(key), options?.signal, this.#access.readExtra(key));
        if (head?.absent) return versioned ? { data: undefined, generation: null } : undefined;
        if (head) {
          if (head.size === 0) return this.#read(key, null, options, false);
          const offset = Math.max(0, head.size - n);
          return this.#read(key, { offset, length: head.size - offset }, options, false);
        }
        // A HEAD refused (an object store's 403 for a missing key carries
        // no error document there): its first byte, whose answer is read
        // by the whole policy, says absent or why not.
        const first = await this.#read(key, { offset: 0, length: 1 }, options, false);
        if (first === undefined || (versioned && first.data === undefined)) return first;
      }
      return this.#read(key, { suffix: n }, options, false);
    }
    const offset = Number(range.offset ?? 0);
    const length = range.length === undefined ? undefined : Number(range.length);
    if (!(offset >= 0) || (length !== undefined && !(length >= 0))) {
      throw new RangeError(`bad range ${JSON.stringify(range)}`);
    }
    if (length === 0) {
      const whole = await this.#read(key, null, options, false);
      if (versioned) return whole.data === undefined ? whole : { ...whole, data: new Uint8Array(0) };
      return whole === undefined ? undefined : new Uint8Array(0);
    }
    return this.#read(key, { offset, length }, options, false);
  }

  /**
   * A presigned URL of key (AWS Signature Version 4 in the query), which
   * anyone can GET without credentials until it expires (`expires`
   * seconds, default 900, at most 7 days).
   * @param {string} key
   * @param {{expires?: number}} [options]
   */
  async presign(key, options = {}) {
    await this.#ready();
    const url = String(this.resolve(key));
    const sign = this.#access.signer({ query: true, expires: options.expires ?? 900 });
    if (!sign) throw new ZarrError("ACCESS_DENIED", `${url}: presigning needs credentials`, { where: key });
    return sign("GET", url, []).url;
  }

  /**
   * The names directly under prefix ("/" or "/a/"), sub-prefixes ending in
   * "/": an S3 ListObjectsV2 listing (continuation tokens followed, bounded;
   * see `listable`).
   */
  async list(prefix = "/") {
    checkKey(prefix);
    if (!prefix.endsWith("/")) prefix += "/";
    return this.#access.list(this.#reader, prefix);
  }

  /**
   * PUT (value) or DELETE of key, carrying the engine's condition
   * (`ifNoneMatch: "*"`: create only; `ifMatch`: the ETag read) where the
   * server honours conditions. Answers as MemoryStore's set and delete do:
   * {generation} (versioned), {changed: true} when the condition failed.
   */
  async #write(method, key, value, options) {
    if (method === "PUT" && !(value instanceof Uint8Array)) throw new TypeError("FetchStore values are Uint8Array");
    this.#primed?.delete(key); // (a kept answer is older than this write)
    if (this.#access.pending) await this.#ready();
    let cond = null;
    if (options?.ifNoneMatch === "*") cond = ["If-None-Match", "*"];
    else if (typeof options?.ifMatch === "string" && !options.ifMatch.startsWith("W/") && !options.ifMatch.startsWith("last-modified:")) {
      cond = ["If-Match", options.ifMatch];
    }
    if (method === "DELETE" && cond?.[0] === "If-None-Match") return options?.versioned ? { generation: null } : undefined; // (nothing there)
    if (cond && !(await this.#access.conditionsHonoured((m, k, b, c) => this.#send(m, k, b, c, options?.signal)))) cond = null;
    const r = await this.#send(method, key, value, cond, options?.signal);
    if (r.changed) return { changed: true };
    if (method === "PUT") this.#access.noteRead(key); // (metadata written is metadata there: see the 403 rule)
    return options?.versioned ? { generation: r.generation } : undefined;
  }

  /**
   * One write request, retried as reads are (network failures, 5xx, the
   * server's Retry-After): {generation} (a PUT's ETag; null after a
   * DELETE), {changed: true} for 412/409, or 404 to an If-Match.
   */
  async #send(method, key, body, cond, signal) {
    const r = this.#reader;
    const url = this.resolve(key);
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted?.();
      await r.limiter.acquire(signal);
      let failure;
      try {
        const headers = new Headers(r.headers);
        if (cond) headers.set(cond[0], cond[1]);
        let u = url;
        const sign = this.#access.signer();
        if (sign) {
          const out = sign(method, String(url), [...headers], body ?? undefined);
          for (const [k, v] of out.headers) headers.set(k, v);
          u = out.url;
        }
        r.requests++;
        let res;
        // An attempt ends after the total timeout (a body is sent before
        // any answer comes, so the attempt timeout alone would cut large ones).
        const ac = new AbortController();
        const onAbort = () => ac.abort(signal.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        const timer = r.totalTimeout > 0 ? setTimeout(() => ac.abort(new Error("timeout")), r.totalTimeout) : null;
        try {
          res = await r.fetchImpl(new Request(u, { ...r.requestInit, method, headers, body: body ?? undefined, signal: ac.signal, cache: "no-store" }));
        } catch (e) {
          if (signal?.aborted) throw signal.reason ?? e;
          if (e instanceof TypeError || ac.signal.aborted) throw new Retryable(`${method} ${url} failed: ${ac.signal.aborted ? `no answer in ${r.totalTimeout} ms` : e.message}`);
          throw e;
        } finally {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        }
        const status = res.status;
        if (status >= 200 && status < 300) {
          res.body?.cancel().catch(() => {});
          return { generation: method === "PUT" ? res.headers.get("ETag") : null };
        }
        if (status === 412 || status === 409 || (status === 404 && cond?.[0] === "If-Match")) {
          res.body?.cancel().catch(() => {});
          return { changed: true };
        }
        if (retryStatus.has(status)) {
          res.body?.cancel().catch(() => {});
          throw Object.assign(new Retryable(`${method} ${url}: HTTP ${status}`, retryAfter(res.headers)), { status });
        }
        const errBody = new Uint8Array(await res.arrayBuffer().catch(() => new ArrayBuffer(0))).subarray(0, maxErrorBody);
        let v = await this.#access.answer(method, url, key, status, res.headers, errBody, false);
        if (v === "absent" || v === "denied") {
          if (method === "DELETE") return { generation: null }; // (already gone)
          v = { status, code: "STORE", message: `${method} ${url}: HTTP ${status}` };
        }
        if (v.expired && !refreshed) {
          refreshed = true;
          await this.#access.credentials(true);
          attempt--;
          continue;
        }
        if (!v.retry) throw failureError(v, url);
        failure = Object.assign(new Retryable(v.message), { status });
      } catch (e) {
        if (signal?.aborted) throw signal.reason ?? e;
        if (!(e instanceof Retryable)) throw e;
        failure = e;
      } finally {
        r.limiter.release();
      }
      if (attempt >= r.retries) throw failureError({ status: failure.status ?? 0, code: "STORE", message: `${failure.message} (after ${attempt + 1} attempts)` }, url);
      const wait = failure.after >= 0 ? failure.after : Math.min(r.retryDelay * 2 ** attempt * (0.5 + Math.random()), r.maxRetryDelay);
      await sleep(wait, signal);
    }
  }
}

/** Keys of metadata documents, which an SPA fallback's HTML must not stand in for. */
const metadataKey = /(^|\/)(\.zarray|\.zgroup|\.zattrs|\.zmetadata|zarr\.json)$/;

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
      const msg = `${url}: Content-Range ${cr} but ${body.length} bytes received`;
      throw body.length < last - start + 1 ? new Retryable(msg) : new RangeMismatchError(msg);
    }
    const wantStart =
      range.suffix !== undefined ? (total === undefined ? start : Math.max(0, total - range.suffix)) : range.offset;
    if (start !== wantStart) {
      const e = new RangeMismatchError(`${url}: asked for a range starting at ${wantStart}, got Content-Range ${cr}`);
      // The size is known: a suffix can be asked for again as a plain range.
      if (range.suffix !== undefined && total !== undefined) e.total = total;
      throw e;
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
    const msg = `${url}: ${want} bytes asked for, ${body.length} received`;
    // fewer: cut short on the way (Content-Range hidden by CORS), worth another attempt
    throw body.length < want && !cr ? new Retryable(msg) : new RangeMismatchError(msg);
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
    if (!ok) {
      const msg = `${url}: ${range.suffix ?? range.length} bytes asked for, ${n} received`;
      throw n < (range.suffix ?? range.length) ? new Retryable(msg) : new RangeMismatchError(msg);
    }
    return body;
  }
  const m = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(cr.trim());
  if (!m) throw new RangeMismatchError(`${url}: unreadable Content-Range ${JSON.stringify(cr)}`);
  const first = Number(m[1]);
  const last = Number(m[2]);
  const total = m[3] === "*" ? -1 : Number(m[3]);
  if (last - first + 1 !== n) {
    const msg = `${url}: Content-Range ${cr} but ${n} bytes received`;
    throw n < last - first + 1 ? new Retryable(msg) : new RangeMismatchError(msg);
  }
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
