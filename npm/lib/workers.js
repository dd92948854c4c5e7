// A pool of decode workers. Go compiled to WebAssembly runs on one thread;
// each worker runs its own copy of the engine (from the module already
// compiled here) and decompresses chunks, so a read decodes on as many cores
// as the pool has while this thread fetches and assembles.
import { ZarrError } from "./errors.js";
import { bridge, fullModule, isNode, onEngineStart } from "./runtime.js";
import { codecsModule } from "./codecs.js";

/** The pool in use, or null. */
let pool = null;

/** The pool in use (for pooled reads, lib/pooled.js), or null. */
export function currentPool() {
  return pool;
}

/**
 * Starts a pool of `count` decode workers (default: the number of cores,
 * at most 8) and routes chunk decompression to it: bz2 and lzma chunks
 * (zstd, zlib, gzip too where the package's own decoders cannot load) that
 * decode to at least `minBytes` (default 64 KiB).
 * `useWorkers(0)` stops the pool. Resolves when the workers are ready.
 * @param {number} [count]
 * @param {{minBytes?: number}} [options]
 */
export function useWorkers(count, options = {}) {
  // One change at a time: a stop must not race a start.
  const run = () => changePool(count, options);
  changing = changing.then(run, run);
  return changing;
}

let changing = Promise.resolve();
/** Stops handing the pool to engines that start. */
let detach = null;

async function changePool(count, options) {
  if (pool) {
    const old = pool;
    pool = null;
    detach?.();
    detach = null;
    (await bridge()).setDecodeWorkers(null);
    old.terminate();
  }
  count = count === undefined ? await defaultCount() : Number(count);
  if (!Number.isInteger(count) || count < 0) {
    throw new ZarrError("SELECTION", `useWorkers: count must be a whole number ≥ 0, got ${count}`);
  }
  const minBytes = options.minBytes ?? 65536;
  const shared = options.shared ?? "auto";
  if (shared !== "auto" && typeof shared !== "boolean") {
    throw new ZarrError("SELECTION", `useWorkers: shared is "auto", true or false, got ${JSON.stringify(shared)}`);
  }
  if (shared === true && !sharedMemory()) {
    throw new ZarrError("UNSUPPORTED", "useWorkers: shared: true needs SharedArrayBuffer (a browser page must be cross-origin isolated)");
  }
  if (!Number.isFinite(minBytes) || minBytes < 0) {
    throw new ZarrError("SELECTION", `useWorkers: minBytes must be a number ≥ 0, got ${options.minBytes}`);
  }
  if (count === 0) return poolInfo(null);
  // Workers run the full build: they decode what only it has (bz2, lzma).
  // They get the decoders' compiled module too (none: they load it themselves).
  const [module, codecs] = await Promise.all([fullModule(), codecsModule().catch(() => null)]);
  const started = await Promise.allSettled(Array.from({ length: count }, () => startWorker(module, codecs)));
  // (startWorker terminates a worker that fails to start.)
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    for (const s of started) if (s.status === "fulfilled") s.value.terminate();
    throw new ZarrError("INTERNAL", `useWorkers: a decode worker did not start: ${failed.reason?.message ?? failed.reason}`);
  }
  const p = new Pool(started.map((s) => s.value));
  // Pooled reads write into a SharedArrayBuffer where there is one (Node;
  // a cross-origin isolated page), else the workers hand each decoded
  // chunk back (transferred) and this thread copies it into the result.
  p.shared = shared === "auto" ? sharedMemory() : shared;
  p.minBytes = minBytes;
  p.cores = await cores();
  pool = p;
  await bridge();
  // (again for an engine started after one stopped)
  detach = onEngineStart((api) =>
    api.setDecodeWorkers((name, config, bytes, max) => {
      try {
        return p.decode(name, config, bytes, max);
      } catch {
        return null; // (a throw would stop the engine; null decodes the chunk here)
      }
    }, minBytes),
  );
  return poolInfo(p);
}

/** Whether results can live in memory the workers share. */
export function sharedMemory() {
  return typeof SharedArrayBuffer === "function" && (isNode || globalThis.crossOriginIsolated === true);
}

function poolInfo(p) {
  return {
    size: p ? p.workers.length : 0,
    /** Whether pooled reads write into a SharedArrayBuffer (else chunks are transferred back). */
    shared: p ? p.shared : false,
    /**
     * Chunks each worker decoded, and how many it gave back (corrupt data,
     * decoded here instead); here: chunks of pooled reads the calling
     * thread decoded itself, and hereDeclined those its decoders declined
     * (the engine decoded them on the calling thread, or reported them);
     * takenBack: chunks handed to a worker that the calling thread took
     * back before the worker started them (counted in here too); reads: pooled reads by how their chunks came back (shared:
     * written into a SharedArrayBuffer; transfer: transferred and copied
     * here), and reads left to the engine on this thread.
     */
    stats: () => ({
      decoded: p ? p.workers.map((w) => w.decoded) : [],
      here: p ? p.here : 0,
      hereDeclined: p ? p.hereDeclined : 0,
      takenBack: p ? p.takenBack : 0,
      failed: p ? p.workers.reduce((n, w) => n + w.failed, 0) : 0,
      reads: p ? { ...p.reads } : { shared: 0, transfer: 0, engine: 0 },
    }),
  };
}

async function defaultCount() {
  return Math.max(1, Math.min(8, await cores()));
}

/** The machine's cores (2 when it does not say). */
async function cores() {
  let n = globalThis.navigator?.hardwareConcurrency;
  if (!n && isNode) {
    const osName = "node:os";
    const os = await import(/* @vite-ignore */ osName);
    n = os.availableParallelism?.() ?? os.cpus().length;
  }
  return n || 2;
}

class Pool {
  constructor(workers) {
    this.workers = workers;
    this.nextId = 1;
    this.turn = 0;
    this.shared = false;
    this.cores = 2;
    this.reads = { shared: 0, transfer: 0, engine: 0 };
    /** Chunks of pooled reads the calling thread decoded itself, and those its decoders declined (the engine decoded them). */
    this.here = 0;
    this.hereDeclined = 0;
    /** Chunks handed to a worker that the calling thread took back before the worker started them (counted in here too). */
    this.takenBack = 0;
  }

  /** The least busy live worker (ties in turn), or null. */
  pick() {
    let w = null;
    const n = this.workers.length;
    for (let i = 0; i < n; i++) {
      const c = this.workers[(this.turn + i) % n];
      if (c.alive && (!w || c.pending.size < w.pending.size)) w = c;
    }
    if (w) this.turn = (this.workers.indexOf(w) + 1) % n;
    return w;
  }

  /** Posts m to every live worker. */
  broadcast(m) {
    for (const w of this.workers) if (w.alive) w.post(m);
  }

  /**
   * Sends a task to worker w (default: the least busy): resolves to the worker's answer
   * (a message), or null when no worker takes it or the worker died. The
   * message waits for the others queued in the same turn of the event loop
   * (a microtask): each worker gets them in one "chunks" message (m.list),
   * so a burst of chunks costs one message and one wake per worker instead
   * of one per chunk.
   */
  queue(m, transfer, w = this.pick()) {
    if (!w) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      w.pending.set(id, resolve);
      w.ref();
      (w.batch ??= []).push({ ...m, id });
      if (transfer.length > 0) (w.batchTransfer ??= []).push(...transfer);
      if (!this.flushing) {
        this.flushing = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  /** Posts each worker's queued messages. */
  flush() {
    this.flushing = false;
    for (const w of this.workers) {
      const list = w.batch;
      if (!list) continue;
      const transfer = w.batchTransfer ?? [];
      w.batch = w.batchTransfer = null;
      // (a worker that died meanwhile settled these with null already)
      if (w.alive) w.post({ type: "chunks", list }, transfer);
    }
  }

  /** Resolves to the decoded bytes, or null for "decode it yourself". */
  decode(name, config, bytes, max) {
    // The least busy worker; ties go round in turn, so sequential reads
    // spread over the pool too.
    const w = this.pick();
    if (!w) return null;
    const id = this.nextId++;
    return new Promise((resolve) => {
      w.pending.set(id, resolve);
      w.ref();
      w.post({ type: "decode", id, name, config, bytes, max }, [bytes.buffer]);
    });
  }

  terminate() {
    for (const w of this.workers) w.terminate();
  }
}

/** Starts one worker and hands it the compiled modules (the engine's, the decoders'); resolves when ready. */
async function startWorker(module, codecs) {
  const w = await spawn();
  w.pending = new Map();
  w.decoded = 0;
  w.failed = 0;
  w.alive = true;
  const dead = () => {
    w.alive = false;
    for (const resolve of w.pending.values()) resolve(null);
    w.pending.clear();
  };
  // Browsers say nothing when a worker is terminated: settle its tasks here
  // (the engine decodes them itself).
  const terminate = w.terminate;
  w.terminate = () => {
    dead();
    terminate();
  };
  const ready = new Promise((resolve, reject) => {
    w.onError((e) => {
      dead();
      reject(new Error(e?.message ?? "the worker failed"));
    });
    w.onMessage((m) => {
      if (m.type === "ready") return resolve();
      if (m.type === "failed") return reject(new Error(m.message));
      if (m.type === "chunks-done") {
        for (const id of m.ids) settle({ type: "chunk-done", id, ok: true });
        for (const id of m.taken ?? []) settle({ type: "chunk-done", id, ok: true, taken: true });
        return;
      }
      if (m.type !== "decoded" && m.type !== "chunk-done") return;
      settle(m);
    });
    w.post({ type: "init", module, codecs });
  });
  // A task's answer: the decoded bytes (decodeBytes), or the message.
  function settle(m) {
    const resolveTask = w.pending.get(m.id);
    if (!resolveTask) return;
    w.pending.delete(m.id);
    const ok = m.type === "decoded" ? !!m.bytes : m.ok;
    if (!m.taken) {
      // (a chunk the calling thread took back counts as neither)
      if (ok) w.decoded++;
      else w.failed++; // the engine decodes it here and reports why
    }
    if (w.pending.size === 0) w.unref();
    resolveTask(m.type === "decoded" ? m.bytes : m);
  }
  try {
    await ready;
  } catch (e) {
    w.terminate();
    throw e;
  }
  w.unref();
  return w;
}

/** A worker behind one interface for browsers and Node. */
async function spawn() {
  if (isNode) {
    const name = "node:worker_threads";
    const { Worker } = await import(/* @vite-ignore */ name);
    const w = new Worker(new URL("./" + "worker.js", import.meta.url));
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
