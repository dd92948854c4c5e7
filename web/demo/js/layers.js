// What the slice view reads from: a layer is an image (or a label image)
// with its resolution levels. Each level is an array whose pixels span
// `factors` level-0 image pixels per image dimension; dimOf maps an image
// dimension to the array's (a label image may lack the channel axis).
// Tiles are positioned in level-0 image pixels; a tile read with stride s
// comes from the coarsest level whose factors divide s, so it holds
// exactly the pixels the stride keeps.
import * as zarr from "zarr-wasm";
import { readChunkShape } from "./arrays.js";

export class Layer {
  /**
   * @param {{arr: any, factors: number[]}[]} levels level 0 first; factors per image dimension
   * @param {number[]} dimOf for each image dimension, the arrays' dimension (-1: none)
   */
  constructor(levels, dimOf) {
    this.levels = levels.map((l) => ({ ...l, chunks: readChunkShape(l.arr) }));
    this.dimOf = dimOf;
    this.arr = levels[0].arr;
  }

  /** The image's own layer: its array and pyramid levels. */
  static image(arr, pyramid = []) {
    const ones = arr.shape.map(() => 1);
    const levels = [{ arr, factors: ones }, ...pyramid.filter((p) => p.arr !== arr && p.factors.length === arr.shape.length)];
    return new Layer(levels, arr.shape.map((_, d) => d));
  }

  /**
   * A layer whose levels are arrays of another image over the same field
   * (a label image): dimensions matched by axis name, factors from the
   * shapes against the image's level 0. Null when y or x has no match.
   */
  static matched(imageShape, imageNames, levels, names, { ydim, xdim }) {
    const dimOf = imageNames.map((n) => names.indexOf(n));
    if (dimOf[ydim] < 0 || dimOf[xdim] < 0) return null;
    const withFactors = levels.map((arr) => ({
      arr,
      factors: imageShape.map((s, d) => (dimOf[d] < 0 ? 1 : Math.max(1, Math.round(s / Math.max(1, arr.shape[dimOf[d]]))))),
    }));
    return new Layer(withFactors, dimOf);
  }

  /** The level reads with stride s come from (see the file comment), and its index. */
  source(s, ydim, xdim) {
    let best = 0;
    this.levels.forEach((p, k) => {
      const fy = p.factors[ydim];
      const fx = p.factors[xdim];
      const b = this.levels[best];
      if (s % fy || s % fx || fy * fx <= b.factors[ydim] * b.factors[xdim]) return;
      best = k;
    });
    return { level: best, ...this.levels[best] };
  }

  /** Chunk extent of a level along image dimension d, in level-0 image pixels. */
  chunkSpan(level, d) {
    const a = this.dimOf[d];
    return a < 0 ? 1 : (level.chunks[a] || 1) * level.factors[d];
  }

  /**
   * The selection that reads tile {y0, y1, x0, x1, s} (level-0 image pixels,
   * stride s) from level, at the image index `index` for the other
   * dimensions.
   */
  selection(level, tile, index, ydim, xdim) {
    const { arr, factors } = level;
    const sel = arr.shape.map(() => 0);
    const within = (v, d) => Math.min(arr.shape[this.dimOf[d]], Math.ceil(v / factors[d]));
    index.forEach((v, d) => {
      const a = this.dimOf[d];
      if (a < 0) return;
      if (d === ydim) sel[a] = zarr.slice(tile.y0 / factors[d], within(tile.y1, d), tile.s / factors[d]);
      else if (d === xdim) sel[a] = zarr.slice(tile.x0 / factors[d], within(tile.x1, d), tile.s / factors[d]);
      else sel[a] = Math.min(arr.shape[a] - 1, Math.floor(v / factors[d]));
    });
    return sel;
  }

  /** Whether the rows of a read come before its columns (the arrays' order of y and x). */
  rowsFirst(ydim, xdim) {
    return this.dimOf[ydim] < this.dimOf[xdim];
  }
}

/**
 * A get() result of a tile as row-major numbers (ny × nx, NaN where a
 * pyramid level ends short), the magnitude of complex values; raw keeps
 * the result for reading exact values back.
 */
export function tileValues(res, ny, nx, rowsFirst, complex) {
  const [s0, s1] = res.stride;
  const sy = rowsFirst ? s0 : s1;
  const sx = rowsFirst ? s1 : s0;
  const hy = Math.min(ny, res.shape[rowsFirst ? 0 : 1]);
  const hx = Math.min(nx, res.shape[rowsFirst ? 1 : 0]);
  const data = res.data;
  const items = complex ? 2 : 1;
  const v = new Float64Array(ny * nx);
  if (hy < ny || hx < nx) v.fill(NaN);
  if (!complex && typeof data[0] !== "bigint" && sx === 1 && sy === nx && hx === nx) {
    v.set(data.subarray(0, hy * nx)); // already row-major: one copy
  } else {
    const big = typeof data[0] === "bigint";
    for (let iy = 0; iy < hy; iy++) {
      for (let ix = 0; ix < hx; ix++) {
        const k = (iy * sy + ix * sx) * items;
        v[iy * nx + ix] = items === 2 ? Math.hypot(data[k], data[k + 1]) : big ? Number(data[k]) : data[k];
      }
    }
  }
  return { values: v, raw: { data, sy, sx, items, hy, hx } };
}
