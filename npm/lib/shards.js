// Sharded reads on the calling thread: the part of lib/direct.js that runs a
// direct plan whose chunks are shards (plan.shard, from zarr's
// PlanDirectRead when the shards' inner chunks are placed straight from
// their stored bytes). It asks the store what the engine's read would, in
// the same requests, and places each inner chunk into the result itself:
//   - a shard the read covers whole: one get of the whole value, its index
//     taken from it (one value: one version);
//   - any other shard: its index (getRange, {versioned: true}), the inner
//     chunks it needs listed by the engine from the index bytes
//     (planRead(…, "parts"): zarr.Array.PlanShardParts, which parses and
//     checks the index as the engine's read does; one call for all the
//     shards whose index is at hand, as a call into the engine costs
//     more than planning a shard), then their byte ranges,
//     neighbours closer than 64 KiB merged into one request
//     (zarr.CoalesceGap), each read on condition that the shard is still
//     the version whose index was read ({ifMatch: generation}).
// Anything else — a store that throws or rejects, an answer that is not
// bytes, a shard that changed (the store answers {changed}, or another
// generation), a range of the wrong length, an index the engine rejects,
// an inner chunk the host decoder declines — hands the whole read to the
// engine, which starts over with its own result and reports what it finds
// (a CONFLICT after its retries, a CODEC error naming the shard, ...): the
// result returned is never made of two versions of a shard.
import { bridgeIfRunning } from "./runtime.js";
import { scatter } from "./scatter.js";
import { decodeTo } from "./codecs.js";
import { thenable } from "./plan.js";

/** zarr.CoalesceGap: the largest gap read through between two inner chunks' byte ranges. */
const coalesceGap = 64 << 10;

/** The stored bytes of shards (whole ones, or indexes) held for one call into the engine at most. */
const maxQueued = 32 << 20;

/** What this path did (tests count them): reads begun, reads it placed whole (not handed to the engine), shards, inner chunks. */
export const shardStats = { reads: 0, placed: 0, shards: 0, innerChunks: 0 };

/**
 * Requests of this path in flight, per store object: "key range ifMatch"
 * → promise of the answer. Concurrent reads share one (as the engine's
 * reads share an index's or an inner chunk's fetch).
 */
const pending = new WeakMap();

/** f(v), or a promise of it when v is a promise. */
const when = (v, f) => (thenable(v) ? Promise.resolve(v).then(f) : f(v));

/** A shard's answer: null (absent), false (not one the engine would take as it is), or {bytes, gen}. */
function versioned(a) {
  if (a === undefined || a === null) return null;
  if (a instanceof Uint8Array) return { bytes: a, gen: "" };
  if (typeof a !== "object") return false;
  if (a instanceof ArrayBuffer) return { bytes: new Uint8Array(a), gen: "" };
  if (ArrayBuffer.isView(a)) return { bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength), gen: "" };
  if (a.changed || a.notModified) return false;
  const gen = typeof a.generation === "string" ? a.generation : "";
  const d = a.data;
  if (d === undefined || d === null) return a.generation === undefined ? false : null;
  const inner = versioned(d);
  return inner && inner.gen === "" ? { bytes: inner.bytes, gen } : false;
}

/**
 * Runs the shards of plan into out: returns true (placed), false (the
 * engine reads it) or a promise of either.
 * @param {object} r {id, rp (the ReadPlan), out, store, opts, stats, limit,
 *   helper (lib/pooled.js shardHelper: a decode worker takes inner chunks, or null)}
 */
export function readShards(r) {
  const { id, rp, out, store, opts, stats, helper } = r;
  const plan = rp.plan;
  if (typeof store.getRange !== "function") return false;
  const keys = plan.keys;
  const n = keys.length;
  const full = plan.fullShape;
  const ndim = full.length;
  const g = plan.geometry;
  const per = 6 * ndim;
  const itemSize = plan.itemSize;
  const decoder = plan.direct === "raw" ? "" : plan.direct;
  const { indexSize, atEnd, inner } = plan.shard;
  let size = itemSize;
  for (const x of inner) size *= x;
  const vopts = { ...opts, versioned: true };
  const bridge = bridgeIfRunning();
  if (!bridge) return false;
  shardStats.reads++;

  /** Decodes inner chunk j of parts (its stored bytes src) into the result; false when declined. */
  const place = (parts, j, src) => {
    const at = j * (2 + per) + 2;
    shardStats.innerChunks++;
    if (helper?.give(parts.subarray(at, at + per), src)) return true;
    if (decoder === "") {
      if (src.length !== size) return false;
      scatter(out, full, src, parts, at, itemSize);
      return true;
    }
    return decodeTo(decoder, src, size, true, (chunk) => scatter(out, full, chunk, parts, at, itemSize)) === size;
  };
  let shared = pending.get(store);
  /** The answer of a request (id names it), or the pending promise of the same request another read made. */
  const request = (id, ask) => {
    const p = shared?.get(id);
    if (p) return p;
    const a = ask();
    const counted = (v) => {
      const b = versioned(v);
      if (b) stats.bytes += b.bytes.length;
      return v;
    };
    if (!thenable(a)) return counted(a);
    const q = Promise.resolve(a).then(counted);
    if (!shared) pending.set(store, (shared = new Map()));
    shared.set(id, q);
    const done = () => {
      if (shared.get(id) === q) shared.delete(id);
    };
    q.then(done, done);
    return q;
  };
  const getRange = (key, range, o) =>
    request(`${key}\0${range.suffixLength ?? `${range.offset}+${range.length}`}\0${o.ifMatch ?? ""}`, () => {
      stats.getRange++;
      return store.getRange(key, range, o);
    });
  const get = (key) =>
    request(`${key}\0whole`, () => {
      stats.get++;
      return store.get(key, opts);
    });
  const whole = (at) => {
    for (let d = 0; d < ndim; d++) {
      const k = at + ndim + 5 * d;
      const count = g[k + 4];
      if (g[k] !== 0 || count !== g[at + d] || (g[k + 1] !== 1 && count > 1)) return false;
    }
    return true;
  };

  /**
   * Shard i's index: an entry {i, index, bytes (the whole shard, when the
   * read covers it), gen}, true (absent: the fill value stands), false
   * (the engine reads it), or a promise of one of these.
   */
  const fetchIndex = (i) => {
    const key = keys[i];
    shardStats.shards++;
    if (whole(i * per)) {
      return when(get(key), (a) => {
        const v = versioned(a);
        if (v === null) return true;
        if (v === false) return false;
        const b = v.bytes;
        if (b.length < indexSize) return false;
        return { i, index: atEnd ? b.subarray(b.length - indexSize) : b.subarray(0, indexSize), bytes: b, gen: "" };
      });
    }
    const range = atEnd ? { suffixLength: indexSize } : { offset: 0, length: indexSize };
    return when(getRange(key, range, vopts), (a) => {
      const v = versioned(a);
      if (v === null) return true;
      if (v === false || v.bytes.length !== indexSize) return false;
      return { i, index: v.bytes, bytes: null, gen: v.gen };
    });
  };

  /**
   * The parts (2 + 6·ndim numbers per inner chunk) of every entry, from
   * one call into the engine; null when it rejects any index.
   */
  const partsOf = (entries) => {
    const head = new Float64Array(entries.length * 7 * ndim);
    const indexes = new Uint8Array(entries.length * indexSize);
    for (let s = 0; s < entries.length; s++) {
      const i = entries[s].i;
      head.set(plan.coords.subarray(i * ndim, (i + 1) * ndim), s * 7 * ndim);
      head.set(g.subarray(i * per, (i + 1) * per), s * 7 * ndim + ndim);
      indexes.set(entries[s].index, s * indexSize);
    }
    const p = bridge.planRead(id, new Uint8Array(head.buffer), entries.length, "parts", undefined, indexes);
    if (!(p instanceof Float64Array)) return null;
    const out = [];
    let at = 0;
    for (let s = 0; s < entries.length; s++) {
      const m = p[at];
      const end = at + 1 + m * (2 + per);
      if (!(m >= 0) || end > p.length) return null;
      out.push(p.subarray(at + 1, end));
      at = end;
    }
    return at === p.length ? out : null;
  };

  /** Places the inner chunks of entry e: true, false or a promise of either. */
  const placeShard = (e, parts) => {
    const m = parts.length / (2 + per);
    const b = e.bytes;
    if (b) {
      for (let j = 0; j < m; j++) {
        const off = parts[j * (2 + per)];
        const len = parts[j * (2 + per) + 1];
        if (off + len > b.length || !place(parts, j, b.subarray(off, off + len))) return false;
      }
      return true;
    }
    if (m === 0) return true;
    const key = keys[e.i];
    // Spans of neighbouring inner chunks, as the engine's fetchParts makes them.
    const order = Array.from({ length: m }, (_, j) => j).sort((x, y) => parts[x * (2 + per)] - parts[y * (2 + per)]);
    const spans = [];
    for (const j of order) {
      const off = parts[j * (2 + per)];
      const end = off + parts[j * (2 + per) + 1];
      const last = spans[spans.length - 1];
      if (last && off <= last.end + coalesceGap) {
        last.end = Math.max(last.end, end);
        last.parts.push(j);
      } else spans.push({ start: off, end, parts: [j] });
    }
    const gen = e.gen;
    const o = gen ? { ...vopts, ifMatch: gen } : vopts;
    const results = spans.map((sp) =>
      when(getRange(key, { offset: sp.start, length: sp.end - sp.start }, o), (a) => {
        const w = versioned(a);
        if (!w || (gen && w.gen && w.gen !== gen) || w.bytes.length !== sp.end - sp.start) return false;
        for (const j of sp.parts) {
          const off = parts[j * (2 + per)] - sp.start;
          if (!place(parts, j, w.bytes.subarray(off, off + parts[j * (2 + per) + 1]))) return false;
        }
        return true;
      }),
    );
    return results.some(thenable) ? Promise.all(results).then((rs) => rs.every(Boolean)) : results.every(Boolean);
  };

  // Shards answered at once are read here and now; the others wait, at
  // most `limit` of them at a time. Shards whose index is at hand queue
  // for one call into the engine (up to maxQueued bytes of them held).
  let next = 0;
  let running = 0;
  let failed = false;
  let finish = null;
  let queue = [];
  let queued = 0;
  /** Takes a step's outcome: true (done), false (the engine reads it), an entry to plan, or a promise of one of these. */
  const settle = (res) => {
    if (thenable(res)) {
      running++;
      res.then(
        (v) => {
          running--;
          settle(v);
          wake();
        },
        () => {
          running--;
          failed = true;
          wake();
        },
      );
    } else if (res === false) failed = true;
    else if (res !== true) {
      queue.push(res);
      queued += res.bytes ? res.bytes.length : indexSize;
    }
  };
  /** Runs what can run now: true or false when the read is over, else undefined. */
  const step = () => {
    while (!failed) {
      // Shards already planned first (a shard whose spans are pending
      // counts towards the limit as its index request did).
      if (queue.length > 0) {
        const entries = queue;
        queue = [];
        queued = 0;
        const parts = partsOf(entries);
        if (!parts) failed = true;
        else for (let s = 0; s < entries.length && !failed; s++) settle(placeShard(entries[s], parts[s]));
      }
      while (next < n && running < r.limit && !failed && queued < maxQueued) settle(fetchIndex(next++));
      if (queue.length === 0) break;
    }
    if (failed) return running === 0 ? false : undefined;
    return running === 0 && next >= n && queue.length === 0 ? true : undefined;
  };
  /** step, where anything it throws ends the read as failed (the engine reads it). */
  const guarded = () => {
    try {
      return step();
    } catch {
      failed = true;
      return running === 0 ? false : undefined;
    }
  };
  // Answers that arrive in one turn are planned together.
  let woken = false;
  const wake = () => {
    if (woken) return;
    woken = true;
    queueMicrotask(() => {
      woken = false;
      const end = guarded();
      if (end !== undefined) finish?.(end);
    });
  };
  // (the inner chunks the decode worker kept: placed once it answers)
  const done = (ok) => {
    if (!helper) return ok;
    return helper.finish(ok ? (geometry, src) => decodeTo(decoder, src, size, true, (chunk) => scatter(out, full, chunk, geometry, 0, itemSize)) === size : null);
  };
  const res = guarded();
  if (res !== undefined) {
    if (res) shardStats.placed++;
    return done(res);
  }
  return new Promise((resolve) => {
    let over = false;
    finish = (ok) => {
      if (over) return;
      over = true;
      if (ok) shardStats.placed++;
      resolve(done(ok));
    };
  });
}
