// Reading a plate's wells for the overview with few requests. A well's
// picture is its first field's lowest-resolution level that fits its cell,
// read as one get() of every channel.
//
// The first well is opened as any image is (the well's and the field's
// metadata, every level): it is the template. Every other well then costs
// one round trip of about four requests sent together: the well's
// attributes (which field is its first), the level's array metadata and the
// level's chunks, the last two at the path the template predicts (same
// field name, same dataset path). A well's own metadata always decides:
// its array is opened from its own .zarray/zarr.json and read from its own
// chunks — a prediction that does not hold only wastes the requests made
// for it. The field's multiscales are not read again: a well whose field
// lacks the template's dataset path is read the long way (its image's own
// levels). Metadata a store has consolidated costs nothing, so there the
// template's way is used for every well.
import * as zarr from "zarr-wasm";
import { multiscalesOf, openPyramid, wellOf } from "./ome.js";
import { defaultIndex } from "./image.js";

const MAX_PREFETCH_CHUNKS = 64; // a well's chunks fetched before its metadata is known

/**
 * A store answering some keys from reads started early (prefetch) and
 * others as known absent; every other key goes to the base store.
 */
class PrefetchStore {
  constructor(base) {
    this.base = base;
    this.known = new Map(); // key → Promise<Uint8Array | undefined>
  }

  prefetch(keys, signal) {
    for (const k of keys) if (!this.known.has(k)) this.known.set(k, Promise.resolve(this.base.get(k, { signal })).catch(() => undefined));
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
 * Reads wells' pictures: read(wellPath, signal) resolves to {field, arr,
 * level, values: per channel Float64Array (ny × nx), ny, nx} or {field:
 * null} for a well without such a field. consolidated: the store answers
 * metadata without requests (then each well is opened the template's way).
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
  }

  async read(wellPath, signal) {
    const t = this.template;
    if (wellPath === t.first) return this.#readArray(this.level.arr, t.fieldPath, signal);
    if (this.consolidated) return this.#readOpened(wellPath, signal);
    const store = new PrefetchStore(this.store);
    const predicted = `${this.root}${wellPath}/${t.fieldPath}/${this.level.path}`;
    // The well's attributes, and what the template predicts, together.
    const attrsKey = `/${this.root}${wellPath}/${this.format === 3 ? "zarr.json" : ".zattrs"}`;
    store.prefetch([attrsKey], signal);
    const arrayMeta = this.format === 3 ? ["zarr.json"] : [".zarray"];
    store.prefetch(arrayMeta.map((k) => `/${predicted}/${k}`), signal);
    // The engine opening a v2 array asks for zarr.json (absent in v2) and
    // .zattrs (absent where the template's level has no attributes).
    if (this.format === 2) {
      store.absent([`/${predicted}/zarr.json`]);
      if (!Object.keys(this.level.arr.attrs ?? {}).length) store.absent([`/${predicted}/.zattrs`]);
    }
    const chunks = !this.level.arr.shards && this.level.arr.chunks ? chunksOf(this.sel, this.level.arr.shape, this.level.arr.chunks, MAX_PREFETCH_CHUNKS) : null;
    if (chunks) {
      const keys = await Promise.all(chunks.map((c) => this.level.arr.chunkKey(c)));
      const from = `/${this.root}${t.first}/${t.fieldPath}/${this.level.path}/`;
      store.prefetch(keys.filter((k) => k.startsWith(from)).map((k) => `/${predicted}/${k.slice(from.length)}`), signal);
    }
    const attrs = await store.get(attrsKey).then((b) => (b ? JSON.parse(new TextDecoder().decode(b)) : null));
    const wellAttrs = this.format === 3 ? attrs?.attributes ?? {} : attrs;
    const field = wellAttrs && firstField(wellAttrs, this.acquisition);
    if (field === null || field === undefined) return { field: null };
    if (field === t.fieldPath) {
      try {
        const arr = await zarr.open(store, { path: predicted, kind: "array", signal });
        return await this.#readArray(arr, field, signal);
      } catch (e) {
        if (e?.code !== "NOT_FOUND") throw e;
      }
    }
    return this.#readField(wellPath, field, signal);
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
    return { field, arr, ...(await readPlane(arr, this.template.image, signal)) };
  }
}

/**
 * One get() of a level's plane with every channel (planeSelection):
 * {values: per channel Float64Array (ny × nx, row-major), ny, nx}.
 */
export async function readPlane(arr, image, signal) {
  const nd = arr.shape.length;
  const sel = planeSelection(image, arr.shape);
  const res = await arr.get(sel, { signal });
  const ny = arr.shape[nd - 2];
  const nx = arr.shape[nd - 1];
  const cAxis = image.channelAxis >= 0 && image.channelAxis < nd ? image.channelAxis : -1;
  const nc = cAxis >= 0 ? arr.shape[cAxis] : 1;
  // The result keeps the dimensions read in full (channel, y, x) in order.
  const kept = sel.map((s, d) => (s === null ? d : -1)).filter((d) => d >= 0);
  const st = res.stride;
  const sc = cAxis >= 0 ? st[kept.indexOf(cAxis)] : 0;
  const sy = st[kept.indexOf(nd - 2)];
  const sx = st[kept.indexOf(nd - 1)];
  const data = res.data;
  const big = typeof data[0] === "bigint";
  const values = [];
  for (let c = 0; c < nc; c++) {
    const v = new Float64Array(ny * nx);
    for (let y = 0; y < ny; y++) {
      for (let x = 0; x < nx; x++) {
        const k = c * sc + y * sy + x * sx;
        v[y * nx + x] = big ? Number(data[k]) : data[k];
      }
    }
    values.push(v);
  }
  return { values, ny, nx };
}

/** The requests a store counts (the package's stores; a zip's are its file's), or null. */
export function requestsOf(store) {
  return store?.requests ?? store?.source?.requests ?? null;
}
