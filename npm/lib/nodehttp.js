// FetchStore's requests in Node through node:http and node:https instead of
// fetch: Node's fetch (undici behind web streams) costs the calling thread
// about 0.6 ms of CPU per request, node:http about 0.25 (256 chunk
// requests: 158 against 63 ms in one measurement), and that CPU is taken
// from the decoding on the same thread. Used only where it changes nothing
// a caller can see (HTTPReader decides, see nodeTransport in stores.js):
// the same requests (headers, Range, conditions; fetch's Accept, User-Agent
// and Accept-Encoding), redirects followed as fetch follows them, bodies
// decoded as fetch decodes them (gzip, deflate, br), network failures as
// TypeErrors (which HTTPReader retries, as it retries fetch's). The caller
// keeps its timeouts, caps and checks.
//
// The modules load on first use (a dynamic import, so bundlers for the
// browser leave them alone); `loadNodeHTTP()` must have resolved before
// `nodeGet` is called.

let loading = null;
let mods = null;

/** Loads node:http, node:https and node:zlib once; resolves when nodeGet can run. */
export function loadNodeHTTP() {
  if (!loading) {
    const names = ["node:http", "node:https", "node:zlib"];
    loading = Promise.all(names.map((n) => import(/* @vite-ignore */ n))).then(([http, https, zlib]) => {
      // The global agents (keep-alive from Node 19 on, and whatever a
      // program installed there, e.g. a proxy agent); Node 18's do not keep
      // connections, so ours do there.
      const agent = (mod) => (mod.globalAgent?.keepAlive ? undefined : new mod.Agent({ keepAlive: true, timeout: 5000 }));
      mods = { http, https, zlib, agents: { "http:": agent(http), "https:": agent(https) } };
      return mods;
    });
  }
  return loading;
}

/** Whether the modules are loaded (nodeGet may run). */
export function nodeHTTPLoaded() {
  return mods !== null;
}

const redirectStatus = new Set([301, 302, 303, 307, 308]);
/** Request headers fetch does not carry to another origin on a redirect. */
const originBound = ["authorization", "cookie", "proxy-authorization"];

function networkError(e) {
  return new TypeError(e?.message ?? String(e), { cause: e });
}

/**
 * One GET. headers: a plain object, names in lower case (the caller's,
 * Range and conditions). Returns {promise, abort(reason)}: the promise
 * resolves with a NodeAnswer once the final answer's headers are in (after
 * at most 20 redirects) and rejects with a TypeError on a network failure,
 * or with the reason given to abort.
 */
export function nodeGet(url, headers) {
  const { http, https, agents } = mods;
  let req = null;
  let answer = null;
  let reason = null;
  let fail = null;
  const handle = {
    promise: null,
    /** Ends the request (and a body being read) with reason. */
    abort(why) {
      if (reason !== null) return;
      reason = why;
      req?.destroy();
      answer?.abort(why);
      fail?.(why);
    },
  };
  const h = { accept: "*/*", "user-agent": "node", ...headers };
  // As fetch: a ranged request asks for the bytes as stored (a range of a
  // compressed encoding would not be the file's range), others accept the
  // encodings fetch decodes.
  if (h["accept-encoding"] === undefined) h["accept-encoding"] = h.range === undefined ? "gzip, deflate, br" : "identity";
  handle.promise = new Promise((resolve, reject) => {
    fail = reject;
    let redirects = 0;
    const send = (u, hdrs, resent) => {
      const mod = u.protocol === "https:" ? https : http;
      // The headers as a list (as rawHeaders): Node then writes them as
      // they are, without checking each again (Headers checked them) or
      // adding Host, which comes first here.
      const list = ["Host", u.host];
      for (const k in hdrs) if (k !== "host") list.push(k, hdrs[k]);
      const host = u.hostname;
      const options = {
        protocol: u.protocol,
        hostname: host.startsWith("[") ? host.slice(1, -1) : host,
        port: u.port,
        path: u.pathname + u.search,
        method: "GET",
        headers: list,
      };
      const agent = agents[u.protocol];
      if (agent) options.agent = agent;
      let r;
      try {
        r = req = mod.request(options);
      } catch (e) {
        reject(networkError(e));
        return;
      }
      r.on("error", (e) => {
        if (reason !== null || answer !== null) return;
        // A kept-alive connection the server closed as it was reused:
        // sent again at once on another (what Node's documentation advises).
        if (!resent && r.reusedSocket && e?.code === "ECONNRESET") {
          send(u, hdrs, true);
          return;
        }
        reject(networkError(e));
      });
      r.on("response", (res) => {
        if (reason !== null) {
          res.destroy();
          return;
        }
        const status = res.statusCode;
        const location = res.headers.location;
        if (redirectStatus.has(status) && location !== undefined) {
          res.resume(); // (read to its end: the connection stays usable)
          if (++redirects > 20) {
            reject(new TypeError("redirect count exceeded"));
            return;
          }
          let next;
          try {
            next = new URL(location, u);
          } catch {
            reject(new TypeError(`redirect to an invalid URL ${JSON.stringify(location)}`));
            return;
          }
          if (next.protocol !== "http:" && next.protocol !== "https:") {
            reject(new TypeError(`redirect to a URL that is not HTTP(S): ${next.href}`));
            return;
          }
          let nh = hdrs;
          if (next.origin !== u.origin) {
            nh = { ...hdrs };
            for (const k of originBound) delete nh[k];
          }
          send(next, nh, false);
          return;
        }
        answer = new NodeAnswer(res, r, u);
        fail = null;
        resolve(answer);
      });
      r.end();
    };
    send(url, h, false);
  });
  return handle;
}

/** The headers of an answer, read as a Headers object is (get, case-insensitive; null when absent). */
class NodeHeaders {
  constructor(raw) {
    this.raw = raw;
  }
  get(name) {
    const v = this.raw[name.toLowerCase()];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(", ") : String(v);
  }
}

/**
 * An answer: status, headers, body (its cancel(), as a Response's body),
 * read(cap, progress, over).
 */
class NodeAnswer {
  #res;
  #req;
  #reading = null; // the reject of a body being read
  #consumed = false;
  constructor(res, req, url) {
    this.#res = res;
    this.#req = req;
    this.status = res.statusCode;
    this.headers = new NodeHeaders(res.headers);
    this.url = url;
    this.body = { cancel: () => this.#cancel() };
  }

  /** Drops the body: a short one is read to its end (the connection is kept), past 64 KiB the connection is closed. */
  #cancel() {
    if (this.#consumed) return Promise.resolve();
    this.#consumed = true;
    const res = this.#res;
    if (Number(res.headers["content-length"] ?? 0) > 65536) {
      this.#req.destroy();
      return Promise.resolve();
    }
    let n = 0;
    res.on("data", (piece) => {
      n += piece.length;
      if (n > 65536) this.#req.destroy();
    });
    res.on("error", () => {});
    res.resume();
    return Promise.resolve();
  }

  abort(why) {
    this.#consumed = true;
    this.#req.destroy();
    this.#reading?.(why);
  }

  /**
   * Reads the body (decoded as fetch decodes Content-Encoding), at most cap
   * bytes: past it, the connection is closed and over() is thrown.
   * progress() is called as pieces arrive. A body cut short is a TypeError.
   * @returns {Promise<Uint8Array>}
   */
  read(cap, progress, over) {
    this.#consumed = true;
    const res = this.#res;
    const enc = String(res.headers["content-encoding"] ?? "").trim().toLowerCase();
    const { zlib } = mods;
    let stream = res;
    if (enc === "gzip" || enc === "x-gzip") stream = res.pipe(zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    else if (enc === "deflate") stream = res.pipe(zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    else if (enc === "br") stream = res.pipe(zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }));
    const announced = stream === res ? Number(res.headers["content-length"] ?? NaN) : NaN;
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (err, value) => {
        if (done) return;
        done = true;
        this.#reading = null;
        if (err) reject(err);
        else resolve(value);
      };
      this.#reading = (why) => {
        if (stream !== res) stream.destroy();
        finish(why);
      };
      // A body of announced length (up to 64 MiB: a server's word is not
      // worth more memory up front) goes straight into its array; others
      // in pieces.
      let out = announced >= 0 && announced <= cap && announced <= 2 ** 26 ? new Uint8Array(announced) : null;
      const parts = out ? null : [];
      let n = 0;
      stream.on("data", (piece) => {
        if (done) return;
        const m = n + piece.length;
        if (m > cap || (out && m > out.length)) {
          done = true;
          this.#reading = null;
          this.#req.destroy();
          if (stream !== res) stream.destroy();
          reject(over());
          return;
        }
        if (out) out.set(piece, n);
        else parts.push(piece);
        n = m;
        progress();
      });
      const ended = () => {
        if (!res.complete || (out && n !== out.length)) {
          finish(new TypeError(`the body ended after ${n} bytes${out ? ` of ${out.length}` : ""} (terminated)`));
          return;
        }
        if (!out) {
          out = new Uint8Array(n);
          let off = 0;
          for (const p of parts) {
            out.set(p, off);
            off += p.length;
          }
        }
        finish(null, out);
      };
      stream.on("end", ended);
      stream.on("error", (e) => finish(networkError(e)));
      stream.on("close", () => {
        if (!done) {
          if (stream.readableEnded) ended();
          else finish(new TypeError(`the connection closed after ${n} bytes of the body (terminated)`));
        }
      });
      if (stream !== res) {
        res.on("error", (e) => finish(networkError(e)));
        res.on("close", () => {
          if (!done && !res.complete) finish(new TypeError(`the connection closed after ${n} bytes of the body (terminated)`));
        });
      }
    });
  }
}
