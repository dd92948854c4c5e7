// The 2D slice view: a canvas showing two dimensions of an array (the
// others fixed by index), read in tiles through the zarr-wasm package.
//
// Reads stay bounded. The visible part of the slice is cut into tiles whose
// edges fall on chunk edges; a tile at level L is a strided read (step
// s = 2^L) chosen so that one data sample covers about one screen pixel, so
// zooming out reads fewer samples, never more than the canvas can show. If
// even that would touch too many chunks (huge arrays with small chunks and
// no pyramid), the stride grows until the chunk count fits a budget. Tiles
// are kept in a bounded LRU cache; tiles no longer needed are aborted.
import * as zarr from "zarr-wasm";
import { table } from "./colormaps.js";
import { isBool, numericKind, readChunkShape } from "./arrays.js";
import { summarize } from "./stats.js";

const TILE_CACHE_BYTES = 256 << 20;
const MAX_TILE_READS = 6;
const CHUNK_BUDGET = 1024; // chunks one view may touch
const MAX_CHUNK_BYTES = 512 << 20; // refuse arrays whose single chunk is larger

// Tile edge (in samples) for a dimension with chunk size c: one chunk when
// chunks are 128..1024 long, so a tile at full resolution reads exactly the
// chunks it covers; several small chunks together; big chunks in parts.
function tileBase(c) {
  if (!(c > 0)) return 256;
  if (c < 128) return c * Math.ceil(128 / c);
  if (c <= 1024) return c;
  return 512;
}

export class SliceView {
  /**
   * @param {HTMLElement} host element the canvas fills
   * @param {{onHover?: Function, onProgress?: Function, onStats?: Function,
   *   onAutoContrast?: Function, onError?: Function, onView?: Function,
   *   onPending?: Function, onRendered?: Function}} cb
   */
  constructor(host, cb = {}) {
    this.host = host;
    this.cb = cb;
    this.canvas = document.createElement("canvas");
    this.canvas.className = "view-canvas";
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute("aria-label", "array slice; drag to pan, scroll to zoom");
    host.appendChild(this.canvas);
    this.ctx = this.canvas.getContext("2d");
    this.cw = 1;
    this.ch = 1;
    this.dpr = 1;
    /** @type {Map<string, any>} LRU: insertion order, refreshed on use */
    this.tiles = new Map();
    this.tileBytes = 0;
    this.queue = [];
    this.reading = 0;
    this.arr = null;
    this.arrId = 0;
    this.view = { cx: 0, cy: 0, z: 1 };
    this.display = { cmap: "viridis", reversed: false, lo: 0, hi: 1 };
    this.displayVersion = 1;
    this.autoPending = false;
    this.fitPending = false;
    this.complete = false;
    this.drawn = 0;
    this.frame = 0;
    this.pointers = new Map();
    this.#bindEvents();
    new ResizeObserver(() => this.#resize()).observe(host);
    this.#resize();
  }

  // ------------------------------------------------------------ state

  /**
   * Shows an array. slice: {ydim, xdim, index} (index has an entry per
   * dimension; the displayed ones are ignored). pyramid: the lower
   * resolutions of the same image, [{arr, factors}] with factors per
   * dimension (level 0 is arr itself); zoomed out, tiles come from the
   * coarsest level that still has every pixel the stride keeps.
   */
  setArray(arr, slice, { keepDisplay = false, pyramid = [] } = {}) {
    this.#abortAll();
    this.tiles.clear();
    this.tileBytes = 0;
    this.arr = arr;
    this.pyramid = pyramid
      .filter((p) => p.arr !== arr && p.factors.length === arr.shape.length)
      .map((p) => ({ ...p, chunks: readChunkShape(p.arr) }));
    this.arrId++;
    this.kind = numericKind(arr);
    this.readChunks = readChunkShape(arr);
    const item = arr.dataType?.size ?? 8;
    const chunkBytes = this.readChunks.reduce((a, b) => a * b, 1) * item;
    this.tooBig = chunkBytes > MAX_CHUNK_BYTES ? chunkBytes : 0;
    this.autoPending = !keepDisplay;
    this.complete = false;
    this.stats = null;
    this.#setSlice(slice);
    this.fitPending = true;
    this.#layout();
  }

  /** Changes the displayed dimensions or the indices of the others. */
  setSlice(slice) {
    const dimsChanged = slice.ydim !== this.slice.ydim || slice.xdim !== this.slice.xdim;
    this.#setSlice(slice);
    if (dimsChanged) this.fitPending = true;
    this.complete = false;
    this.#layout();
  }

  #setSlice(slice) {
    this.slice = { ydim: slice.ydim, xdim: slice.xdim, index: slice.index.slice() };
    const sh = this.arr.shape;
    this.H = sh[slice.ydim];
    this.W = sh[slice.xdim];
    this.by = tileBase(this.readChunks[slice.ydim]);
    this.bx = tileBase(this.readChunks[slice.xdim]);
    const idx = this.slice.index.map((v, d) => (d === slice.ydim || d === slice.xdim ? "*" : v));
    this.sliceKey = `${this.arrId}|${slice.ydim},${slice.xdim}|${idx.join(",")}`;
  }

  /** Colormap and contrast limits: {cmap, reversed, lo, hi} (any subset). */
  setDisplay(d) {
    this.display = { ...this.display, ...d };
    this.displayVersion++;
    this.#scheduleDraw();
  }

  /** Sets the contrast limits from the data in view when it has loaded. */
  autoContrast() {
    this.autoPending = true;
    this.complete = false;
    this.#checkComplete();
  }

  clear() {
    this.#abortAll();
    this.tiles.clear();
    this.tileBytes = 0;
    this.arr = null;
    this.#scheduleDraw();
  }

  // ------------------------------------------------------------- view

  fit() {
    if (!this.arr) return;
    const z = Math.min(this.cw / this.W, this.ch / this.H) * 0.96;
    this.view = { cx: this.W / 2, cy: this.H / 2, z: Number.isFinite(z) && z > 0 ? z : 1 };
    this.#changed();
  }

  /** One data pixel per screen (CSS) pixel, keeping the centre. */
  actualSize() {
    // Keep data pixel edges on screen pixel edges (crisp, unambiguous).
    const v = this.view;
    const fy = (this.ch / 2) % 1;
    const fx = (this.cw / 2) % 1;
    this.view = { cx: Math.round(v.cx - fx) + fx, cy: Math.round(v.cy - fy) + fy, z: 1 };
    this.#changed();
  }

  zoomBy(f, px = this.cw / 2, py = this.ch / 2) {
    const v = this.view;
    const fitZ = Math.min(this.cw / this.W, this.ch / this.H);
    const nz = Math.min(Math.max(v.z * f, Math.min(fitZ / 4, 1)), Math.max(64, fitZ * 4));
    const dx = v.cx + (px - this.cw / 2) / v.z;
    const dy = v.cy + (py - this.ch / 2) / v.z;
    this.view = { cx: dx - (px - this.cw / 2) / nz, cy: dy - (py - this.ch / 2) / nz, z: nz };
    this.#changed();
  }

  panBy(dxPx, dyPx) {
    this.view.cx -= dxPx / this.view.z;
    this.view.cy -= dyPx / this.view.z;
    this.#changed();
  }

  /** Sets {cx, cy, z} directly (from the address bar). */
  setView(v) {
    this.view = { ...this.view, ...v };
    this.fitPending = false;
    this.#changed();
  }

  /** Data coordinates (fractional column x, row y) of a canvas point (CSS px). */
  toData(px, py) {
    const v = this.view;
    const yd = v.cy + (py - this.ch / 2) / v.z;
    return { x: v.cx + (px - this.cw / 2) / v.z, y: this.flipY ? this.H - yd : yd };
  }

  /** Canvas point (CSS px) of data coordinates. */
  toScreen(x, y) {
    const v = this.view;
    const yd = this.flipY ? this.H - y : y;
    return { px: (x - v.cx) * v.z + this.cw / 2, py: (yd - v.cy) * v.z + this.ch / 2 };
  }

  /** Shows row 0 at the bottom (for latitudes that increase with the row). */
  setFlip(flip) {
    if (!!flip === !!this.flipY) return;
    this.flipY = !!flip;
    this.#changed();
  }

  #changed() {
    this.#layout();
    this.cb.onView?.(this.view);
  }

  // ----------------------------------------------------------- levels

  #visibleRange() {
    const a = this.toData(0, 0);
    const b = this.toData(this.cw, this.ch);
    return {
      y0: Math.max(0, Math.floor(Math.min(a.y, b.y))),
      y1: Math.min(this.H, Math.ceil(Math.max(a.y, b.y))),
      x0: Math.max(0, Math.floor(a.x)),
      x1: Math.min(this.W, Math.ceil(b.x)),
    };
  }

  /** The level (stride 2^L) for the current zoom, raised to fit the chunk budget. */
  level() {
    const maxL = Math.max(0, Math.ceil(Math.log2(Math.max(this.H, this.W, 1))));
    let L = Math.min(maxL, Math.max(0, Math.floor(Math.log2(1 / this.view.z) + 1e-9)));
    this.budgetRaised = false;
    const r = this.#visibleRange();
    const ey = Math.max(1, r.y1 - r.y0);
    const ex = Math.max(1, r.x1 - r.x0);
    // Chunk extents in level-0 pixels, of the level a stride reads from.
    const touched = (s) => {
      const p = this.#source(s);
      const cy = (p.chunks[this.slice.ydim] || 1) * p.factors[this.slice.ydim];
      const cx = (p.chunks[this.slice.xdim] || 1) * p.factors[this.slice.xdim];
      return (Math.ceil(ey / Math.max(cy, s)) + 1) * (Math.ceil(ex / Math.max(cx, s)) + 1);
    };
    while (L < maxL && touched(2 ** L) > CHUNK_BUDGET) {
      L++;
      this.budgetRaised = true;
    }
    return L;
  }

  #neededTiles(L) {
    const s = 2 ** L;
    const ty = this.by * s;
    const tx = this.bx * s;
    const r = this.#visibleRange();
    const out = [];
    if (r.y1 <= r.y0 || r.x1 <= r.x0) return out;
    const c = this.toData(this.cw / 2, this.ch / 2);
    for (let i = Math.floor(r.y0 / ty); i * ty < r.y1; i++) {
      for (let j = Math.floor(r.x0 / tx); j * tx < r.x1; j++) {
        const key = `${this.sliceKey}|${L}|${i},${j}`;
        const y0 = i * ty;
        const x0 = j * tx;
        const d = Math.hypot(y0 + ty / 2 - c.y, x0 + tx / 2 - c.x);
        out.push({ key, L, s, i, j, y0, x0, y1: Math.min(this.H, y0 + ty), x1: Math.min(this.W, x0 + tx), d });
      }
    }
    out.sort((a, b) => a.d - b.d);
    return out;
  }

  #layout() {
    if (!this.arr) return;
    if (this.fitPending && this.cw > 1) {
      this.fitPending = false;
      const z = Math.min(this.cw / this.W, this.ch / this.H) * 0.96;
      this.view = { cx: this.W / 2, cy: this.H / 2, z: Number.isFinite(z) && z > 0 ? z : 1 };
      this.cb.onView?.(this.view);
    }
    // Not laid out yet (the host was hidden): the zoom is unknown, so read
    // nothing until the size is (the resize observer lays out again).
    if (this.fitPending) return;
    if (this.tooBig) {
      this.cb.onError?.(
        new Error(`each chunk of this array holds ${(this.tooBig / 2 ** 20).toFixed(0)} MiB once decoded; the viewer does not load chunks larger than ${MAX_CHUNK_BYTES / 2 ** 20} MiB`),
        "too-big",
      );
      this.#scheduleDraw();
      return;
    }
    const L = this.level();
    this.L = L;
    const needed = this.#neededTiles(L);
    this.needed = needed.map((t) => t.key);
    const want = new Set(this.needed);
    // Abort reads of tiles the view no longer needs.
    for (const t of this.tiles.values()) {
      if (t.state === "loading" && !want.has(t.key)) {
        t.ctrl.abort();
        this.tiles.delete(t.key);
      }
    }
    this.queue = [];
    for (const n of needed) {
      const t = this.tiles.get(n.key);
      if (t) {
        this.tiles.delete(n.key);
        this.tiles.set(n.key, t); // refresh LRU order
        continue;
      }
      this.queue.push(n);
    }
    this.complete = false;
    this.#pump();
    this.#checkComplete();
    this.#scheduleDraw();
  }

  #pump() {
    while (this.reading < MAX_TILE_READS && this.queue.length) {
      const n = this.queue.shift();
      if (this.tiles.has(n.key)) continue;
      const tile = { ...n, state: "loading", ctrl: new AbortController(), version: 0, bytes: 0 };
      this.tiles.set(n.key, tile);
      this.reading++;
      this.#read(tile).finally(() => {
        this.reading--;
        this.#pump();
        this.#checkComplete();
      });
    }
    this.#progress();
  }

  /**
   * Where a read with stride s comes from: the coarsest pyramid level whose
   * factors along the shown dimensions divide s (so it holds exactly the
   * pixels the stride keeps), else the array itself.
   */
  /** Index of the pyramid level (0: the array itself) and the stride within it, for the current zoom. */
  source() {
    if (!this.arr) return { level: 0, stride: 1 };
    const s = 2 ** (this.L ?? 0);
    const src = this.#source(s);
    return { level: src.arr === this.arr ? 0 : 1 + this.pyramid.findIndex((p) => p.arr === src.arr), stride: s / src.factors[this.slice.xdim] };
  }

  #source(s) {
    const { ydim, xdim } = this.slice;
    let best = { arr: this.arr, factors: this.arr.shape.map(() => 1), chunks: this.readChunks };
    for (const p of this.pyramid ?? []) {
      const fy = p.factors[ydim];
      const fx = p.factors[xdim];
      if (s % fy || s % fx || fy * fx <= best.factors[ydim] * best.factors[xdim]) continue;
      best = p;
    }
    return best;
  }

  async #read(tile) {
    const { ydim, xdim, index } = this.slice;
    const { arr, factors } = this.#source(tile.s);
    const within = (v, d) => Math.min(arr.shape[d], Math.ceil(v / factors[d]));
    const sel = index.map((v, d) =>
      d === ydim
        ? zarr.slice(tile.y0 / factors[d], within(tile.y1, d), tile.s / factors[d])
        : d === xdim
          ? zarr.slice(tile.x0 / factors[d], within(tile.x1, d), tile.s / factors[d])
          : Math.min(arr.shape[d] - 1, Math.floor(v / factors[d])),
    );
    try {
      const res = await arr.get(sel, { signal: tile.ctrl.signal });
      if (this.tiles.get(tile.key) !== tile) return;
      this.#fill(tile, res);
      tile.state = "ready";
      this.tileBytes += tile.bytes;
      this.#evict();
      this.#scheduleDraw();
    } catch (e) {
      if (tile.ctrl.signal.aborted || e?.code === "ABORTED") {
        if (this.tiles.get(tile.key) === tile) this.tiles.delete(tile.key);
        return;
      }
      tile.state = "error";
      tile.error = e;
      this.cb.onError?.(e, "read");
      this.#scheduleDraw();
    }
  }

  /** Turns a get() result into row-major numbers (magnitude for complex). */
  #fill(tile, res) {
    const { ydim, xdim } = this.slice;
    const ny = Math.ceil((tile.y1 - tile.y0) / tile.s);
    const nx = Math.ceil((tile.x1 - tile.x0) / tile.s);
    const [s0, s1] = res.stride;
    const sy = ydim < xdim ? s0 : s1;
    const sx = ydim < xdim ? s1 : s0;
    // A pyramid level may end a row or column short of the stride's count.
    const hy = Math.min(ny, res.shape[ydim < xdim ? 0 : 1]);
    const hx = Math.min(nx, res.shape[ydim < xdim ? 1 : 0]);
    const data = res.data;
    const items = this.kind === "complex" ? 2 : 1;
    const v = new Float64Array(ny * nx);
    const big = typeof data[0] === "bigint";
    v.fill(NaN);
    for (let iy = 0; iy < hy; iy++) {
      for (let ix = 0; ix < hx; ix++) {
        const k = (iy * sy + ix * sx) * items;
        if (items === 2) v[iy * nx + ix] = Math.hypot(data[k], data[k + 1]);
        else v[iy * nx + ix] = big ? Number(data[k]) : data[k];
      }
    }
    tile.ny = ny;
    tile.nx = nx;
    tile.values = v;
    tile.raw = { data, sy, sx, items, hy, hx };
    tile.bytes = v.byteLength + data.byteLength + ny * nx * 4;
  }

  #evict() {
    const keep = new Set(this.needed);
    for (const [k, t] of this.tiles) {
      if (this.tileBytes <= TILE_CACHE_BYTES) break;
      if (keep.has(k) || t.state === "loading") continue;
      this.tiles.delete(k);
      this.tileBytes -= t.bytes;
    }
  }

  #abortAll() {
    for (const t of this.tiles.values()) if (t.state === "loading") t.ctrl.abort();
    this.queue = [];
  }

  #progress() {
    if (!this.needed) return;
    let ready = 0;
    let failed = 0;
    for (const k of this.needed) {
      const t = this.tiles.get(k);
      if (t?.state === "ready") ready++;
      else if (t?.state === "error") failed++;
    }
    const source = this.source();
    this.cb.onProgress?.({ ready, failed, total: this.needed.length, level: this.L, stride: 2 ** (this.L ?? 0), source, budgetRaised: this.budgetRaised });
    return { ready, failed, total: this.needed.length };
  }

  #checkComplete() {
    const p = this.#progress();
    if (!p || p.ready + p.failed < p.total || this.complete) return;
    this.complete = true;
    if (!this.autoPending) {
      // The picture first; the statistics (for the histogram) right after.
      this.statsDue = true;
      this.#scheduleDraw();
      return;
    }
    this.#updateStats();
    this.autoPending = false;
    const st = this.stats;
    if (st) {
      let lo = st.p1;
      let hi = st.p99;
      if (isBool(this.arr)) {
        lo = 0;
        hi = 1;
      } else if (!(hi > lo)) {
        lo = st.min;
        hi = st.max;
        if (!(hi > lo)) {
          lo = Number.isFinite(lo) ? lo - 0.5 : 0;
          hi = Number.isFinite(hi) ? hi + 0.5 : 1;
        }
      }
      this.display = { ...this.display, lo, hi };
      this.displayVersion++;
      this.cb.onAutoContrast?.(lo, hi);
    }
    this.#scheduleDraw();
  }

  /** Statistics of the tiles in view (stats.js), handed to onStats. */
  #updateStats() {
    this.statsDue = false;
    const tiles = this.needed.map((k) => this.tiles.get(k)).filter((t) => t?.state === "ready");
    this.stats = summarize(tiles.map((t) => t.values));
    this.cb.onStats?.(this.stats);
  }

  // ----------------------------------------------------------- values

  /** The sample shown at a canvas point: {iy, ix, value, raw} or null. */
  sampleAt(px, py) {
    if (!this.arr) return null;
    const { x, y } = this.toData(px, py);
    if (x < 0 || y < 0 || x >= this.W || y >= this.H) return null;
    const s = 2 ** (this.L ?? 0);
    const iy = Math.floor(Math.floor(y) / s) * s;
    const ix = Math.floor(Math.floor(x) / s) * s;
    const tyS = this.by * s;
    const txS = this.bx * s;
    const key = `${this.sliceKey}|${this.L}|${Math.floor(iy / tyS)},${Math.floor(ix / txS)}`;
    const t = this.tiles.get(key);
    if (!t || t.state !== "ready") return { iy, ix, stride: s, loading: true };
    const ry = (iy - t.y0) / s;
    const rx = (ix - t.x0) / s;
    const { data, sy, sx, items, hy, hx } = t.raw;
    if (ry >= hy || rx >= hx) return null;
    const k = (ry * sy + rx * sx) * items;
    const raw = items === 2 ? [data[k], data[k + 1]] : data[k];
    return { iy, ix, stride: s, value: t.values[ry * t.nx + rx], raw };
  }

  // ----------------------------------------------------------- drawing

  #resize() {
    const r = this.host.getBoundingClientRect();
    this.cw = Math.max(1, Math.round(r.width));
    this.ch = Math.max(1, Math.round(r.height));
    this.dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.cw * this.dpr);
    this.canvas.height = Math.round(this.ch * this.dpr);
    this.canvas.style.width = `${this.cw}px`;
    this.canvas.style.height = `${this.ch}px`;
    this.#layout();
    this.#scheduleDraw();
  }

  #scheduleDraw() {
    if (this.frame) return;
    // Until the frame is drawn, the picture on screen is out of date.
    if (this.arr && !this.tooBig) this.cb.onPending?.();
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.#draw();
    });
  }

  #colorize(t) {
    if (t.version === this.displayVersion && t.bitmap) return;
    const { lo, hi, cmap, reversed } = this.display;
    const tab = table(cmap, reversed);
    if (!t.bitmap) {
      t.bitmap = new OffscreenCanvas(t.nx, t.ny);
      t.bctx = t.bitmap.getContext("2d");
    }
    const img = t.bctx.createImageData(t.nx, t.ny);
    const px = img.data;
    const v = t.values;
    const scale = hi > lo ? 255 / (hi - lo) : 0;
    for (let i = 0, o = 0; i < v.length; i++, o += 4) {
      const x = v[i];
      if (x !== x) {
        px[o + 3] = 0; // NaN: transparent, the background shows
        continue;
      }
      let j = scale ? Math.round((x - lo) * scale) : x > lo ? 255 : 0;
      j = j < 0 ? 0 : j > 255 ? 255 : j;
      px[o] = tab[3 * j];
      px[o + 1] = tab[3 * j + 1];
      px[o + 2] = tab[3 * j + 2];
      px[o + 3] = 255;
    }
    t.bctx.putImageData(img, 0, 0);
    t.version = this.displayVersion;
  }

  #draw() {
    const { ctx, dpr } = this;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#16181d";
    ctx.fillRect(0, 0, this.cw, this.ch);
    if (!this.arr || this.tooBig) return;
    const s0 = this.toScreen(0, 0);
    const s1 = this.toScreen(this.W, this.H);
    const a = { px: s0.px, py: Math.min(s0.py, s1.py) };
    const b = { px: s1.px, py: Math.max(s0.py, s1.py) };
    // The array's extent; NaN and not-yet-loaded areas show this checker.
    ctx.save();
    ctx.beginPath();
    ctx.rect(a.px, a.py, b.px - a.px, b.py - a.py);
    ctx.clip();
    ctx.fillStyle = this.#checker();
    ctx.fillRect(a.px, a.py, b.px - a.px, b.py - a.py);
    // Wait for the automatic contrast limits before drawing anything.
    if (!this.autoPending) {
      const L = this.L ?? 0;
      const v = this.view;
      const r = this.#visibleRange();
      const drawable = [];
      for (const t of this.tiles.values()) {
        if (t.state !== "ready" || !t.key.startsWith(this.sliceKey + "|")) continue;
        if (t.y1 <= r.y0 || t.y0 >= r.y1 || t.x1 <= r.x0 || t.x0 >= r.x1) continue;
        if (t.L !== L && Math.abs(t.L - L) > 4) continue;
        drawable.push(t);
      }
      // Placeholders first (coarser, then finer levels), the current level last.
      const rank = (t) => (t.L === L ? -1e9 : t.L > L ? t.L : t.L - L + 100);
      drawable.sort((p, q) => rank(q) - rank(p));
      for (const t of drawable) {
        this.#colorize(t);
        const p = this.toScreen(t.x0, t.y0);
        ctx.imageSmoothingEnabled = v.z * t.s < 1;
        ctx.imageSmoothingQuality = "medium";
        if (this.flipY) {
          // Row t.y0 sits at p.py and later rows go up the screen.
          ctx.save();
          ctx.translate(0, p.py);
          ctx.scale(1, -1);
          ctx.drawImage(t.bitmap, p.px, 0, t.nx * t.s * v.z, t.ny * t.s * v.z);
          ctx.restore();
        } else {
          ctx.drawImage(t.bitmap, p.px, p.py, t.nx * t.s * v.z, t.ny * t.s * v.z);
        }
      }
      for (const k of this.needed ?? []) {
        const t = this.tiles.get(k);
        if (t?.state !== "error") continue;
        const p = this.toScreen(t.x0, t.y0);
        const q = this.toScreen(t.x1, t.y1);
        ctx.fillStyle = "rgba(200, 60, 60, 0.35)";
        // (q may be above p when flipped; fillRect takes negative heights.)
        ctx.fillRect(p.px, p.py, q.px - p.px, q.py - p.py);
      }
    }
    ctx.restore();
    ctx.strokeStyle = "rgba(255,255,255,0.25)";
    ctx.lineWidth = 1;
    ctx.strokeRect(Math.round(a.px) - 0.5, Math.round(a.py) - 0.5, Math.round(b.px - a.px) + 1, Math.round(b.py - a.py) + 1);
    this.drawn++;
    if (this.complete && !this.autoPending) {
      if (this.statsDue) {
        const key = this.sliceKey;
        const needed = this.needed;
        setTimeout(() => {
          if (this.statsDue && this.sliceKey === key && this.needed === needed) this.#updateStats();
        }, 0);
      }
      this.cb.onRendered?.(this.drawn);
    }
  }

  #checker() {
    if (!this.checkerPattern) {
      const c = new OffscreenCanvas(16, 16);
      const g = c.getContext("2d");
      g.fillStyle = "#2b2f36";
      g.fillRect(0, 0, 16, 16);
      g.fillStyle = "#33373f";
      g.fillRect(0, 0, 8, 8);
      g.fillRect(8, 8, 8, 8);
      this.checkerPattern = this.ctx.createPattern(c, "repeat");
    }
    return this.checkerPattern;
  }

  // ------------------------------------------------------------ input

  #bindEvents() {
    const c = this.canvas;
    const pos = (e) => {
      const r = c.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    c.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      c.setPointerCapture(e.pointerId);
      this.pointers.set(e.pointerId, pos(e));
      c.classList.add("dragging");
    });
    c.addEventListener("pointermove", (e) => {
      const p = pos(e);
      const prev = this.pointers.get(e.pointerId);
      if (prev) {
        if (this.pointers.size === 2) {
          const [other] = [...this.pointers].filter(([id]) => id !== e.pointerId).map(([, q]) => q);
          const d0 = Math.hypot(prev.x - other.x, prev.y - other.y);
          const d1 = Math.hypot(p.x - other.x, p.y - other.y);
          if (d0 > 0) this.zoomBy(d1 / d0, (p.x + other.x) / 2, (p.y + other.y) / 2);
        } else {
          this.panBy(p.x - prev.x, p.y - prev.y);
        }
        this.pointers.set(e.pointerId, p);
      }
      this.cb.onHover?.(this.sampleAt(p.x, p.y));
    });
    const up = (e) => {
      this.pointers.delete(e.pointerId);
      if (this.pointers.size === 0) c.classList.remove("dragging");
    };
    c.addEventListener("pointerup", up);
    c.addEventListener("pointercancel", up);
    c.addEventListener("pointerleave", () => this.cb.onHover?.(null));
    c.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const p = pos(e);
        const unit = e.deltaMode === 1 ? 0.05 : e.deltaMode === 2 ? 1 : 0.0015;
        this.zoomBy(Math.exp(-e.deltaY * unit), p.x, p.y);
        this.cb.onHover?.(this.sampleAt(p.x, p.y));
      },
      { passive: false },
    );
    c.addEventListener("dblclick", (e) => {
      const p = pos(e);
      this.zoomBy(e.shiftKey ? 0.5 : 2, p.x, p.y);
    });
    c.addEventListener("keydown", (e) => {
      const step = 60;
      const k = e.key;
      if (k === "+" || k === "=") this.zoomBy(1.5);
      else if (k === "-" || k === "_") this.zoomBy(1 / 1.5);
      else if (k === "0") this.fit();
      else if (k === "1") this.actualSize();
      else if (k === "ArrowLeft") this.panBy(step, 0);
      else if (k === "ArrowRight") this.panBy(-step, 0);
      else if (k === "ArrowUp") this.panBy(0, step);
      else if (k === "ArrowDown") this.panBy(0, -step);
      else return;
      e.preventDefault();
    });
  }
}
