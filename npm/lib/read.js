// The read executor: every read of an array whose chunks come from a JS
// store runs here. The engine plans (planRead: zarr/hostread, a JSON plan
// described in docs/read-plan.md) and this module runs the plan: it asks
// the store for each fetch (whole values or byte ranges, at most
// plan.concurrency at once; concurrent reads share a request in flight),
// decodes each chunk where its plan step says — its stored bytes as they
// are ("raw"), the decoders module ("zstd", "zlib", "gzip", "blosc") on
// this thread or in decode workers, or the engine ("engine", and whatever
// the decoders decline) — and copies each region into the result. A
// shard's index (or a whole shard) goes back to the engine (expandShards),
// which lists the inner chunks the read needs, coalesced into requests.
//
// The executor hands a read to the engine's own read (which asks the store
// again and reports what it finds: a STORE error, ABORTED, a CONFLICT after
// its retries) when a store throws or rejects, answers with something that
// is not bytes, answers a conditional read with another version, or the
// read is aborted: the result is then the engine's alone, never made of
// two fetches of one chunk.
import { bridgeIfRunning, engineOfHandle } from "./runtime.js";
import { ZarrError, toZarrError } from "./errors.js";
import { scatter, fillWith } from "./scatter.js";
import { codecsExports, decodeTo, loadCodecs } from "./codecs.js";
import { plannedTransfer, plannedWorkers, poolForRead, workerMinBytes } from "./workers.js";

/** The plan schema this executor runs (hostread.Version). */
const planVersion = 1;

/** Stored bytes fetched and not yet decoded, beyond which no new fetch starts. */
const maxWaitingBytes = 64 << 20;

/**
 * While answers that lead to more requests are due (a shard's index, whose
 * inner chunks are asked for next; any answer, while fetches wait for a
 * free place), chunks are decoded on this thread at most this many ms at a
 * time, and the answers that came meanwhile are taken first.
 */
const decodeSliceMs = 4;

/** Runs fn after the events already due (answers that came): setImmediate in Node, a MessageChannel message in browsers. */
const afterEvents = (() => {
  if (typeof setImmediate === "function") return setImmediate;
  if (typeof MessageChannel !== "function") return (fn) => setTimeout(fn, 0);
  const queue = [];
  let channel = null;
  return (fn) => {
    if (channel === null) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => queue.shift()?.();
    }
    queue.push(fn);
    channel.port2.postMessage(0);
  };
})();

/** The read goes to the engine. */
const FALLBACK = Symbol("fallback");

/** The switch (tests compare the executor's reads with the engine's: enabled false sends every read to the engine). */
export const executor = { enabled: true };

/**
 * What reads ran here (tests check reads really come this way): reads the
 * executor began and finished itself (not handed to the engine), reads
 * planned for the engine, shards whose index it expanded, chunks the
 * decoders module declined on this thread (the engine decoded them), and
 * chunks by where they were decoded.
 */
export const readStats = { reads: 0, finished: 0, engineReads: 0, shards: 0, declined: 0, located: 0, decoded: { raw: 0, zstd: 0, zlib: 0, gzip: 0, blosc: 0, engine: 0 } };

/** Requests this module made, per store object: {get, getRange, bytes}. */
const counts = new WeakMap();

/** The requests the executor made of store: {get, getRange, bytes}, or null. */
export function executorStats(store) {
  return (store && typeof store === "object") || typeof store === "function" ? (counts.get(store) ?? null) : null;
}

/** Requests in flight, per store object: request id → promise of the answer. */
const pending = new WeakMap();

/**
 * Shard indexes kept between reads, per store object: key → {gen, bytes},
 * the least recently used first (a Map's order), at most maxIndexBytes in
 * all. Only indexes read with a generation: the inner chunks are then
 * fetched on condition that the shard is still that generation, so a
 * shard rewritten since hands the read to the engine (which starts over
 * with a fresh index), and the store's kept indexes are dropped.
 */
const indexes = new WeakMap();
const maxIndexBytes = 16 << 20;
let indexBytes = 0;

function keptIndex(store, key) {
  const m = indexes.get(store);
  const e = m?.get(key);
  if (!e) return null;
  m.delete(key);
  m.set(key, e); // (now the most recent)
  return e;
}

function keepIndex(store, key, gen, bytes) {
  if (!gen || bytes.length > maxIndexBytes) return;
  let m = indexes.get(store);
  if (!m) indexes.set(store, (m = new Map()));
  const old = m.get(key);
  if (old) indexBytes -= old.bytes.length;
  m.delete(key);
  m.set(key, { gen, bytes: bytes.slice() });
  indexBytes += bytes.length;
  // (the oldest of this store's first: stores nobody holds go with their map)
  for (const [k, e] of m) {
    if (indexBytes <= maxIndexBytes) break;
    m.delete(k);
    indexBytes -= e.bytes.length;
  }
}

function dropIndexes(store) {
  const m = indexes.get(store);
  if (!m) return;
  for (const e of m.values()) indexBytes -= e.bytes.length;
  indexes.delete(store);
}

/** Arrays every read of which the engine reads (their handle: a node moved to the other build is asked again). */
const declined = new WeakMap();

/** The decoders this thread has, for the plan (none until the module loaded). */
function decoders() {
  if (codecsExports() !== null) return ["zstd", "zlib", "gzip", "blosc"];
  loadCodecs(); // (for the next read)
  return [];
}

/** A store's answer as {bytes, gen}: null (absent), FALLBACK (not bytes, or not the version asked for). */
function answerOf(a) {
  if (a === undefined || a === null) return null;
  if (a instanceof Uint8Array) return { bytes: a, gen: "" };
  if (typeof a !== "object") return FALLBACK;
  if (a instanceof ArrayBuffer) return { bytes: new Uint8Array(a), gen: "" };
  if (ArrayBuffer.isView(a)) return { bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength), gen: "" };
  if (a.changed || a.notModified) return FALLBACK;
  const gen = typeof a.generation === "string" ? a.generation : "";
  if (a.data === undefined || a.data === null) return a.generation === undefined ? FALLBACK : null;
  const inner = answerOf(a.data);
  return inner && inner !== FALLBACK && inner.gen === "" ? { bytes: inner.bytes, gen } : FALLBACK;
}

const thenable = (v) => v !== null && typeof v === "object" && typeof v.then === "function";

/**
 * Reads sel of arr as its plan says: the result ({data, shape, stride}, or
 * a promise of it), or null when the engine reads it (the plan says so, or
 * the executor handed it back).
 * @param {import("./core.js").ZarrArray} arr
 * @param {{concurrency?: number, workers?: boolean}} options
 */
export function readPlanned(arr, sel, signal, options) {
  const id = arr._info.id;
  if (!executor.enabled || signal?.aborted || declined.get(arr) === id) return null;
  // The engine that plans the read: when it stops before the read ends,
  // the read ends with its ENGINE_EXITED, as the engine's own reads do.
  const eng = engineOfHandle(id);
  const bridge = bridgeIfRunning();
  if (!eng || !bridge) return null;
  const workers = options.workers === false ? 0 : plannedWorkers();
  const host = { decoders: decoders(), workers, transfer: workers > 0 && plannedTransfer(), minBytes: workerMinBytes(), concurrency: options.concurrency ?? 0 };
  const planned = bridge.planRead(id, sel, host);
  if (!Array.isArray(planned)) return null; // (an error: the engine's read reports it)
  const plan = parsePlan(planned[0]);
  // A store that locates its chunks elsewhere (an Icechunk snapshot: its
  // manifests may have to be read first) is planned asynchronously.
  if (plan.locate) return planLocated(bridge, eng, id, sel, host, signal).then((p) => run(arr, id, p, bridge, eng, host, signal));
  return run(arr, id, planned, bridge, eng, host, signal);
}

/** The engine's plan of a read of a located store's array, or null (an error, or the engine stopped: the engine's read reports it). */
function planLocated(bridge, eng, id, sel, host, signal) {
  return new Promise((resolve) => {
    const died = () => resolve(null);
    eng.inFlight.add(died);
    const settle = (p) => {
      eng.inFlight.delete(died);
      resolve(p);
    };
    Promise.resolve(bridge.planLocated(id, sel, host, signal)).then(settle, () => settle(null));
  });
}

function parsePlan(text) {
  const plan = JSON.parse(text);
  if (plan.version !== planVersion) throw new ZarrError("INTERNAL", `the engine plans reads in schema ${plan.version}, this executor runs ${planVersion}`);
  return plan;
}

/**
 * A URL's answer ({data, etag, lastModified} or undefined) as bytes, when
 * it is of the version fetch f asks for: else FALLBACK (the engine's read
 * reports the CONFLICT, or the missing file).
 */
function checkedAnswer(f, v) {
  if (v === undefined || v === null) return FALLBACK;
  const data = v instanceof Uint8Array ? v : v.data;
  if (!(data instanceof Uint8Array)) return FALLBACK;
  if (f.etag !== undefined && bareETag(v.etag) !== bareETag(f.etag)) return FALLBACK;
  if (f.lastModified !== undefined) {
    const t = Date.parse(v.lastModified ?? "");
    if (!(t <= f.lastModified * 1000)) return FALLBACK;
  }
  return data;
}

/** An ETag without its weak marker and quotes ("" when absent). */
function bareETag(e) {
  return typeof e === "string" ? e.trim().replace(/^W\//, "").replace(/^"+|"+$/g, "") : "";
}

/** Runs a plan ([its JSON text, the JS store, the function URLs are read with]): the result, null (the engine reads it), or a promise of either. */
function run(arr, id, planned, bridge, eng, host, signal) {
  if (!Array.isArray(planned)) return null; // (an error: the engine's read reports it)
  const plan = parsePlan(planned[0]);
  if (plan.engine !== undefined) {
    if (plan.fixed) declined.set(arr, id);
    readStats.engineReads++;
    return null;
  }
  if (signal?.aborted || eng.dead) return null;
  readStats.reads++;
  return new Run(arr, plan, planned[1], bridge, eng, host, signal, planned.length > 2 ? planned[2] : FALLBACK).start();
}

/** One read running. */
class Run {
  constructor(arr, plan, store, bridge, eng, host, signal, readURL) {
    this.arr = arr;
    // (a located plan: keys are values of store, urls read with readURL;
    // a value or file that is not there is an error the engine reports)
    this.located = readURL !== FALLBACK;
    this.readURL = readURL;
    this.id = arr._info.id;
    this.plan = plan;
    this.bridge = bridge;
    this.eng = eng;
    this.host = host;
    this.signal = signal;
    this.store = store;
    this.full = plan.fullShape;
    this.itemSize = plan.itemSize;
    let nbytes = plan.itemSize;
    for (const d of plan.fullShape) nbytes *= d;
    // Decode workers, when the plan finds the read worth them and a pool
    // has some ready (one starts on the first such read).
    this.pool = plan.workers > 0 ? poolForRead() : null;
    this.shared = !!this.pool?.shared;
    this.buf = this.shared ? new SharedArrayBuffer(nbytes) : new ArrayBuffer(nbytes);
    this.out = new Uint8Array(this.buf);
    if (plan.fill && nbytes > 0) fillWith(this.out, Uint8Array.from(plan.fill));
    this.opts = signal ? { signal } : {};
    this.fetches = plan.fetches;
    this.next = 0; // the next fetch to make
    this.running = 0; // fetches pending
    this.waitingBytes = 0; // stored bytes fetched, not yet decoded
    this.shards = []; // shard answers to expand: {fetch, answer}
    this.ready = []; // chunks fetched, to decode here: [chunk, bytes]
    this.readyAt = 0; // (the next of them)
    this.decodeLater = false; // a slice of decoding is scheduled
    this.indexesDue = 0; // shard indexes asked for, not yet answered
    this.failed = false;
    this.settle = null; // once asynchronous: ends the read
    this.share = this.pool ? this.pool.beginRead(this) : null;
    let stats = counts.get(this.store);
    if (!stats) counts.set(this.store, (stats = { get: 0, getRange: 0, bytes: 0 }));
    this.stats = stats;
  }

  /** Runs what can run now; the result, null (the engine reads it) or a promise of either. */
  start() {
    const r = this.step();
    if (r !== undefined) return r;
    return new Promise((resolve, reject) => {
      const onAbort = () => this.stop(FALLBACK);
      const died = (e) => this.stop(e, true);
      this.settle = (v, error) => {
        this.eng.inFlight.delete(died);
        this.signal?.removeEventListener("abort", onAbort);
        if (error) reject(v);
        else resolve(v === FALLBACK ? null : v);
      };
      this.eng.inFlight.add(died);
      this.signal?.addEventListener("abort", onAbort, { once: true });
      if (this.signal?.aborted) onAbort(); // (during the first step)
    });
  }

  /** Ends an asynchronous read: with a result, FALLBACK, or (error) an error. */
  stop(v, error = false) {
    if (this.failed) return;
    this.failed = true;
    if (v === FALLBACK) dropIndexes(this.store); // (one may be why)
    this.share?.end(v === FALLBACK || error);
    this.settle?.(v, error);
  }

  /**
   * Issues fetches and places what has come; returns the read's end when
   * it is over now (the result, null for the engine), else undefined (a
   * promise settles it).
   */
  step() {
    try {
      for (;;) {
        while (!this.failed && this.next < this.fetches.length && this.running < this.plan.concurrency && (this.waitingBytes < maxWaitingBytes || this.running === 0)) {
          const f = this.fetches[this.next++];
          const kept = f.shard && !f.shard.whole ? keptIndex(this.store, f.key) : null;
          if (kept) {
            this.shards.push({ f, bytes: kept.bytes, gen: kept.gen });
            continue;
          }
          const a = this.ask(f);
          if (thenable(a)) {
            this.running++;
            const index = f.shard && !f.shard.whole;
            if (index) this.indexesDue++;
            a.then(
              (v) => {
                if (this.failed) return;
                this.running--;
                if (index) this.indexesDue--;
                if (this.guard(() => this.took(f, v))) this.wake();
              },
              () => this.stop(FALLBACK),
            );
          } else {
            this.took(f, a);
          }
        }
        if (this.failed) return this.settle ? undefined : null;
        if (this.shards.length === 0) break;
        this.expand();
      }
      // (the requests went out first; decoding waits for answers due, see decodeSliceMs)
      if (this.readyAt < this.ready.length) {
        if (this.moreToAsk()) this.scheduleDecode();
        else this.decodeReady(Infinity);
      }
      if (this.failed) return this.settle ? undefined : null;
      this.share?.flush();
      if (this.running > 0 || this.next < this.fetches.length || this.readyAt < this.ready.length || (this.share && !this.share.idle())) return undefined;
      return this.finish();
    } catch (e) {
      if (e === FALLBACK) {
        this.stop(FALLBACK);
        return this.settle ? undefined : null;
      }
      this.stop(e, true);
      if (this.settle) return undefined;
      throw e;
    }
  }

  /** Runs fn; what it throws ends the read (FALLBACK: the engine reads it). False when it threw. */
  guard(fn) {
    try {
      fn();
      return true;
    } catch (e) {
      if (e === FALLBACK) this.stop(FALLBACK);
      else this.stop(e, true);
      return false;
    }
  }

  /** Whether answers due may lead to requests (see decodeSliceMs). */
  moreToAsk() {
    return this.indexesDue > 0 || (this.running > 0 && this.next < this.fetches.length);
  }

  /** Decodes the chunks waiting, for at most ms (the first always). */
  decodeReady(ms) {
    const t = performance.now();
    while (this.readyAt < this.ready.length && !this.failed) {
      const [c, bytes] = this.ready[this.readyAt];
      this.ready[this.readyAt++] = undefined;
      this.waitingBytes -= bytes.length;
      this.decode(c, bytes);
      if (performance.now() - t >= ms) break;
    }
    if (this.readyAt === this.ready.length) {
      this.ready = [];
      this.readyAt = 0;
    }
  }

  /** Decodes a slice of the chunks waiting once the answers already due are taken, then goes on. */
  scheduleDecode() {
    if (this.decodeLater) return;
    this.decodeLater = true;
    afterEvents(() => {
      this.decodeLater = false;
      if (this.failed) return;
      if (!this.guard(() => this.decodeReady(this.moreToAsk() ? decodeSliceMs : Infinity))) return;
      const r = this.step();
      if (r !== undefined) this.stop(r);
    });
  }

  /** Queues chunk c's stored bytes for decoding (decodeReady). */
  toDecode(c, bytes) {
    this.ready.push([c, bytes]);
    this.waitingBytes += bytes.length;
  }

  /** Runs step again after answers came (once per turn). */
  wake() {
    if (this.woken || this.failed) return;
    this.woken = true;
    queueMicrotask(() => {
      this.woken = false;
      if (this.failed) return;
      const r = this.step();
      if (r !== undefined) this.stop(r);
    });
  }

  /** The store's answer to fetch f (or a promise of it), sharing a request in flight. */
  ask(f) {
    if (this.located) readStats.located++;
    if (f.data !== undefined) return Uint8Array.from(f.data); // (an inline chunk)
    const key = f.url !== undefined ? f.url : `/${f.key}`;
    const range = f.range;
    const id = range === null ? key : `${key}\0${range.suffix ?? `${range.offset}+${range.length}`}\0${f.ifMatch ?? ""}`;
    let shared = pending.get(this.store);
    const p = shared?.get(id);
    if (p) return p;
    let a;
    try {
      if (f.url !== undefined) {
        if (typeof this.readURL !== "function") throw FALLBACK;
        a = Promise.resolve(this.readURL(f.url, range, this.signal)).then((v) => checkedAnswer(f, v));
      } else if (range === null) {
        this.stats.get++;
        a = this.store.get(key, this.opts);
      } else {
        if (typeof this.store.getRange !== "function") throw FALLBACK; // (the engine reads ranges through get)
        this.stats.getRange++;
        const o = { ...this.opts, versioned: true };
        if (f.ifMatch) o.ifMatch = f.ifMatch;
        a = this.store.getRange(key, range.suffix !== undefined ? { suffixLength: range.suffix } : { offset: range.offset, length: range.length }, o);
      }
    } catch (e) {
      if (e === FALLBACK) throw e;
      throw FALLBACK;
    }
    const count = (v) => {
      const b = answerOf(v);
      if (b && b !== FALLBACK) this.stats.bytes += b.bytes.length;
      return v;
    };
    if (!thenable(a)) return count(a);
    const q = Promise.resolve(a).then(count);
    if (!shared) pending.set(this.store, (shared = new Map()));
    shared.set(id, q);
    const done = () => {
      if (shared.get(id) === q) shared.delete(id);
    };
    q.then(done, done);
    return q;
  }

  /** Takes fetch f's answer: places its chunks, or queues its shard's index for expansion. */
  took(f, v) {
    const a = answerOf(v);
    if (a === null) {
      if (this.located) throw FALLBACK; // (a located chunk's object or file is missing)
      return; // absent: the fill value stands
    }
    if (a === FALLBACK) throw FALLBACK;
    if (f.ifMatch && a.gen && a.gen !== f.ifMatch) throw FALLBACK; // (another version of the shard)
    const bytes = a.bytes;
    if (f.range !== null && f.range.length !== undefined && bytes.length !== f.range.length) throw FALLBACK;
    if (f.shard) {
      const s = f.shard;
      if (bytes.length < s.indexLength || (!s.whole && bytes.length !== s.indexLength)) throw FALLBACK;
      if (!s.whole) keepIndex(this.store, f.key, a.gen, bytes);
      this.shards.push({ f, bytes, gen: a.gen });
      return;
    }
    for (const c of f.chunks) this.toDecode(c, c.length < 0 ? bytes : bytes.subarray(c.offset, c.offset + c.length));
  }

  /** Has the engine list the inner chunks the shards waiting need (one call for all), and goes on with them. */
  expand() {
    const list = this.shards;
    this.shards = [];
    readStats.shards += list.length;
    let total = 0;
    for (const s of list) total += s.f.shard.indexLength;
    const indexes = new Uint8Array(total);
    let at = 0;
    const reqs = list.map(({ f, bytes, gen }) => {
      const s = f.shard;
      const index = !s.whole ? bytes : s.atEnd ? bytes.subarray(bytes.length - s.indexLength) : bytes.subarray(0, s.indexLength);
      indexes.set(index, at);
      at += index.length;
      return { shard: s, generation: gen, size: bytes.length };
    });
    const text = this.bridge.expandShards(this.id, JSON.stringify(reqs), indexes, this.host);
    if (typeof text !== "string") throw FALLBACK; // (a bad index: the engine's read reports it)
    const xs = JSON.parse(text);
    const more = [];
    for (let i = 0; i < xs.length; i++) {
      const bytes = list[i].bytes;
      for (const c of xs[i].chunks) this.toDecode(c, bytes.subarray(c.offset, c.offset + c.length));
      for (const f of xs[i].fetches) more.push(f);
    }
    if (more.length > 0) {
      // (the inner chunks' requests go before the shards not yet asked for)
      this.fetches = [...this.fetches.slice(0, this.next), ...more, ...this.fetches.slice(this.next)];
    }
  }

  /** Decodes chunk c (its stored bytes) where its step says and places it. */
  decode(c, bytes) {
    const size = this.chunkBytes(c);
    switch (c.decode) {
      case "raw":
        if (bytes.length !== size) throw FALLBACK; // (the engine reports it)
        this.place(c, bytes);
        readStats.decoded.raw++;
        return;
      case "engine":
        this.byEngine(c, bytes);
        return;
    }
    if (this.share?.take(c, bytes, size)) return;
    this.here(c, bytes, size);
  }

  /** Decodes chunk c on this thread with the decoders module (the engine decodes what it declines). */
  here(c, bytes, size) {
    if (decodeTo(c.decode, bytes, size, true, (chunk) => this.place(c, chunk)) === size) {
      readStats.decoded[c.decode]++;
      return;
    }
    readStats.declined++;
    this.byEngine(c, bytes);
  }

  /** Has the engine decode chunk c (its result, or its error: a CODEC error naming the key) and places it. */
  byEngine(c, bytes) {
    const name = c.inner ? "decodeInnerInPlace" : "decodeInPlace";
    const r = this.bridge[name](this.id, c.coords, bytes);
    if (!Array.isArray(r)) {
      // (a codec only the full build has: the engine's read moves the array there)
      if (r?.otherBuild) throw FALLBACK;
      throw toZarrError(r);
    }
    const mem = this.eng.memory;
    if (this.eng.dead) throw this.eng.dead;
    this.place(c, new Uint8Array(mem.buffer, r[0], r[1]));
    readStats.decoded.engine++;
  }

  /** Bytes chunk c decodes to. */
  chunkBytes(c) {
    let n = this.itemSize;
    for (const d of c.shape) n *= d;
    return n;
  }

  /** Copies chunk c's region from its decoded bytes into the result. */
  place(c, chunk) {
    scatter(this.out, this.full, chunk, c.shape, c.in, c.out, this.itemSize);
  }

  /** The read's result. */
  finish() {
    if (this.eng.dead) throw this.eng.dead;
    this.share?.end(false);
    readStats.finished++;
    const Typed = globalThis[this.plan.array];
    const shape = this.plan.shape;
    const stride = new Array(shape.length);
    for (let d = shape.length - 1, s = 1; d >= 0; d--) {
      stride[d] = s;
      s *= shape[d];
    }
    return { data: new Typed(this.buf), shape, stride };
  }
}
