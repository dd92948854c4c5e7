// Pixels from values: one array through a colormap, channels added in
// their colours (an OME-Zarr composite), and label images in their
// colours. Each fills an RGBA buffer (ImageData.data) for n values, four
// bytes at a time (a 1024² frame is a million pixels per slider step).
import { table } from "./colormaps.js";
import { labelColor } from "./ome.js";

/** The buffer as 32-bit pixels (RGBA in memory order: little-endian ABGR words). */
function words(px) {
  return new Uint32Array(px.buffer, px.byteOffset, px.byteLength >> 2);
}

const pack = (r, g, b, a = 255) => ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;

/**
 * values through a colormap: entry round(255·(v-lo)/(hi-lo)), clamped; NaN
 * transparent (the checker behind shows).
 */
export function paintColormap(values, px, { cmap, reversed, lo, hi }) {
  const tab = table(cmap, reversed);
  const lut = new Uint32Array(256);
  for (let j = 0; j < 256; j++) lut[j] = pack(tab[3 * j], tab[3 * j + 1], tab[3 * j + 2]);
  const out = words(px);
  const scale = hi > lo ? 255 / (hi - lo) : 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (x !== x) {
      out[i] = 0;
      continue;
    }
    const f = scale ? (x - lo) * scale : x > lo ? 255 : 0;
    out[i] = lut[f <= 0 ? 0 : f >= 255 ? 255 : (f + 0.5) | 0];
  }
}

/**
 * An additive composite: each channel {values, color: [r, g, b], lo, hi}
 * adds color·t, t = clamp((v-lo)/(hi-lo), 0, 1) (1 - t when inverted);
 * each component is rounded and capped at 255. A pixel NaN in every
 * channel is transparent; NaN in one channel adds nothing.
 */
export function paintComposite(channels, n, px) {
  if (channels.length === 1 && !channels[0].inverted) return paintOne(channels[0], n, px);
  const k = channels.length;
  const vals = channels.map((c) => c.values);
  const lo = Float64Array.from(channels, (c) => c.lo);
  const sc = Float64Array.from(channels, (c) => (c.hi > c.lo ? 1 / (c.hi - c.lo) : 0));
  const inv = Uint8Array.from(channels, (c) => (c.inverted ? 1 : 0));
  const cr = Float64Array.from(channels, (c) => c.color[0]);
  const cg = Float64Array.from(channels, (c) => c.color[1]);
  const cb = Float64Array.from(channels, (c) => c.color[2]);
  const out = words(px);
  for (let i = 0; i < n; i++) {
    let r = 0;
    let g = 0;
    let b = 0;
    let any = false;
    for (let c = 0; c < k; c++) {
      const x = vals[c][i];
      if (x !== x) continue;
      any = true;
      let t = sc[c] ? (x - lo[c]) * sc[c] : x > lo[c] ? 1 : 0;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      if (inv[c]) t = 1 - t;
      r += cr[c] * t;
      g += cg[c] * t;
      b += cb[c] * t;
    }
    if (!any) {
      out[i] = 0;
      continue;
    }
    r = r >= 254.5 ? 255 : (r + 0.5) | 0;
    g = g >= 254.5 ? 255 : (g + 0.5) | 0;
    b = b >= 254.5 ? 255 : (b + 0.5) | 0;
    out[i] = ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
  }
}

/** paintComposite for one channel: its colour scaled by t. */
function paintOne({ values, color, lo, hi }, n, px) {
  const out = words(px);
  const sc = hi > lo ? 1 / (hi - lo) : 0;
  const [cr, cg, cb] = color;
  for (let i = 0; i < n; i++) {
    const x = values[i];
    if (x !== x) {
      out[i] = 0;
      continue;
    }
    let t = sc ? (x - lo) * sc : x > lo ? 1 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    out[i] = ((255 << 24) | (((cb * t + 0.5) | 0) << 16) | (((cg * t + 0.5) | 0) << 8) | ((cr * t + 0.5) | 0)) >>> 0;
  }
}

/**
 * Labels: value 0 (and NaN) is background, transparent; a listed value
 * takes its rgba, any other a colour of its own (ome.js labelColor).
 */
export function paintLabels(values, px, colors) {
  const out = words(px);
  let last = NaN;
  let word = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === 0 || v !== v) {
      out[i] = 0;
      continue;
    }
    if (v !== last) {
      const c = colors?.get(v) ?? labelColor(v);
      word = pack(c[0], c[1], c[2], c[3]);
      last = v;
    }
    out[i] = word;
  }
}
