// Pooled reads: with a pool of decode workers (useWorkers), a read of many
// compressed chunks is decoded by the workers, each writing its chunks
// straight into the result, and by this thread: it fetches the stored
// bytes, keeps each worker a few chunks ahead (in batches: one message per
// worker for the chunks that arrive together) and decodes the others
// itself with the decoders module, as a read without the pool does. It
// uses one worker fewer than the machine has cores (on 2 cores: one worker
// and this thread). The engine plans the read (jsbridge/pooled.go): which chunks, their
// keys, where each lands; it declines what it must read itself (a chunk
// cache, a spec, a part of a shard, a store of the engine, a data type
// converted on its way out), and then the read goes through the engine on
// this thread as without a pool. (A sharded read it declines because it
// needs part of each shard runs on this thread, lib/shards.js, which can
// still hand most of its inner chunks to a worker: shardHelper below.)
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
import { ReadPlan, thenable } from "./plan.js";
import { codecsExports, decodeTo, loadCodecs } from "./codecs.js";

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
 * An upper bound of the bytes a read decodes (the chunks it touches, whole),
 * from the array's shape, regular chunk shape and the selection as
 * core.js normalises it; Infinity when it cannot tell (a string selection,
 * "...", a negative step, an irregular grid, a data type of unknown size),
 * and then the engine decides.
 */
export function decodedAtMost(info, sel) {
  const { shape, chunks, dtype } = info;
  const size = /^(?:u?int|float|complex)(\d+)$/.exec(dtype)?.[1] / 8 || (dtype === "bool" ? 1 : 0);
  if (!size || !Array.isArray(chunks) || chunks.length !== shape.length || shape.length === 0) return Infinity;
  if (sel !== null && (!Array.isArray(sel) || sel.length > shape.length)) return Infinity;
  let bytes = size;
  for (let d = 0; d < shape.length; d++) {
    const n = shape[d], c = chunks[d], x = sel?.[d] ?? null;
    if (!(c > 0)) return Infinity;
    let touched = Math.ceil(n / c);
    if (typeof x === "number") touched = 1;
    else if (x !== null) {
      if (typeof x !== "object" || (x.step ?? 1) < 1) return Infinity;
      const step = x.step ?? 1;
      const at = (v, dflt) => (v === null || v === undefined ? dflt : v < 0 ? Math.max(v + n, 0) : Math.min(v, n));
      const start = at(x.start, 0), stop = at(x.stop, n);
      const count = stop > start ? Math.ceil((stop - start) / step) : 0;
      const span = count > 0 ? (count - 1) * step + 1 : 0;
      touched = Math.min(touched, count, Math.ceil(span / c) + 1);
    }
    bytes *= touched * c;
  }
  return bytes;
}

/**
 * Reads through the pool when it is worth it: the result, or null when the
 * read is the engine's (no pool, declined, not worth it).
 * @param {import("./core.js").ZarrArray} arr
 */
export async function pooledGet(arr, sel, signal, concurrency) {
  const pool = currentPool();
  if (!pool || !pool.workers.some((w) => w.alive) || signal?.aborted) return null;
  // A read that cannot decode minReadBytes is not planned for the pool: the
  // engine's plan only to decline it cost ~0.3 ms, 6 % of a 1000×1000 window.
  if (pool.minBytes !== 0 && decodedAtMost(arr._info, sel) < minReadBytes) {
    pool.reads.engine++;
    return null;
  }
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
  const n = keys.length;
  // The calling thread decodes too (with the decoders module, as a read
  // without the pool does): each worker is kept `depth` chunks ahead, and
  // the chunks fetched beyond that are decoded here, one a turn of the
  // event loop (so the workers' answers, and their next chunks, are not
  // held up by a run of decodes here).
  const decoder = plan.decoder;
  let here = tuning.here && !!decoder && codecsExports() !== null;
  if (tuning.here && decoder && !here) loadCodecs(); // (for the next read)
  let depth = here ? tuning.depth : Infinity;
  // The workers this read uses, least busy first: with this thread
  // decoding too, one fewer than the machine's cores (on 2 cores, one
  // worker and this thread: a third thread decoding on 2 cores only takes
  // turns with the other two).
  // (ties in turn: one read after another spreads over the pool)
  const turn = pool.turn++;
  const all = pool.workers.length;
  const alive = Array.from({ length: all }, (_, i) => pool.workers[(turn + i) % all])
    .filter((w) => w.alive)
    .sort((a, b) => a.pending.size - b.pending.size);
  const use = tuning.workers > 0 ? tuning.workers : here ? Math.max(1, pool.cores - 1) : alive.length;
  const workers = alive.slice(0, use);
  // Chunks fetched, waiting or decoding at once: the read's (or the
  // store's) concurrency, else enough to keep each worker 16 chunks ahead
  // (so a calling thread the machine's load keeps waiting does not leave
  // the workers idle) and as many more for this thread; and no new fetch
  // beyond 64 MiB of stored bytes in flight.
  const limit = Number(concurrency) > 0 ? Number(concurrency) : Math.max(16 * pool.workers.length, (workers.length + 1) * Math.min(depth, 16));
  const maxBytes = 64 << 20;

  try {
    await new Promise((resolve, reject) => {
      let next = 0; // the next chunk to fetch
      let fetching = 0; // fetches pending
      let busy = 0; // chunks with a worker or the engine
      let inFlight = 0; // stored bytes fetched and not yet decoded
      /** Fetched chunks no one decodes yet: [index, stored bytes]. */
      const ready = [];
      let readyAt = 0;
      let failed = false;
      let ticking = false;
      const onAbort = () => fail(new Fallback());
      signal?.addEventListener("abort", onAbort, { once: true });
      const fail = (e) => {
        if (failed) return;
        failed = true;
        signal?.removeEventListener("abort", onAbort);
        reject(e);
      };
      /** The store's answer for chunk i: into ready (none: the fill value stands). */
      const got = (i, a) => {
        if (a === undefined || a === null) return true;
        if (!(a instanceof Uint8Array)) return false;
        inFlight += a.length;
        ready.push([i, a]);
        return true;
      };
      const fetchMore = () => {
        while (!failed && next < n && fetching + (ready.length - readyAt) + busy < limit && (inFlight < maxBytes || fetching + busy === 0)) {
          const i = next++;
          let a;
          try {
            a = store.get(keys[i], opts);
          } catch {
            return fail(new Fallback());
          }
          if (thenable(a)) {
            fetching++;
            a.then(
              (v) => {
                if (failed) return;
                fetching--;
                if (!got(i, v)) return fail(new Fallback());
                step();
              },
              () => fail(new Fallback()),
            );
          } else if (!got(i, a)) {
            return fail(new Fallback());
          }
        }
      };
      /** Chunk i's answer came back from a worker (or the engine decodes it here). */
      const answered = async (i, bytes, answer) => {
        if (answer?.ok) {
          if (!shared) rp.place(out, i, answer.data);
        } else if (!failed) {
          // The engine decodes it here: its result, or its error.
          await rp.placeByEngine(arr, out, i, bytes);
        }
      };
      const toWorker = (w, i, bytes) => {
        busy++;
        const geometry = rp.geometry(i);
        const coords = rp.coords(i);
        // A copy goes to the worker (the store's own bytes stay where
        // they are): into the arena the workers share, else a message of
        // its own.
        const block = shared ? pool.arena.put(bytes) : null;
        let p;
        if (block) {
          p = pool.queue({ read, at: block.at, length: bytes.length, geometry, coords }, [], w);
          p.then(() => pool.arena.free(block)); // (the worker is done with it: it answered)
        } else {
          const copy = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? null : bytes.slice();
          p = pool.queue({ read, bytes: copy ?? bytes, geometry, coords }, copy ? [copy.buffer] : [], w);
        }
        p.then((answer) => answered(i, bytes, answer))
          .then(() => {
            busy--;
            inFlight -= bytes.length;
            step();
          })
          .catch(fail);
      };
      /** Decodes one waiting chunk on this thread. */
      const tick = () => {
        ticking = false;
        if (!here) return step();
        // (as many as half the chunks the least busy worker has queued:
        // it still has work when this thread next hears from it)
        let k = Infinity;
        for (const w of workers) if (w.alive) k = Math.min(k, w.pending.size);
        k = k === Infinity ? 4 : Math.max(1, Math.min(tuning.batch, k >> 1));
        for (; k > 0 && !failed && readyAt < ready.length; k--) if (!decodeHere()) return;
        step();
      };
      /** Decodes the first waiting chunk on this thread; false when the engine decodes it instead. */
      const decodeHere = () => {
        const [i, bytes] = ready[readyAt];
        ready[readyAt++] = null;
        const size = rp.chunkBytes(i);
        if (decodeTo(decoder, bytes, size, true, (chunk) => rp.place(out, i, chunk)) === size) {
          pool.here++;
          inFlight -= bytes.length;
          return true;
        }
        // Declined (chunks the module does not decode, such as Blosc of
        // blosclz, or corrupt ones): the engine decodes it here, or reports
        // why; the rest of the read goes to the workers, whose engines
        // decode what their module declines.
        pool.hereDeclined++;
        here = false;
        depth = Infinity;
        busy++;
        rp.placeByEngine(arr, out, i, bytes).then(() => {
          busy--;
          inFlight -= bytes.length;
          step();
        }, fail);
        return false;
      };
      /**
       * The least busy live worker of this read's with room for another
       * chunk, or null. Towards the end of the read a worker is given no
       * more than its share of the chunks left, so this thread does not
       * wait for a long queue of the worker's at the end.
       */
      const room = () => {
        let cap = depth;
        if (here) cap = Math.min(depth, Math.max(1, Math.ceil((n - next + ready.length - readyAt) / (workers.length + 1))));
        let w = null;
        for (const c of workers) if (c.alive && c.pending.size < cap && (!w || c.pending.size < w.pending.size)) w = c;
        return w;
      };
      const step = () => {
        if (failed) return;
        fetchMore();
        if (failed) return;
        for (let w; readyAt < ready.length && (w = room()); ) {
          const [i, bytes] = ready[readyAt];
          ready[readyAt++] = null;
          toWorker(w, i, bytes);
        }
        if (readyAt === ready.length) {
          ready.length = readyAt = 0;
        } else if (readyAt > 64) {
          ready.splice(0, readyAt);
          readyAt = 0;
        }
        if (readyAt < ready.length) {
          if (!here && !workers.some((w) => w.alive)) return fail(new Fallback());
          if (here && !ticking) {
            ticking = true;
            pool.flush(); // (the workers start on their chunks before this thread decodes)
            later(tick);
          }
          return;
        }
        if (next >= n && fetching === 0 && busy === 0) {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }
      };
      step();
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

/**
 * How pooled reads share the work (tests/bench change it to compare):
 * here, the calling thread decodes too; depth, the chunks each worker is
 * given ahead; workers, how many of the pool's workers one read uses (0:
 * all); batch, the most chunks the calling thread decodes in one turn of
 * the event loop before it hears from the workers again (2: whole reads of
 * Blosc(zstd), zstd and Blosc(lz4) 1.03-1.07x as fast through the pool as
 * with 4, tests/bench/parallel-split.mjs, three runs on a quiet machine).
 */
export const tuning = { here: true, depth: 8, workers: 0, batch: 2 };

/** Runs f in a later turn of the event loop (after the messages that arrived meanwhile). */
const later = (() => {
  if (typeof globalThis.setImmediate === "function") return (f) => globalThis.setImmediate(f);
  if (typeof MessageChannel === "function") {
    const ch = new MessageChannel();
    const queue = [];
    ch.port1.onmessage = () => queue.shift()?.();
    return (f) => {
      queue.push(f);
      ch.port2.postMessage(0);
    };
  }
  return (f) => setTimeout(f, 0);
})();

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

/**
 * A sharded read on the calling thread (lib/shards.js, which reads the
 * shards' indexes and inner chunks itself) shares the decoding of its
 * inner chunks with one decode worker when they decode to minReadBytes or
 * more (an upper bound: every inner chunk the shards' regions touch): it
 * hands the worker two of every three inner chunks as they arrive, decodes
 * the third, and at the end takes back those the worker has not started
 * (claimed in shared memory, the last handed first), so neither thread
 * waits for the other but for the chunk the worker is decoding. Only with
 * shared results, the decoders module here, and a decoder the workers'
 * module has; a chunk the worker's module declines hands the whole read to
 * the engine, as one this thread's declines does. Returns null, or
 * {out: the SharedArrayBuffer result, give(geometry, bytes): true when the
 * worker takes the chunk (else this thread decodes it), finish(): resolves
 * to whether every chunk the worker kept was placed}.
 * @param {ReadPlan} rp the direct plan (its chunks are shards)
 */
export function shardHelper(rp, decoder) {
  const pool = currentPool();
  if (!pool || !pool.shared || !tuning.here || !decoder || decoder === "raw" || codecsExports() === null) return null;
  const w = pool.pick();
  if (!w) return null;
  const { inner } = rp.plan.shard;
  let innerBytes = rp.itemSize;
  for (const x of inner) innerBytes *= x;
  // The inner chunks the shards' regions touch, at most.
  let slots = 0;
  for (let i = 0; i < rp.keys.length; i++) {
    const at = i * rp.per + rp.ndim;
    let k = 1;
    for (let d = 0; d < rp.ndim; d++) {
      const [start, step, , , count] = rp.g.subarray(at + 5 * d, at + 5 * d + 5);
      const first = Math.floor(start / inner[d]);
      const last = Math.floor((start + (count - 1) * step) / inner[d]);
      k *= count > 0 ? Math.min(count, last - first + 1) : 0;
    }
    slots += k;
  }
  // (useWorkers(n, {minBytes: 0}): every such read)
  if (pool.minBytes !== 0 && slots * innerBytes < minReadBytes) return null;
  const buf = new SharedArrayBuffer(rp.nbytes);
  const claims = new Int32Array(new SharedArrayBuffer(4 * slots));
  const read = nextRead++;
  pool.broadcast({ type: "read", read, out: buf, arena: (pool.arena ??= new Arena(arenaBytes)).buf, claims: claims.buffer, fullShape: rp.full, itemSize: rp.itemSize, decoder, moduleOnly: true });
  const jobs = [];
  let seen = 0;
  return {
    out: buf,
    give(geometry, bytes) {
      if (jobs.length >= slots || seen++ % 3 === 2 || !w.alive) {
        pool.here++;
        return false;
      }
      const block = pool.arena.put(bytes);
      const job = { slot: jobs.length, block, bytes, geometry, taken: false, answer: null };
      // (the geometry copied: a view would send the whole table)
      const m = { read, slot: job.slot, geometry: geometry.slice() };
      if (block) Object.assign(m, { at: block.at, length: bytes.length });
      else m.bytes = bytes.slice();
      job.answer = pool.queue(m, m.bytes ? [m.bytes.buffer] : [], w);
      if (block) job.answer.then(() => pool.arena.free(block));
      jobs.push(job);
      if (jobs.length % 4 === 0) pool.flush(); // (the worker starts while this thread goes on)
      return true;
    },
    /** After the last chunk was given: place(geometry, bytes) decodes a chunk taken back here (null: the read failed, take none). */
    finish(place) {
      pool.flush();
      let ok = place !== null;
      for (let k = jobs.length - 1; k >= 0 && ok; k--) {
        const job = jobs[k];
        if (Atomics.compareExchange(claims, job.slot, 0, 2) !== 0) continue;
        job.taken = true;
        if (job.block) pool.arena.free(job.block);
        pool.takenBack++;
        ok = place(job.geometry, job.bytes);
        if (ok) pool.here++;
      }
      const answers = Promise.all(jobs.map((j) => j.answer));
      answers.then(() => pool.broadcast({ type: "end", read }));
      if (!ok) return false;
      return answers.then((as) => {
        const placed = as.every((a, k) => jobs[k].taken || a?.ok === true);
        // (pooledGet counted the read as the engine's when the engine's
        // plan for the pool declined it: part of a shard)
        if (placed) pool.reads.shared++, pool.reads.engine--;
        return placed;
      });
    },
  };
}
