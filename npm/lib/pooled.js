// Pooled reads: with a pool of decode workers (useWorkers), a read of many
// compressed chunks is decoded by the workers, each writing its chunks
// straight into the result, while this thread only fetches stored bytes,
// hands them over and counts what came back: one message each way per
// chunk. The engine plans the read (jsbridge/pooled.go): which chunks, their
// keys, where each lands; it declines what it must read itself (a chunk
// cache, a spec, a part of a shard, a store of the engine, a data type
// converted on its way out), and then the read goes through the engine on
// this thread as without a pool.
//
// The result lives in a SharedArrayBuffer when there is one (Node; a
// cross-origin isolated page): workers write into it. Otherwise (or with
// useWorkers(n, {shared: false})) each worker transfers its decoded chunk
// back and this thread copies the region into an ordinary ArrayBuffer.
//
// What a worker cannot decode (corrupt bytes, a worker that died) is decoded
// here by the engine (decodeChunk), so a CODEC error is the engine's, as in
// a read without the pool; a store that fails, or an abort, hands the read
// to the engine, which reports it as it would have.
import { currentPool } from "./workers.js";
import { bridgeIfRunning } from "./runtime.js";
import { ReadPlan } from "./plan.js";

/**
 * Compressors whose chunks are worth a worker: decoding takes longer than
 * handing the chunk over and back (measured in tests/bench/bench.mjs).
 */
const worthAWorker = new Set(["zstd", "zlib", "gzip", "bz2", "lzma", "blosc:zstd", "blosc:zlib", "blosc:lz4", "blosc:lz4hc", "blosc:blosclz", "blosc:snappy"]);


/**
 * A read that decodes less stays on this thread: what a pooled read costs
 * besides decoding (a result the workers share, a message each way per
 * chunk, waking the workers) ate the gain of a 1000×1000 window of 256×256
 * float32 chunks (6.5 MB decoded) on a loaded machine (tests/bench).
 */
const minReadBytes = 16 << 20;

let nextRead = 1;

/**
 * Reads through the pool when it is worth it: the result, or null when the
 * read is the engine's (no pool, declined, not worth it).
 * @param {import("./core.js").ZarrArray} arr
 */
export async function pooledGet(arr, sel, signal, concurrency) {
  const pool = currentPool();
  if (!pool || !pool.workers.some((w) => w.alive) || signal?.aborted) return null;
  // (An error, or an engine that stopped: the engine's read reports it.)
  const plan = bridgeIfRunning()?.planRead(arr._info.id, sel, pool.minBytes === 0 ? undefined : minReadBytes);
  if (!plan || plan.error || plan.__zarrWasmError) return null;
  if (plan.reason) {
    pool.reads.engine++;
    return null;
  }
  const rp = new ReadPlan(plan);
  const keys = rp.keys;
  let decoded = 0; // bytes of the chunks decoded
  for (let i = 0; i < keys.length; i++) decoded += rp.chunkBytes(i);
  // Worth it: compressed chunks that decode to minBytes or more on average,
  // minReadBytes in all (useWorkers(n, {minBytes: 0}): every read the
  // engine plans).
  const worth =
    pool.minBytes === 0 ||
    (keys.length >= 2 && decoded >= minReadBytes && decoded >= pool.minBytes * keys.length && plan.compressors.some((c) => worthAWorker.has(c)));
  if (!worth) {
    pool.reads.engine++;
    return null;
  }
  const shared = pool.shared;
  const buf = shared ? new SharedArrayBuffer(rp.nbytes) : new ArrayBuffer(rp.nbytes);
  const out = new Uint8Array(buf);
  rp.fill(out);
  const read = nextRead++;
  pool.broadcast({
    type: "read",
    read,
    out: shared ? buf : null,
    arena: shared ? (pool.arena ??= new Arena(arenaBytes)).buf : null,
    fullShape: rp.full,
    itemSize: rp.itemSize,
    decoder: plan.decoder,
    path: plan.path,
    metadataKey: plan.metadataKey,
    metadata: plan.metadata,
  });
  const store = plan.store;
  const opts = signal ? { signal } : undefined;
  // Chunks fetched or in the workers at once: the read's (or the store's)
  // concurrency, else enough to keep each worker 16 chunks ahead (so a
  // calling thread the machine's load keeps waiting does not leave the
  // workers idle); and no new fetch beyond 64 MiB of stored bytes in flight.
  const limit = Number(concurrency) > 0 ? Number(concurrency) : Math.max(16, 16 * pool.workers.length);
  const maxBytes = 64 << 20;
  let inFlight = 0;

  /** One chunk: fetched here, decoded by a worker (or here, by the engine, when no worker can). */
  const chunk = async (i) => {
    let bytes;
    try {
      bytes = await store.get(keys[i], opts);
    } catch {
      throw new Fallback();
    }
    if (bytes === undefined || bytes === null) return; // the fill value stands (already there)
    if (!(bytes instanceof Uint8Array)) throw new Fallback();
    inFlight += bytes.length;
    try {
      await decode(i, bytes);
    } finally {
      inFlight -= bytes.length;
    }
  };
  const decode = async (i, bytes) => {
    const geometry = rp.geometry(i);
    const coords = rp.coords(i);
    // A copy goes to the worker (the store's own bytes stay where they
    // are): into the arena the workers share, else a message of its own.
    const block = shared ? pool.arena.put(bytes) : null;
    let answer;
    if (block) {
      try {
        answer = await pool.queue({ read, at: block.at, length: bytes.length, geometry, coords }, []);
      } finally {
        pool.arena.free(block); // (the worker is done with it: it answered)
      }
    } else {
      const copy = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? null : bytes.slice();
      answer = await pool.queue({ read, bytes: copy ?? bytes, geometry, coords }, copy ? [copy.buffer] : []);
    }
    if (answer?.ok) {
      if (!shared) rp.place(out, i, answer.data);
      return;
    }
    // The engine decodes it here: its result, or its error.
    await rp.placeByEngine(arr, out, i, bytes);
  };

  try {
    await new Promise((resolve, reject) => {
      let next = 0;
      let running = 0;
      let failed = false;
      const onAbort = () => fail(new Fallback());
      signal?.addEventListener("abort", onAbort, { once: true });
      const fail = (e) => {
        if (failed) return;
        failed = true;
        signal?.removeEventListener("abort", onAbort);
        reject(e);
      };
      const pump = () => {
        if (failed) return;
        while (running < limit && next < keys.length && (inFlight < maxBytes || running === 0)) {
          running++;
          chunk(next++).then(() => {
            running--;
            pump();
          }, fail);
        }
        if (running === 0 && next >= keys.length) {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }
      };
      pump();
    });
  } catch (e) {
    if (!(e instanceof Fallback)) throw e;
    // A store that failed, or an abort: the engine reads (and reports) it.
    pool.reads.engine++;
    return null;
  } finally {
    pool.flush(); // (chunks still queued go before the end of their read)
    pool.broadcast({ type: "end", read });
  }
  pool.reads[shared ? "shared" : "transfer"]++;
  return rp.result(buf);
}

/** The read goes to the engine instead. */
class Fallback extends Error {}

/**
 * Shared memory of a pool (with shared results) the calling thread copies
 * stored chunks into for the workers: one copy, where a message of its own
 * costs one to send and one to receive (and the worker's garbage). Room is
 * taken in order round a ring and given back as workers answer; a chunk
 * that finds no room goes in its own message.
 */
const arenaBytes = 16 << 20;

export class Arena {
  constructor(size) {
    this.buf = new SharedArrayBuffer(size);
    this.bytes = new Uint8Array(this.buf);
    this.size = size;
    this.head = 0; // where the newest block ends
    /** Blocks in use, oldest first: {at, end, freed}. */
    this.live = [];
  }

  /** Copies src in: its block, or null when there is no room. */
  put(src) {
    const n = Math.max(8, (src.length + 7) & ~7);
    let at = -1;
    if (this.live.length === 0) {
      at = 0;
    } else {
      const first = this.live[0].at;
      if (this.head > first) {
        // in use: [first, head); free: [head, size) and [0, first)
        if (this.size - this.head >= n) at = this.head;
        else if (first >= n) at = 0;
      } else if (first - this.head >= n) {
        // wrapped: in use [first, size) and [0, head); free: [head, first)
        at = this.head;
      }
    }
    if (at < 0 || at + n > this.size) return null;
    this.bytes.set(src, at);
    const block = { at, end: at + n, freed: false };
    this.live.push(block);
    this.head = block.end;
    return block;
  }

  free(block) {
    block.freed = true;
    while (this.live.length > 0 && this.live[0].freed) this.live.shift();
  }
}
