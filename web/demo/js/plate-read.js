// Reading a plate's wells for the overview with few requests. A well's
// picture is its first field's lowest-resolution level that fits its cell,
// every channel of one plane.
//
// The first well is opened as any image is (the well's and the field's
// metadata, every level): it is the template. Every other well then costs
// one round trip of about four requests sent together: the well's
// attributes (which field is its first), the level's array metadata and the
// level's chunks, the last two at the path the template predicts (same
// field name, same dataset path). A well's own metadata always decides:
// when its array's metadata document is the template level's (the same
// shape, chunks, data type, codecs), the array is the template's array at
// another path, so its chunks are decoded with the template's array
// (decodeChunk: one engine call a chunk, no open); otherwise its array is
// opened from its own metadata and read; a prediction that does not hold
// only wastes the requests made for it. The field's multiscales are not
// read again: a well whose field lacks the template's dataset path is read
// the long way (its image's own levels). Metadata a store has consolidated
// costs nothing, so there the template's way is used for every well.
import * as zarr from "zarr-wasm";
import { multiscalesOf, openPyramid, wellOf } from "./ome.js";
import { defaultIndex } from "./image.js";

const MAX_PREFETCH_CHUNKS = 64; // a well's chunks fetched before its metadata is known

/**
 * A store answering some keys from reads started early (prefetch) and
 * others as known absent; every other key goes to the base store. A read
 * that failed fails again when asked for (never taken for an absent key).
 */
class PrefetchStore {
  constructor(base) {
    this.base = base;
    this.known = new Map(); // key → Promise<Uint8Array | undefined>
  }

  /** Starts reading keys; resolves to their answers (in order). */
  prefetch(keys, signal) {
    return keys.map((k) => {
      if (!this.known.has(k)) {
        let p;
        try {
          p = Promise.resolve(this.base.get(k, { signal }));
        } catch (e) {
          p = Promise.reject(e);
        }
        p.catch(() => {}); // (reported when asked for)
        this.known.set(k, p);
      }
      return this.known.get(k);
    });
  }

  absent(keys) {
    for (const k of keys) this.known.set(k, Promise.resolve(undefined));
  }

  get(key, options) {
    const hit = this.known.get(key);
    if (hit) return hit;
    return this.base.get(key, options?.signal ? { signal: options.signal } : undefined);
  }
}

/** The first field of a well (of an acquisition, when given): its path, or null. */
export function firstField(wellAttrs, acquisition) {
  const w = wellOf(wellAttrs);
  if (!w) return null;
  const img = acquisition === undefined || acquisition === null ? w.images[0] : w.images.find((i) => i.acquisition === acquisition) ?? null;
  return img?.path ?? null;
}

/**
 * The selection that reads a whole level plane with every channel: the
 * channel axis and the last two (y, x) in full, the others where the image
 * view starts (omero's defaultT and defaultZ, else 0; image.js).
 */
export function planeSelection(image, shape) {
  const nd = shape.length;
  return defaultIndex(image, shape).map((v, d) => (d === image.channelAxis || d >= nd - 2 ? null : v));
}

/** Chunk coordinates a selection touches (null: the whole dimension), or null when more than max. */
function chunksOf(sel, shape, chunks, max) {
  let out = [[]];
  for (let d = 0; d < shape.length; d++) {
    const c = chunks[d] || shape[d];
    const range = sel[d] === null ? [0, Math.ceil(shape[d] / c)] : [Math.floor(sel[d] / c), Math.floor(sel[d] / c) + 1];
    const next = [];
    for (const p of out) for (let i = range[0]; i < range[1]; i++) next.push([...p, i]);
    if (next.length > max) return null;
    out = next;
  }
  return out;
}

/**
 * Opens the template: the plate's first well (with a field of the
 * acquisition) and that field's image. Returns {fieldPath, image (ome.js
 * describeImage), levels [{arr, factors, path}], first: the well's path},
 * or null when no listed well has such a field.
 */
export async function openTemplate(plateNode, plate, acquisition, signal) {
  for (const well of plate.wells) {
    let wellNode;
    try {
      wellNode = await plateNode.open(well.path, { kind: "group", signal });
    } catch (e) {
      if (e?.code === "NOT_FOUND") continue;
      throw e;
    }
    const field = firstField(wellNode.attrs, acquisition);
    if (field === null) continue;
    const img = await wellNode.open(field, { kind: "group", signal });
    const ms = multiscalesOf(img);
    if (!ms) continue;
    const { levels, image } = await openPyramid(img, ms);
    return { fieldPath: field, image, levels, first: well.path, node: img };
  }
  return null;
}

/**
 * The level of the template whose y and x extent best fit a cell of
 * cellPx device pixels: the lowest resolution at least that large, else
 * the finest level.
 */
export function levelFor(template, cellPx) {
  const { levels } = template;
  const size = (l) => Math.max(l.arr.shape[l.arr.shape.length - 2], l.arr.shape[l.arr.shape.length - 1]);
  let best = 0;
  levels.forEach((l, k) => {
    if (size(l) >= cellPx && size(l) < size(levels[best])) best = k;
  });
  return best;
}

/**
 * Reads wells' pictures: read(wellPath, signal) resolves to {field,
 * values: per channel typed array (ny × nx), ny, nx} or {field: null} for a
 * well without such a field. consolidated: the store answers metadata
 * without requests (then each well is opened the template's way).
 * counts: wells whose chunks were decoded with the template's array, and
 * wells read through an array opened for them (the template's included).
 */
export class WellReader {
  constructor(plateNode, template, level, acquisition, { consolidated = false } = {}) {
    this.plateNode = plateNode;
    this.root = plateNode.path ? `${plateNode.path}/` : "";
    this.store = plateNode.store;
    this.format = plateNode.zarrFormat === 3 ? 3 : 2;
    this.template = template;
    this.levelIndex = level;
    this.level = template.levels[level];
    this.acquisition = acquisition;
    this.consolidated = consolidated;
    this.sel = planeSelection(template.image, this.level.arr.shape);
    this.counts = { decoded: 0, opened: 0 };
    // The level's metadata document, to compare each well's with.
    this.metadata = canonicalJSON(this.level.arr.metadata);
    // The chunks a plane touches (none for a sharded level: read through
    // the engine) and their keys under the level's path, asked once.
    const arr = this.level.arr;
    this.chunkCoords = !arr.shards && arr.chunks ? chunksOf(this.sel, arr.shape, arr.chunks, MAX_PREFETCH_CHUNKS) : null;
    this.chunkKeys = null; // Promise<string[] | null>
  }

  /** The chunks' keys relative to the level's path (null when one lies elsewhere). */
  #chunkKeys() {
    this.chunkKeys ??= (async () => {
      if (!this.chunkCoords) return null;
      const t = this.template;
      const from = `/${this.root}${t.first}/${t.fieldPath}/${this.level.path}/`;
      const keys = await Promise.all(this.chunkCoords.map((c) => this.level.arr.chunkKey(c)));
      return keys.every((k) => k.startsWith(from)) ? keys.map((k) => k.slice(from.length)) : null;
    })();
    return this.chunkKeys;
  }

  async read(wellPath, signal) {
    const t = this.template;
    if (wellPath === t.first) return this.#readArray(this.level.arr, t.fieldPath, signal);
    if (this.consolidated) return this.#readOpened(wellPath, signal);
    const store = new PrefetchStore(this.store);
    const predicted = `${this.root}${wellPath}/${t.fieldPath}/${this.level.path}`;
    // The well's attributes, and what the template predicts, together.
    const attrsKey = `/${this.root}${wellPath}/${this.format === 3 ? "zarr.json" : ".zattrs"}`;
    const metaKey = `/${predicted}/${this.format === 3 ? "zarr.json" : ".zarray"}`;
    const [attrsBytes, metaBytes] = store.prefetch([attrsKey, metaKey], signal);
    const rel = await this.#chunkKeys();
    const chunks = rel ? store.prefetch(rel.map((k) => `/${predicted}/${k}`), signal) : null;
    const attrs = parseJSON(await attrsBytes, attrsKey);
    const wellAttrs = this.format === 3 ? attrs?.attributes ?? {} : attrs;
    const field = wellAttrs && firstField(wellAttrs, this.acquisition);
    if (field === null || field === undefined) return { field: null };
    if (field !== t.fieldPath) return this.#readField(wellPath, field, signal);
    const meta = await metaBytes;
    if (meta === undefined) return this.#readField(wellPath, field, signal);
    // The template's array at another path: its chunks decoded as the template's.
    if (chunks && canonicalJSON(parseJSON(meta, metaKey)) === this.metadata) {
      const stored = await Promise.all(chunks);
      if (stored.every((b) => b !== undefined)) {
        const blocks = await Promise.all(stored.map((b, i) => this.level.arr.decodeChunk(this.chunkCoords[i], b)));
        this.counts.decoded++;
        return { field, ...planesOf(this.level.arr.shape, this.sel, this.template.image, blocks.map((b, i) => ({ block: b, origin: this.chunkCoords[i].map((c, d) => c * this.level.arr.chunks[d]) }))) };
      }
    }
    // Otherwise opened from its own metadata (the engine fills absent chunks).
    // The engine opening a v2 array asks for zarr.json (absent in v2) and
    // .zattrs (absent where the template's level has no attributes).
    if (this.format === 2) {
      store.absent([`/${predicted}/zarr.json`]);
      if (!Object.keys(this.level.arr.attrs ?? {}).length) store.absent([`/${predicted}/.zattrs`]);
    }
    const arr = await zarr.open(store, { path: predicted, kind: "array", signal });
    return this.#readArray(arr, field, signal);
  }

  /** The template's way: the well's group and its field, opened through the engine. */
  async #readOpened(wellPath, signal) {
    const well = await this.plateNode.open(wellPath, { kind: "group", signal });
    const field = firstField(well.attrs, this.acquisition);
    if (field === null) return { field: null };
    if (field === this.template.fieldPath) {
      try {
        const arr = await well.open(`${field}/${this.level.path}`, { kind: "array", signal });
        return await this.#readArray(arr, field, signal);
      } catch (e) {
        if (e?.code !== "NOT_FOUND") throw e;
      }
    }
    return this.#readField(wellPath, field, signal);
  }

  /** The long way: the field's own multiscales, the level nearest the template's size. */
  async #readField(wellPath, field, signal) {
    const img = await this.plateNode.open(`${wellPath}/${field}`, { kind: "group", signal });
    const ms = multiscalesOf(img);
    if (!ms) return { field: null };
    const { levels } = await openPyramid(img, ms);
    const want = this.level.arr.shape.at(-1);
    let best = levels[0];
    for (const l of levels) if (Math.abs(l.arr.shape.at(-1) - want) < Math.abs(best.arr.shape.at(-1) - want)) best = l;
    return this.#readArray(best.arr, field, signal);
  }

  async #readArray(arr, field, signal) {
    this.counts.opened++;
    return { field, ...(await readPlane(arr, this.template.image, signal)) };
  }
}

/** A JSON document's bytes parsed (undefined: absent); bad JSON is the store's error, naming the key. */
function parseJSON(bytes, key) {
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new zarr.ZarrError("INVALID_METADATA", `${key}: not JSON (${e.message})`, { where: key });
  }
}

/** JSON with every object's keys sorted: two documents are the same when these are equal. */
function canonicalJSON(v) {
  return JSON.stringify(v, (_, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));
}

/**
 * One get() of a level's plane with every channel (planeSelection):
 * {values: per channel typed array (ny × nx, row-major), ny, nx}.
 */
export async function readPlane(arr, image, signal) {
  const sel = planeSelection(image, arr.shape);
  const res = await arr.get(sel, { signal });
  // The result keeps the dimensions read in full (channel, y, x) in order:
  // as a block of every dimension, the others one long at their index.
  let k = 0;
  const shape = sel.map((s) => (s === null ? res.shape[k++] : 1));
  k = 0;
  const stride = sel.map((s) => (s === null ? res.stride[k++] : 0));
  return planesOf(arr.shape, sel, image, [{ block: { data: res.data, shape, stride }, origin: sel.map((s) => s ?? 0) }]);
}

/**
 * The planes of selection sel (planeSelection) of an array of this shape,
 * from blocks of it ({block: {data, shape, stride} over every dimension,
 * origin: its first element's index}: a decoded chunk, or a get() result):
 * {values: per channel typed array (the blocks' type; Float64Array for
 * 64-bit integers), ny, nx}.
 */
function planesOf(shape, sel, image, blocks) {
  const nd = shape.length;
  const ny = shape[nd - 2];
  const nx = shape[nd - 1];
  const cAxis = image.channelAxis >= 0 && image.channelAxis < nd ? image.channelAxis : -1;
  const nc = cAxis >= 0 ? shape[cAxis] : 1;
  const data0 = blocks[0]?.block.data;
  const big = typeof data0?.[0] === "bigint";
  const Type = big || !data0 ? Float64Array : data0.constructor;
  const values = Array.from({ length: nc }, () => new Type(ny * nx));
  for (const { block, origin } of blocks) {
    // Where the block meets the selection, per dimension: [lo, hi) in the array.
    const lo = [];
    const hi = [];
    for (let d = 0; d < nd; d++) {
      const [s0, s1] = sel[d] === null ? [0, shape[d]] : [sel[d], sel[d] + 1];
      lo.push(Math.max(s0, origin[d]));
      hi.push(Math.min(s1, origin[d] + block.shape[d]));
      if (lo[d] >= hi[d]) break;
    }
    if (lo.length < nd || lo[nd - 1] >= hi[nd - 1]) continue;
    let base = 0;
    for (let d = 0; d < nd; d++) if (d !== cAxis && d < nd - 2) base += (lo[d] - origin[d]) * block.stride[d];
    const { data, stride } = block;
    const sx = stride[nd - 1];
    const [c0, c1] = cAxis >= 0 ? [lo[cAxis], hi[cAxis]] : [0, 1];
    for (let c = c0; c < c1; c++) {
      const v = values[c];
      const cb = base + (cAxis >= 0 ? (c - origin[cAxis]) * stride[cAxis] : 0);
      for (let y = lo[nd - 2]; y < hi[nd - 2]; y++) {
        const from = cb + (y - origin[nd - 2]) * stride[nd - 2] + (lo[nd - 1] - origin[nd - 1]) * sx;
        const to = y * nx + lo[nd - 1];
        const n = hi[nd - 1] - lo[nd - 1];
        if (sx === 1 && !big) v.set(data.subarray(from, from + n), to);
        else for (let x = 0; x < n; x++) v[to + x] = big ? Number(data[from + x * sx]) : data[from + x * sx];
      }
    }
  }
  return { values, ny, nx };
}

/** The requests a store counts (the package's stores; a zip's are its file's), or null. */
export function requestsOf(store) {
  return store?.requests ?? store?.source?.requests ?? null;
}
