// Reads the calling thread runs itself, with no call into the engine per
// chunk: when every chunk of a read is placed straight from its stored
// value (raw elements, or elements under one zstd, zlib or gzip
// compressor the package's libzstd/zlib decode, or under Blosc of lz4,
// lz4hc, zstd or zlib streams with no shuffle or byte shuffle, which the
// decoders module's Blosc walker decodes), the engine plans the read
// once (planRead(…, "direct"), the plan the pooled reads use: which
// chunks, their keys, where each region lands) and this module asks the
// JS store for each chunk, decodes it and copies its region into the
// result (lib/scatter.js), leaving the fill value where the store has no
// chunk. The engine plans only where that returns what its own read would
// (zarr's PlanExternalRead: no chunk cache, no spec, not sharded, no
// conversion of the data type on its way to JS; each chunk read once,
// whole, without conditions).
//
// What this path does not do, or does differently:
//   - a chunk the host decoder declines (corrupt, or a size other than the
//     chunk's; for Blosc also a chunk another writer wrote with blosclz,
//     snappy or bitshuffle) is decoded by the engine (decodeChunk), so
//     errors are the engine's (CODEC, naming the key);
//   - a store that throws or rejects, an answer that is not bytes, or an
//     abort hands the whole read to the engine, which asks the store again
//     and reports it (STORE, ABORTED) as it always did: the result is then
//     the engine's alone, so no read mixes chunks of two fetches;
//   - concurrent reads on this path share a chunk's fetch while the
//     store's promise is pending (as the engine's reads share theirs), but
//     not with reads that go through the engine;
//   - storeStats counts these requests (directStats, added in cache.js).
import { bridgeIfRunning, engineOfHandle } from "./runtime.js";
import { ReadPlan, thenable } from "./plan.js";
import { decodeTo } from "./codecs.js";
import { readShards } from "./shards.js";
import { shardHelper } from "./pooled.js";

/** The engine's default number of chunks one read fetches at once (zarr.DefaultConcurrency). */
const defaultConcurrency = 16;

/** Fetches of a chunk in flight on this path, per store object: key → promise of the store's answer. */
const pending = new WeakMap();

/** Requests this path made, per store object: {get, bytes}. */
const counts = new WeakMap();

/** The requests this path made of store: {get, bytes}, or null. */
export function directStats(store) {
  return (store && typeof store === "object") || typeof store === "function" ? (counts.get(store) ?? null) : null;
}

/**
 * The switch (tests compare these reads with the engine's: enabled false
 * sends every read to the engine), and the chunks this path decoded, by
 * decoder (tests check that reads really come this way).
 */
export const direct = { enabled: true, decoded: { zstd: 0, zlib: 0, gzip: 0, blosc: 0 } };

/** Arrays every read of which the engine declines (their handle: a node moved to the other build is asked again). */
const declined = new WeakMap();

/** The read goes to the engine. */
const FALLBACK = Symbol("fallback");

/**
 * The bytes of a store's answer (as the engine reads them: a Uint8Array,
 * another view, an ArrayBuffer, or {data, generation} from a versioned
 * store); null when absent; FALLBACK for anything else.
 */
function answerBytes(a) {
  if (a === undefined || a === null) return null;
  if (a instanceof Uint8Array) return a;
  if (typeof a !== "object") return FALLBACK;
  if (a instanceof ArrayBuffer) return new Uint8Array(a);
  if (ArrayBuffer.isView(a)) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  if (a.changed || a.notModified) return FALLBACK;
  if (a.data === undefined || a.data === null) return a.generation === undefined ? FALLBACK : null;
  const d = answerBytes(a.data);
  return d instanceof Uint8Array ? d : FALLBACK;
}

/**
 * Reads sel of arr on this thread when the engine plans it so: the result
 * ({data, shape, stride}, or a promise of it when the store answers with
 * promises), or null (the engine reads it: declined, a store that failed,
 * an abort).
 * @param {import("./core.js").ZarrArray} arr
 */
export function directGet(arr, sel, signal, concurrency, workers = false) {
  const id = arr._info.id;
  if (!direct.enabled || signal?.aborted || declined.get(arr) === id) return null;
  // The engine that plans the read: when it stops before the read ends,
  // the read ends with its ENGINE_EXITED, as the engine's own reads do.
  const eng = engineOfHandle(id);
  if (!eng) return null;
  const plan = bridgeIfRunning()?.planRead(id, sel, undefined, "direct");
  if (!plan || plan.error || plan.__zarrWasmError) return null;
  if (plan.reason !== undefined) {
    if (plan.fixed) declined.set(arr, id);
    return null;
  }
  const rp = new ReadPlan(plan);
  const keys = rp.keys;
  const n = keys.length;
  const decoder = plan.direct === "raw" ? "" : plan.direct;
  const store = plan.store;
  // (a large sharded read shares its inner chunks with a decode worker:
  // its result is then memory the worker shares)
  const helper = workers && plan.shard && typeof store.getRange === "function" ? shardHelper(rp, decoder) : null;
  const buf = helper ? helper.out : new ArrayBuffer(rp.nbytes);
  const out = new Uint8Array(buf);
  rp.fill(out);
  const opts = signal ? { signal } : {};
  let stats = counts.get(store);
  if (!stats) counts.set(store, (stats = { get: 0, getRange: 0, bytes: 0 }));
  let shared = pending.get(store);
  const limit = Number(concurrency) > 0 ? Math.floor(Number(concurrency)) : defaultConcurrency;
  /** Chunks the host decoder declined: [index, bytes], for the engine. */
  let refused = null;

  /** The store's answer for chunk i (or a promise of it), asking the store unless a fetch of it is pending. */
  const ask = (key) => {
    const p = shared?.get(key);
    if (p) return p;
    stats.get++;
    const a = store.get(key, opts);
    if (a instanceof Uint8Array) {
      stats.bytes += a.length;
      return a;
    }
    if (a === null || typeof a !== "object" || typeof a.then !== "function") {
      count(a);
      return a;
    }
    const q = Promise.resolve(a);
    if (!shared) pending.set(store, (shared = new Map()));
    shared.set(key, q);
    const done = () => {
      if (shared.get(key) === q) shared.delete(key);
    };
    q.then((v) => (count(v), done()), done);
    return q;
  };
  const count = (a) => {
    const b = answerBytes(a);
    if (b && b !== FALLBACK) stats.bytes += b.length;
  };
  /** Places chunk i's answer; false when the read must go to the engine. */
  const place = (i, answer) => {
    const bytes = answerBytes(answer);
    if (bytes === null) return true; // the fill value stands
    if (bytes === FALLBACK) return false;
    const size = rp.chunkBytes(i);
    if (decoder === "") {
      if (bytes.length === size) {
        rp.place(out, i, bytes);
        return true;
      }
    } else if (decodeTo(decoder, bytes, size, true, (chunk) => rp.place(out, i, chunk)) === size) {
      direct.decoded[decoder]++;
      return true;
    }
    (refused ??= []).push([i, bytes]);
    return true;
  };
  const finish = () => {
    const res = rp.result(buf);
    if (eng.dead) throw eng.dead;
    return refused ? engineDecodes(arr, refused, rp, out).then(() => res) : res;
  };

  // Every chunk the store answers at once is placed here and now; answers
  // that are promises wait, at most `limit` of them at a time.
  let next = 0;
  let running = 0;
  /** Once an answer is a promise: ends the read with a result, FALLBACK, or (error true) an error. */
  let settle = null;
  let over = false;
  const stop = (v, error = false) => {
    if (over) return;
    over = true;
    settle(v, error);
  };
  const pump = () => {
    while (next < n && running < limit) {
      const i = next++;
      let a;
      try {
        a = ask(keys[i]);
      } catch {
        return FALLBACK;
      }
      if (thenable(a)) {
        running++;
        a.then(
          (v) => {
            if (over) return;
            running--;
            let r;
            try {
              r = place(i, v) ? pump() : FALLBACK;
            } catch (e) {
              return stop(e, true);
            }
            if (r !== undefined) stop(r);
          },
          () => stop(FALLBACK),
        );
      } else if (!place(i, a)) {
        return FALLBACK;
      }
    }
    if (running === 0 && next >= n) return finish();
    return undefined;
  };
  // A sharded array's shards: lib/shards.js reads and places them.
  const shards = () => {
    if (typeof store.getRange !== "function") {
      declined.set(arr, id); // (every read of a store without getRange)
      return FALLBACK;
    }
    const res = readShards({ id, rp, out, store, opts, stats, limit, helper });
    if (res === false) return FALLBACK;
    if (res === true) return finish();
    res.then((ok) => {
      if (!ok) return stop(FALLBACK);
      let v;
      try {
        v = finish();
      } catch (e) {
        return stop(e, true);
      }
      stop(v);
    });
    return undefined;
  };
  const r = plan.shard ? shards() : pump();
  if (r === FALLBACK) return null;
  if (r !== undefined) return r;
  // Answers are pending: a promise, settled by the last answer, the first
  // failure, an abort (the engine then reports it) or the engine stopping.
  return new Promise((resolve, reject) => {
    const onAbort = () => stop(FALLBACK);
    const died = (e) => stop(e, true);
    settle = (v, error) => {
      eng.inFlight.delete(died);
      signal?.removeEventListener("abort", onAbort);
      if (error) reject(v);
      else if (v === FALLBACK) resolve(null);
      else Promise.resolve(v).then(resolve, reject);
    };
    eng.inFlight.add(died);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Decodes the chunks the host decoder declined with the engine (its result, or its error) and places them. */
async function engineDecodes(arr, refused, rp, out) {
  for (const [i, bytes] of refused) await rp.placeByEngine(arr, out, i, bytes);
}
