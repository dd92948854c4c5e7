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
//     checks the index as the engine's read does), then their byte ranges,
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

/** zarr.CoalesceGap: the largest gap read through between two inner chunks' byte ranges. */
const coalesceGap = 64 << 10;

/** What this path did (tests count them): reads begun, reads it placed whole (not handed to the engine), shards, inner chunks. */
export const shardStats = { reads: 0, placed: 0, shards: 0, innerChunks: 0 };

/**
 * Requests of this path in flight, per store object: "key range ifMatch"
 * → promise of the answer. Concurrent reads share one (as the engine's
 * reads share an index's or an inner chunk's fetch).
 */
const pending = new WeakMap();

const thenable = (v) => v !== null && typeof v === "object" && typeof v.then === "function";

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
 * @param {object} r {id, rp (the ReadPlan), out, store, opts, stats, limit}
 */
export function readShards(r) {
  const { id, rp, out, store, opts, stats } = r;
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

  /** The inner chunks shard i needs (2 + 6·ndim numbers each), or null. */
  const partsOf = (i, index) => {
    const p = bridge.planRead(id, rp.coords(i), undefined, "parts", rp.geometry(i), index);
    return p instanceof Float64Array ? p : null;
  };
  /** Decodes inner chunk j of parts (its stored bytes src) into the result; false when declined. */
  const place = (parts, j, src) => {
    const at = j * (2 + per) + 2;
    shardStats.innerChunks++;
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

  /** Reads shard i: true, false or a promise of either. */
  const shard = (i) => {
    const key = keys[i];
    shardStats.shards++;
    if (whole(i * per)) {
      return when(get(key), (a) => {
        const v = versioned(a);
        if (v === null) return true; // the fill value stands
        if (v === false) return false;
        const b = v.bytes;
        if (b.length < indexSize) return false;
        const parts = partsOf(i, atEnd ? b.subarray(b.length - indexSize) : b.subarray(0, indexSize));
        if (!parts) return false;
        for (let j = 0, m = parts.length / (2 + per); j < m; j++) {
          const off = parts[j * (2 + per)];
          const len = parts[j * (2 + per) + 1];
          if (off + len > b.length || !place(parts, j, b.subarray(off, off + len))) return false;
        }
        return true;
      });
    }
    const range = atEnd ? { suffixLength: indexSize } : { offset: 0, length: indexSize };
    return when(getRange(key, range, vopts), (a) => {
      const v = versioned(a);
      if (v === null) return true;
      if (v === false || v.bytes.length !== indexSize) return false;
      const parts = partsOf(i, v.bytes);
      if (!parts) return false;
      const m = parts.length / (2 + per);
      if (m === 0) return true;
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
      const o = v.gen ? { ...vopts, ifMatch: v.gen } : vopts;
      const results = spans.map((sp) =>
        when(getRange(key, { offset: sp.start, length: sp.end - sp.start }, o), (a) => {
          const w = versioned(a);
          if (!w || (v.gen && w.gen && w.gen !== v.gen) || w.bytes.length !== sp.end - sp.start) return false;
          for (const j of sp.parts) {
            const off = parts[j * (2 + per)] - sp.start;
            if (!place(parts, j, w.bytes.subarray(off, off + parts[j * (2 + per) + 1]))) return false;
          }
          return true;
        }),
      );
      return results.some(thenable) ? Promise.all(results).then((rs) => rs.every(Boolean)) : results.every(Boolean);
    });
  };

  // Shards answered at once are read here and now; the others wait, at
  // most `limit` of them at a time.
  let next = 0;
  let running = 0;
  let failed = false;
  let finish = null;
  const pump = () => {
    while (next < n && running < r.limit && !failed) {
      const res = shard(next++);
      if (thenable(res)) {
        running++;
        res.then(
          (ok) => {
            running--;
            if (!ok) failed = true;
            let end;
            try {
              end = pump();
            } catch {
              failed = true;
              end = running === 0 ? false : undefined;
            }
            if (end !== undefined) finish?.(!failed);
          },
          () => {
            running--;
            failed = true;
            if (running === 0) finish?.(false);
          },
        );
      } else if (!res) failed = true;
    }
    if (failed) return running === 0 ? false : undefined;
    return running === 0 && next >= n ? true : undefined;
  };
  let res;
  try {
    res = pump();
  } catch {
    return false;
  }
  if (res !== undefined) {
    if (res) shardStats.placed++;
    return res;
  }
  return new Promise((resolve) => {
    let over = false;
    finish = (ok) => {
      if (over) return;
      over = true;
      if (ok) shardStats.placed++;
      resolve(ok);
    };
  });
}
