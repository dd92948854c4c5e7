// Decode workers. The engine runs on one thread, and decompressing chunks
// is where large reads spend their time: a pool of workers, each running
// only the decoders module (lib/codecs.wasm: libzstd, libdeflate, the Blosc
// walker — compiled once here and handed over, so a worker downloads
// nothing but its small script), decodes chunks beside the calling thread.
// The pool is on by default where the machine has more than one core, with
// one worker fewer than the cores (the calling thread decodes too), and
// starts on the first read the engine's plan finds worth it (plan.workers:
// enough decoded by these decoders, see zarr/hostread); useWorkers(0)
// turns it off, useWorkers(n) sets its size.
//
// A read shares its chunks with the pool through a ReadShare: each worker
// is kept a few chunks ahead, the calling thread decodes the others one or
// two a turn of the event loop (so the workers' answers, and their next
// chunks, are not held up), and towards the end a worker gets no more than
// its share of what is left. The result lives in a SharedArrayBuffer where
// there is one (Node; a cross-origin isolated page) and the workers write
// into it; otherwise each worker hands its decoded chunk back and this
// thread copies the region. A chunk a worker's decoder declines (corrupt,
// or Blosc the walker does not cover) is decoded here by the engine, which
// reports what is wrong.
import { ZarrError } from "./errors.js";
import { isNode } from "./runtime.js";
import { codecsModule, codecsExports } from "./codecs.js";
import { checkOptions } from "./options.js";

/** Workers asked for by useWorkers (undefined: the default, the cores less one). */
let wanted;
/** useWorkers's shared option: "auto", true or false. */
let sharedOption = "auto";
/** useWorkers's minBytes option (undefined: the engine's measured threshold). */
let minBytesOption;
/** The pool, once started (or starting), or null. */
let pool = null;
/** Set when workers cannot start here (no Worker, a blocked script): the reason. */
let unavailable = null;

/** The machine's cores (2 until known). */
let cores = globalThis.navigator?.hardwareConcurrency || 0;
const coresKnown = (async () => {
  if (cores || !isNode) return;
  try {
    const name = "node:os";
    const os = await import(/* @vite-ignore */ name);
    cores = os.availableParallelism?.() ?? os.cpus().length;
  } catch {
    /* (2 cores assumed) */
  }
})();

function defaultCount() {
  return Math.max(0, Math.min(7, (cores || 2) - 1));
}

/** The least a read decodes to be worth the workers, when useWorkers set it (else undefined: the engine decides). */
export function workerMinBytes() {
  return minBytesOption;
}

/** How many decode workers a read may plan for (0: none). */
export function plannedWorkers() {
  if (wanted === 0 || unavailable) return 0;
  if (pool) return pool.size;
  return wanted ?? defaultCount();
}

/**
 * The pool a read the plan finds worth workers uses (started now if need
 * be), or null when workers are off or cannot run here. Workers that are
 * still starting join the read when they are ready: meanwhile this thread
 * decodes its chunks a few a turn of the event loop, so a program that
 * never yields to it otherwise still lets the workers start.
 */
export function poolForRead() {
  if (!pool && plannedWorkers() > 0) startPool(wanted ?? defaultCount()).catch(() => {});
  return pool && !pool.failed ? pool : null;
}

/**
 * Sets the pool of decode workers: `count` workers (default: the cores
 * less one, at most 7), 0 to turn decoding in workers off. Resolves when
 * the workers are ready, to {size, shared, stats()}.
 * Options: shared (true, false or "auto": results in a SharedArrayBuffer
 * the workers write into, where there is one); minBytes, the least a read
 * decodes to be worth the workers (default: the engine's threshold, 16 MiB
 * decoded, measured; 0: every read of two chunks or more).
 * @param {number} [count]
 * @param {{shared?: boolean | "auto", minBytes?: number}} [options]
 */
export function useWorkers(count, options = {}) {
  options = checkOptions("useWorkers", options);
  const run = () => changePool(count, options);
  changing = changing.then(run, run);
  return changing;
}

let changing = Promise.resolve();

async function changePool(count, options) {
  await coresKnown;
  if (count !== undefined && (!Number.isInteger(count) || count < 0)) {
    throw new ZarrError("INVALID_ARGUMENT", `useWorkers: count must be a whole number ≥ 0, got ${count}`);
  }
  const shared = options.shared ?? "auto";
  if (shared !== "auto" && typeof shared !== "boolean") {
    throw new ZarrError("INVALID_ARGUMENT", `useWorkers: shared is "auto", true or false, got ${JSON.stringify(shared)}`);
  }
  if (shared === true && !sharedMemory()) {
    throw new ZarrError("UNSUPPORTED", "useWorkers: shared: true needs SharedArrayBuffer (a browser page must be cross-origin isolated)");
  }
  if (options.minBytes !== undefined && !(Number.isFinite(options.minBytes) && options.minBytes >= 0)) {
    throw new ZarrError("INVALID_ARGUMENT", `useWorkers: minBytes must be a number ≥ 0, got ${options.minBytes}`);
  }
  wanted = count;
  sharedOption = shared;
  minBytesOption = options.minBytes;
  unavailable = null;
  if (pool) {
    pool.terminate();
    pool = null;
  }
  const n = count ?? defaultCount();
  if (n === 0) return poolInfo(null);
  const p = await startPool(n);
  const failed = p.workers.find((w) => w.error);
  if (failed) throw new ZarrError("INTERNAL", `useWorkers: a decode worker did not start: ${failed.error}`);
  return poolInfo(p);
}

/**
 * Whether the pool is the default one and its results would be copied back
 * rather than written in place (no shared memory): the plan then leaves
 * reads to the calling thread unless useWorkers set minBytes (Host.Transfer
 * in zarr/hostread says why).
 */
export function plannedTransfer() {
  if (wanted !== undefined) return false;
  if (pool) return !pool.shared;
  return !(sharedOption === "auto" ? sharedMemory() : sharedOption);
}

/** Whether results can live in memory the workers share. */
export function sharedMemory() {
  return typeof SharedArrayBuffer === "function" && (isNode || globalThis.crossOriginIsolated === true);
}

/** Starts a pool of n workers (the one starting, if any): resolves when each is ready or failed. */
function startPool(n) {
  if (pool) return pool.started;
  const p = new Pool(n, sharedOption === "auto" ? sharedMemory() : sharedOption);
  pool = p;
  p.started = (async () => {
    let module;
    try {
      module = await codecsModule();
    } catch (e) {
      unavailable = `the decoders' module did not load: ${e?.message ?? e}`;
      if (pool === p) pool = null;
      throw e;
    }
    await Promise.all(p.workers.map((w) => w.start(module)));
    if (p.workers.every((w) => !w.alive)) {
      unavailable = p.workers[0]?.error ?? "no worker started";
      p.failed = true;
      for (const share of p.shares) share.dispatch(); // (their chunks: this thread's)
      if (pool === p) pool = null;
    }
    return p;
  })();
  return p.started;
}

function poolInfo(p) {
  return {
    size: p ? p.size : 0,
    /** Whether pooled reads write into a SharedArrayBuffer (else chunks are transferred back). */
    shared: p ? p.shared : false,
    /**
     * decoded: chunks each worker decoded; declined: chunks a worker's
     * decoder declined (the engine decoded them here); here: chunks of
     * pooled reads this thread decoded itself; reads: reads that used the
     * pool.
     */
    stats: () => ({
      decoded: p ? p.workers.map((w) => w.decoded) : [],
      declined: p ? p.workers.reduce((n, w) => n + w.declined, 0) : 0,
      here: p ? p.here : 0,
      reads: p ? p.reads : 0,
    }),
  };
}

/**
 * The pool as it stands: the same as useWorkers's answer (size 0 when none
 * runs), with `unavailable`, why no worker could start here, if so.
 */
export function workerPool() {
  const info = poolInfo(pool);
  if (unavailable) info.unavailable = unavailable;
  return info;
}

/**
 * How reads share the work (tests/bench change it to compare): depth, the
 * chunks each worker is given ahead; batch, the most chunks this thread
 * decodes in one turn of the event loop before it hears from the workers
 * again. (Whole-array reads of the bench's zstd, Blosc(zstd) and
 * Blosc(lz4) arrays with one worker on 2 cores: 8 and 2 left the worker
 * idle a quarter of the time; 16 to 32 and 1 kept it busy.)
 */
export const tuning = { depth: 32, batch: 1 };

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

let nextRead = 1;
let nextJob = 1;

class Pool {
  constructor(n, shared) {
    this.size = n;
    this.shared = shared;
    this.workers = Array.from({ length: n }, () => new DecodeWorker(this));
    this.here = 0;
    this.reads = 0;
    this.started = null;
    /** No worker could start. */
    this.failed = false;
    /** The reads shared with the pool now (a worker that becomes ready joins them). */
    this.shares = new Set();
  }

  /** A share of one read's chunks (see ReadShare). */
  beginRead(run) {
    return new ReadShare(this, run);
  }

  terminate() {
    for (const w of this.workers) w.terminate();
  }
}

/** One decode worker. */
class DecodeWorker {
  constructor(pool) {
    this.pool = pool;
    this.alive = false;
    this.error = null;
    this.decoded = 0;
    this.declined = 0;
    /** Jobs sent and not answered: id → job. */
    this.jobs = new Map();
    this.batch = null;
    this.transfer = null;
    this.port = null;
  }

  async start(module) {
    try {
      this.port = await spawn();
      await new Promise((resolve, reject) => {
        this.port.onError((e) => {
          this.died();
          reject(e);
        });
        this.port.onMessage((m) => {
          if (m.type === "ready") return resolve();
          if (m.type === "failed") return reject(new Error(m.message));
          this.answered(m);
        });
        this.port.post({ type: "init", codecs: module });
      });
      this.alive = true;
      this.port.unref();
      for (const share of this.pool.shares) share.join(this);
    } catch (e) {
      this.error = String(e?.message ?? e);
      this.port?.terminate();
    }
  }

  /** Queues a job (sent with the others of this turn: one message a turn). */
  send(job) {
    this.jobs.set(job.id, job);
    if (this.jobs.size === 1) this.port.ref();
    const m = { id: job.id, read: job.share.read, decode: job.c.decode, size: job.size, shape: job.c.shape, in: job.c.in, out: job.c.out, bytes: job.copy };
    (this.batch ??= []).push(m);
    (this.transfer ??= []).push(job.copy.buffer);
  }

  flush() {
    if (!this.batch) return;
    const list = this.batch;
    const transfer = this.transfer;
    this.batch = this.transfer = null;
    if (this.alive) this.port.post({ type: "chunks", list }, transfer);
  }

  post(m) {
    if (this.alive) this.port.post(m);
  }

  /** A worker's answer: {type: "done", ids}, {type: "chunk", id, data} or {type: "declined", id}. */
  answered(m) {
    const ids = m.type === "done" ? m.ids : [m.id];
    for (const id of ids) {
      const job = this.jobs.get(id);
      if (!job) continue;
      this.jobs.delete(id);
      if (m.type === "declined") this.declined++;
      else this.decoded++;
      job.share.answered(job, m.type === "declined" ? null : (m.data ?? true));
    }
    if (this.jobs.size === 0) this.port.unref();
  }

  died() {
    this.alive = false;
    const jobs = [...this.jobs.values()];
    this.jobs.clear();
    for (const job of jobs) job.share.answered(job, null);
  }

  terminate() {
    this.died();
    this.port?.terminate();
  }
}

/** One read's chunks shared between this thread and the pool's workers. */
class ReadShare {
  constructor(pool, run) {
    this.pool = pool;
    this.run = run;
    this.read = nextRead++;
    this.workers = [];
    this.outstanding = 0; // jobs with a worker
    this.ready = []; // chunks waiting for this thread or a worker: {c, bytes, size}
    this.readyAt = 0;
    this.ticking = false;
    this.over = false;
    pool.reads++;
    pool.shares.add(this);
    for (const w of pool.workers) if (w.alive) this.join(w);
  }

  /** Worker w takes part in this read from now on. */
  join(w) {
    if (this.over || this.workers.includes(w)) return;
    this.workers.push(w);
    w.post({ type: "read", read: this.read, out: this.pool.shared ? this.run.buf : null, full: this.run.full, itemSize: this.run.itemSize });
    this.dispatch();
  }

  /** Takes chunk c (its stored bytes) to decode here later or in a worker: false when this thread decodes it now. */
  take(c, bytes, size) {
    if (this.over || codecsExports() === null || this.pool.failed) return false;
    this.ready.push({ c, bytes, size });
    this.run.waitingBytes += bytes.length;
    this.dispatch();
    return true;
  }

  /** Chunks left for this read, as far as it is known: waiting here, and fetches not yet answered. */
  left() {
    const r = this.run;
    return this.ready.length - this.readyAt + (r.fetches.length - r.next) + r.running;
  }

  /** The live worker with room for another chunk (the least busy), or null. */
  room() {
    const cap = Math.min(tuning.depth, Math.max(1, Math.ceil(this.left() / (this.workers.length + 1))));
    let w = null;
    for (const c of this.workers) if (c.alive && c.jobs.size < cap && (!w || c.jobs.size < w.jobs.size)) w = c;
    return w;
  }

  /** Hands waiting chunks to workers with room; the rest wait for this thread's next turn. */
  dispatch() {
    for (let w; this.readyAt < this.ready.length && (w = this.room()); ) {
      const job = this.ready[this.readyAt];
      this.ready[this.readyAt++] = null;
      job.id = nextJob++;
      job.share = this;
      // (a copy goes: the store's own bytes stay where they are)
      job.copy = job.bytes.slice();
      this.outstanding++;
      w.send(job);
    }
    if (this.readyAt === this.ready.length) this.ready.length = this.readyAt = 0;
    if (this.readyAt < this.ready.length && !this.ticking) {
      this.ticking = true;
      this.flush(); // (the workers start on their chunks before this thread decodes)
      later(() => this.tick());
    }
  }

  /** Decodes a few waiting chunks on this thread. */
  tick() {
    this.ticking = false;
    if (this.over) return;
    let k = Infinity;
    for (const w of this.workers) if (w.alive) k = Math.min(k, w.jobs.size);
    k = k === Infinity ? 4 : Math.max(1, Math.min(tuning.batch, k >> 1));
    const ok = this.run.guard(() => {
      for (; k > 0 && this.readyAt < this.ready.length; k--) {
        const job = this.ready[this.readyAt];
        this.ready[this.readyAt++] = null;
        this.run.waitingBytes -= job.bytes.length;
        this.pool.here++;
        this.run.here(job.c, job.bytes, job.size);
      }
    });
    if (!ok) return;
    this.dispatch();
    this.run.wake();
  }

  /** A worker's answer for job: true (written into the shared result), the decoded bytes, or null (declined: the engine decodes it here). */
  answered(job, answer) {
    this.outstanding--;
    this.run.waitingBytes -= job.bytes.length;
    if (this.over) return;
    const ok = this.run.guard(() => {
      if (answer === null) this.run.byEngine(job.c, job.bytes);
      else if (answer !== true) this.run.place(job.c, answer);
    });
    if (!ok) return;
    this.dispatch();
    this.run.wake();
  }

  flush() {
    for (const w of this.workers) w.flush();
  }

  idle() {
    return this.outstanding === 0 && this.readyAt === this.ready.length;
  }

  /** The read is over (failed: its chunks still with workers are dropped). */
  end(failed) {
    if (this.over) return;
    this.over = true;
    this.pool.shares.delete(this);
    this.flush();
    for (const w of this.workers) w.post({ type: "end", read: this.read });
    if (failed) this.ready.length = this.readyAt = 0;
  }
}

/** A worker behind one interface for browsers and Node. */
async function spawn() {
  if (isNode) {
    const name = "node:worker_threads";
    const { Worker } = await import(/* @vite-ignore */ name);
    // (not the program's --input-type: a worker is a file; Node refuses it for one)
    const execArgv = process.execArgv.filter((a) => !a.startsWith("--input-type"));
    const w = new Worker(new URL("./" + "worker.js", import.meta.url), { execArgv });
    return {
      post: (m, transfer) => w.postMessage(m, transfer),
      onMessage: (f) => w.on("message", f),
      onError: (f) => {
        w.on("error", f);
        w.on("exit", () => f(new Error("the worker exited")));
      },
      // An idle worker must not keep Node running.
      ref: () => w.ref(),
      unref: () => w.unref(),
      terminate: () => w.terminate(),
    };
  }
  if (typeof Worker !== "function") throw new Error("this environment has no Worker");
  // This exact form lets bundlers (Vite, webpack) build the worker too.
  const w = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  return {
    post: (m, transfer) => w.postMessage(m, transfer ?? []),
    onMessage: (f) => w.addEventListener("message", (e) => f(e.data)),
    onError: (f) => w.addEventListener("error", (e) => f(new Error(e.message || "the worker script failed to load"))),
    ref: () => {},
    unref: () => {},
    terminate: () => w.terminate(),
  };
}
