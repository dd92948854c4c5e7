// The decode worker's half of pooled reads (lib/pooled.js): for each chunk,
// decode the stored bytes and write the region the read needs into the
// result (a SharedArrayBuffer), or hand the decoded chunk back (transfer).
// A chain that is one compressor the package's decoder module decodes (the
// plan's decoder: libzstd, zlib, or its Blosc for Blosc chunks of zstd or
// zlib streams) is decoded in that module and scattered from its memory;
// anything else (and whatever the module declines) goes through this
// worker's copy of the engine (decodeChunk on the array opened again from
// its metadata document), which also reports corrupt chunks.
import { callBridge, bridge, bridgeIfRunning, engineMemory } from "./runtime.js";
import { toZarrError } from "./errors.js";
import { loadCodecs, decodeTo } from "./codecs.js";
import { scatter } from "./scatter.js";

/** The reads in progress, by id. */
const reads = new Map();
const encoder = new TextEncoder();
/** Arrays opened here (handle promises) by path and metadata document; the oldest go first. */
const opened = new Map();
const keepOpen = 16;

function openArray(r) {
  const key = `${r.metadataKey}\0${r.metadata}`;
  let id = opened.get(key);
  if (id) {
    opened.delete(key); // (to the end: recently used)
  } else {
    id = callBridge("open", new Map([[r.metadataKey, encoder.encode(r.metadata)]]), r.path, "array").then((info) => info.id);
    id.catch(() => opened.delete(key));
    if (opened.size >= keepOpen) {
      const [oldKey, old] = opened.entries().next().value;
      opened.delete(oldKey);
      old.then((h) => bridgeIfRunning()?.release(h), () => {});
    }
  }
  opened.set(key, id);
  return id;
}

// Chunks written into a shared result are reported together: those
// finished while the messages that arrived together are handled (Node's
// setImmediate runs once they are), at most 4 a message; elsewhere one
// message each.
let finished = [];
const later = globalThis.setImmediate;

/** A chunk this worker skipped: the calling thread took it back (decodeChunk resolves to it). */
const TAKEN = Symbol("taken");
let skipped = [];

function done(id, post, taken = false) {
  if (!later) return post({ type: "chunk-done", id, ok: true, taken });
  (taken ? skipped : finished).push(id);
  // (every 4 at least: the calling thread refills while this worker still
  // has chunks queued)
  if (finished.length + skipped.length >= 4) return flush(post);
  if (finished.length + skipped.length === 1) later(() => flush(post));
}

function flush(post) {
  if (finished.length + skipped.length === 0) return;
  const ids = finished;
  const taken = skipped;
  finished = [];
  skipped = [];
  post({ type: "chunks-done", ids, taken });
}

/** Handles a pooled-read message; false when m is not one. */
export function pooledMessage(m, post) {
  switch (m.type) {
    case "read":
      reads.set(m.read, { ...m, out: m.out ? new Uint8Array(m.out) : null, arena: m.arena ? new Uint8Array(m.arena) : null, claims: m.claims ? new Int32Array(m.claims) : null });
      return true;
    case "end":
      reads.delete(m.read);
      return true;
    case "chunks":
      for (const c of m.list) chunk(c, post);
      return true;
  }
  return false;
}

function chunk(m, post) {
  decodeChunk(m).then(
    (data) => {
      if (data === TAKEN) done(m.id, post, true);
      else if (data) post({ type: "chunk-done", id: m.id, ok: true, data }, [data.buffer]);
      else done(m.id, post);
    },
    () => post({ type: "chunk-done", id: m.id, ok: false }),
  );
}

/** Decodes one chunk: writes it into the shared result (resolves to null) or resolves to its bytes; TAKEN when the calling thread took it back. */
async function decodeChunk(m) {
  let r = reads.get(m.read);
  if (!r) throw new Error("no such read");
  const module = !!r.decoder && (await loadCodecs());
  // (claimed just before it is decoded, with no turn given up in between:
  // until then the calling thread may take it back, and then the stored
  // bytes in the arena are no longer this chunk's)
  r = reads.get(m.read);
  if (!r) throw new Error("no such read");
  if (r.claims && Atomics.compareExchange(r.claims, m.slot, 0, 1) !== 0) return TAKEN;
  // (the stored bytes: in the arena the calling thread shares, until this
  // worker answers; or in the message)
  const src = m.bytes ?? r.arena.subarray(m.at, m.at + m.length);
  const g = m.geometry;
  const ndim = r.fullShape.length;
  let expected = r.itemSize;
  for (let d = 0; d < ndim; d++) expected *= g[d];
  // (owned: bytes of their own, which can be transferred as they are)
  const place = (bytes, owned) => {
    if (bytes.length !== expected) throw new Error("decoded size differs");
    if (r.out) {
      scatter(r.out, r.fullShape, bytes, g, 0, r.itemSize);
      return null;
    }
    return owned && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
  };
  // (decoded in the module's memory and scattered from there; what the
  // module declines, the engine decodes and reports)
  if (module) {
    let out = null;
    if (decodeTo(r.decoder, src, expected, true, (bytes) => (out = place(bytes, false))) === expected) return out;
  }
  // (an inner chunk of a shard the calling thread reads: its read goes to
  // the engine)
  if (r.moduleOnly) throw new Error("declined");
  const id = await openArray(r);
  // Decoded in the engine's memory and copied from there (a synchronous
  // call: nothing runs in the engine before the copy).
  const b = await bridge();
  const res = b.decodeChunkInPlace(id, m.coords, m.bytes ?? src.slice());
  if (!Array.isArray(res)) {
    opened.delete(`${r.metadataKey}\0${r.metadata}`); // (opened again next time: the engine may have restarted)
    throw toZarrError(res);
  }
  const mem = engineMemory();
  if (!mem) throw new Error("the engine stopped");
  return place(new Uint8Array(mem.buffer, res[0], res[1]));
}
