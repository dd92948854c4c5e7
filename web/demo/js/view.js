// The 2D slice view: a canvas showing two dimensions of an image (the
// others fixed by index), read in tiles through the zarr-wasm package.
// An image is drawn through a colormap, or — an OME-Zarr image with
// channels — as an additive composite of its channels in their colours;
// a label image can lie over it. A scale bar and axis ticks are drawn on
// top.
//
// Reads stay bounded. The visible part of the slice is cut into tiles whose
// edges fall on chunk edges; a tile at level L is a strided read (step
// s = 2^L) chosen so that one data sample covers about one screen pixel, so
// zooming out reads fewer samples, never more than the canvas can show
// (from a coarser pyramid level where there is one, layers.js). If even
// that would touch too many chunks, the stride grows until the chunk count
// fits a budget. Tiles are kept in a bounded LRU cache; tiles no longer
// needed are aborted. A composite reads one tile per visible channel; a
// "cell" is one tile position, drawn when all its tiles are there.
import { isBool, numericKind } from "./arrays.js";
import { summarize } from "./stats.js";
import { Layer, tileValues } from "./layers.js";
import { paintColormap, paintComposite, paintLabels } from "./paint.js";
import { drawScaleBar, drawTicks } from "./overlay.js";

const TILE_CACHE_BYTES = 256 << 20;
const MAX_CELLS = 256; // painted cells kept (bitmaps of up to 1024² pixels, usually 256²)
const MAX_TILE_READS = 6;
const MAX_PREFETCH_READS = 4; // beside the reads the view needs
const CHUNK_BUDGET = 1024; // chunks one view may touch
const MAX_CHUNK_BYTES = 512 << 20; // refuse arrays whose single chunk is larger

// Tile edge (in samples) for a dimension with chunk size c: one chunk when
// chunks are 128..1024 long, so a tile at full resolution reads exactly the
// chunks it covers; several small chunks together; big chunks in parts.
// (512² tiles of four 256² chunks were measured no cheaper per frame.)
function tileBase(c) {
  if (!(c > 0)) return 256;
  if (c < 128) return c * Math.ceil(128 / c);
  if (c <= 1024) return c;
  return 512;
}

/** Contrast limits from statistics: the 1st and 99th percentiles, widened when flat. */
export function autoLimits(st, bool) {
  if (bool) return [0, 1];
  let lo = st.p1;
  let hi = st.p99;
  if (!(hi > lo)) {
    lo = st.min;
    hi = st.max;
    if (!(hi > lo)) {
      lo = Number.isFinite(lo) ? lo - 0.5 : 0;
      hi = Number.isFinite(hi) ? hi + 0.5 : 1;
    }
  }
  return [lo, hi];
}

export class SliceView {
  /**
   * @param {HTMLElement} host element the canvas fills
   * @param {{onHover?: Function, onProgress?: Function, onStats?: Function,
   *   onAutoContrast?: Function, onChannelLimits?: Function, onError?: Function,
   *   onView?: Function, onPending?: Function, onRendered?: Function,
   *   onDrawn?: Function (after every frame, complete or not)}} cb
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
    /** @type {Map<string, any>} data tiles, LRU: insertion order, refreshed on use */
    this.tiles = new Map();
    this.tileBytes = 0;
    /** @type {Map<string, {bitmap, ctx, version}>} painted cells, LRU */
    this.cells = new Map();
    this.queue = [];
    this.reading = 0;
    this.prefetching = 0;
    this.prefetchIndices = [];
    this.arr = null;
    this.arrId = 0;
    this.view = { cx: 0, cy: 0, z: 1 };
    this.display = { cmap: "viridis", reversed: false, lo: 0, hi: 1 };
    this.channels = null; // composite: {dim, list: [{index, color, lo, hi, visible, inverted, auto}]}
    this.labels = null; // {layer, colors, opacity, id}
    this.displayVersion = 1;
    this.labelVersion = 1;
    this.autoPending = false;
    this.fitPending = false;
    this.complete = false;
    this.drawn = 0;
    this.frame = 0;
    this.drawTimer = 0;
    this.lastDraw = 0;
    this.previousPrefix = null; // cells of the slice shown before, kept on screen until the new one's are there
    this.pointers = new Map();
    this.physical = null; // per image dimension: {scale, translation, unit} or null
    this.ticks = "off";
    this.scaleBar = null;
    this.#bindEvents();
    new ResizeObserver(() => this.#resize()).observe(host);
    this.#resize();
  }

  // ------------------------------------------------------------ state

  /**
   * Shows an image. slice: {ydim, xdim, index} (index has an entry per
   * dimension; the displayed ones are ignored). Options:
   * - pyramid: lower resolutions [{arr, factors}] (OME-Zarr levels);
   * - channels: {dim, list: [{index, color: [r,g,b], lo, hi, visible, auto}]}
   *   draws the channels along dim as a composite (auto: limits from the
   *   data in view), else the display's colormap;
   * - keepDisplay: keep the colormap's limits (no automatic contrast);
   * - physical: per dimension {scale, translation, unit} or null.
   */
  setImage(arr, slice, { keepDisplay = false, pyramid = [], channels = null, physical = null } = {}) {
    this.#abortAll();
    this.previousPrefix = null;
    this.tiles.clear();
    this.cells.clear();
    this.tileBytes = 0;
    this.arr = arr;
    this.image = Layer.image(arr, pyramid);
    this.labels = null;
    this.arrId++;
    this.kind = numericKind(arr);
    const chunks = this.image.levels[0].chunks;
    const item = arr.dataType?.size ?? 8;
    const chunkBytes = chunks.reduce((a, b) => a * b, 1) * item;
    this.tooBig = chunkBytes > MAX_CHUNK_BYTES ? chunkBytes : 0;
    this.channels = channels && { dim: channels.dim, list: channels.list.map((c) => ({ ...c })) };
    this.physical = physical;
    this.autoPending = this.channels ? this.channels.list.some((c) => c.auto) : !keepDisplay;
    this.complete = false;
    this.stats = null;
    this.channelStats = new Map();
    this.prefetchIndices = [];
    this.#setSlice(slice);
    this.fitPending = true;
    this.#layout();
  }

  /** Changes the displayed dimensions or the indices of the others. */
  setSlice(slice) {
    const dimsChanged = slice.ydim !== this.slice.ydim || slice.xdim !== this.slice.xdim;
    this.previousPrefix = dimsChanged ? null : this.#cellPrefix(this.slice.index);
    // The previous frame stays on screen: no need to draw it again before
    // the new one's tiles arrive.
    if (!dimsChanged) this.lastDraw = performance.now();
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
    const chunks = this.image.levels[0].chunks;
    this.by = tileBase(chunks[slice.ydim]);
    this.bx = tileBase(chunks[slice.xdim]);
  }

  /** Key of the image's slice at index (the displayed dimensions are "*"). */
  #sliceKey(index) {
    const { ydim, xdim } = this.slice;
    return `${this.arrId}|${ydim},${xdim}|${index.map((v, d) => (d === ydim || d === xdim ? "*" : v)).join(",")}`;
  }

  /** The indices the image's visible channels are read at (one index vector per channel). */
  #channelIndices(index) {
    if (!this.channels) return [{ index, channel: null }];
    return this.channels.list.filter((c) => c.visible).map((c) => ({ index: index.map((v, d) => (d === this.channels.dim ? c.index : v)), channel: c }));
  }

  /** Colormap and contrast limits: {cmap, reversed, lo, hi} (any subset). */
  setDisplay(d) {
    this.display = { ...this.display, ...d };
    this.displayVersion++;
    this.#scheduleDraw();
  }

  /**
   * Changes channels of a composite: [{index, color?, lo?, hi?, visible?,
   * inverted?}]. Showing a hidden channel reads its tiles.
   */
  setChannels(changes) {
    if (!this.channels) return;
    let shown = false;
    for (const ch of changes) {
      const c = this.channels.list.find((x) => x.index === ch.index);
      if (!c) continue;
      if (ch.visible && !c.visible) shown = true;
      Object.assign(c, ch);
      if (c.visible && c.auto) this.autoPending = true;
    }
    this.displayVersion++;
    if (shown || changes.some((c) => c.visible === false)) {
      this.complete = false;
      this.#layout();
    } else this.#scheduleDraw();
  }

  /**
   * A label image over the image: {layer (layers.js), colors: Map, opacity},
   * or null for none.
   */
  setLabels(labels) {
    this.labels = labels && { ...labels, id: (this.labels?.id ?? 0) + 1 };
    this.labelVersion++;
    this.complete = false;
    this.#layout();
  }

  setLabelOpacity(opacity) {
    if (!this.labels) return;
    this.labels.opacity = opacity;
    this.#scheduleDraw();
  }

  /** Axis ticks: "off", "index" or "physical". */
  setTicks(mode) {
    this.ticks = mode;
    this.#scheduleDraw();
  }

  /** Sets the contrast limits (of every channel with auto set) from the data in view when it has loaded. */
  autoContrast() {
    this.autoPending = true;
    this.complete = false;
    this.#checkComplete();
  }

  /**
   * Reads the tiles in view at these other indices (full index vectors)
   * while the view is idle: the next frames of a playback.
   */
  prefetch(indices) {
    this.prefetchIndices = indices.map((i) => i.slice());
    const keep = new Set(this.#prefetchTiles().map((t) => t.key));
    for (const t of this.tiles.values()) {
      if (t.prefetch && t.state === "loading" && !keep.has(t.key)) {
        t.ctrl.abort();
        this.tiles.delete(t.key);
      }
    }
    this.#pump();
  }

  clear() {
    this.#abortAll();
    this.tiles.clear();
    this.cells.clear();
    this.tileBytes = 0;
    this.arr = null;
    this.labels = null;
    this.channels = null;
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
    const { ydim, xdim } = this.slice;
    const layers = Math.max(1, this.#channelIndices(this.slice.index).length) + (this.labels ? 1 : 0);
    // Chunk extents in level-0 pixels, of the level a stride reads from.
    const touched = (s) => {
      const lv = this.image.source(s, ydim, xdim);
      const cy = this.image.chunkSpan(lv, ydim);
      const cx = this.image.chunkSpan(lv, xdim);
      return layers * (Math.ceil(ey / Math.max(cy, s)) + 1) * (Math.ceil(ex / Math.max(cx, s)) + 1);
    };
    while (L < maxL && touched(2 ** L) > CHUNK_BUDGET) {
      L++;
      this.budgetRaised = true;
    }
    return L;
  }

  /** The tile positions (cells) in view at level L, nearest the centre first. */
  #cellsInView(L) {
    const s = 2 ** L;
    const ty = this.by * s;
    const tx = this.bx * s;
    const r = this.#visibleRange();
    const out = [];
    if (r.y1 <= r.y0 || r.x1 <= r.x0) return out;
    const c = this.toData(this.cw / 2, this.ch / 2);
    for (let i = Math.floor(r.y0 / ty); i * ty < r.y1; i++) {
      for (let j = Math.floor(r.x0 / tx); j * tx < r.x1; j++) {
        const y0 = i * ty;
        const x0 = j * tx;
        const d = Math.hypot(y0 + ty / 2 - c.y, x0 + tx / 2 - c.x);
        out.push({ L, s, i, j, y0, x0, y1: Math.min(this.H, y0 + ty), x1: Math.min(this.W, x0 + tx), d });
      }
    }
    out.sort((a, b) => a.d - b.d);
    return out;
  }

  /** The data tiles of a cell at an image index: one per visible channel, then the labels. */
  #tilesOf(cell, index) {
    const pos = `${cell.L}|${cell.i},${cell.j}`;
    const out = this.#channelIndices(index).map(({ index: at, channel }) => ({
      ...cell,
      key: `img|${this.#sliceKey(at)}|${pos}`,
      layer: this.image,
      index: at,
      channel,
    }));
    if (this.labels) out.push({ ...cell, key: `lab${this.labels.id}|${this.#sliceKey(index)}|${pos}`, layer: this.labels.layer, index, label: true });
    return out;
  }

  /** The start of the keys of painted cells at index: the slice (the channel dimension aside) and which channels. */
  #cellPrefix(index) {
    const chans = this.channels ? `c${this.channels.list.filter((c) => c.visible).map((c) => c.index).join(".")}` : "";
    return `${this.#sliceKey(index.map((v, d) => (this.channels && d === this.channels.dim ? 0 : v)))}|${chans}|`;
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
    this.viewCells = this.#cellsInView(L).map((c) => ({ ...c, tiles: this.#tilesOf(c, this.slice.index) }));
    this.needed = this.viewCells.flatMap((c) => c.tiles.map((t) => t.key));
    const want = new Set(this.needed);
    const prefetch = new Set(this.#prefetchTiles().map((t) => t.key));
    // Abort reads of tiles the view no longer needs (or prefetches).
    for (const t of this.tiles.values()) {
      if (t.state === "loading" && !want.has(t.key) && !prefetch.has(t.key)) {
        t.ctrl.abort();
        this.tiles.delete(t.key);
      }
    }
    this.queue = [];
    for (const c of this.viewCells) {
      for (const n of c.tiles) {
        const t = this.tiles.get(n.key);
        if (t) {
          t.prefetch = false; // needed now: it counts for the view
          this.tiles.delete(n.key);
          this.tiles.set(n.key, t); // refresh LRU order
          continue;
        }
        this.queue.push(n);
      }
    }
    this.complete = false;
    this.#pump();
    this.#checkComplete();
    this.#scheduleDraw();
  }

  /** Tiles of the prefetched indices at the current level, not read yet. */
  #prefetchTiles() {
    if (!this.arr || !this.prefetchIndices.length || this.L === undefined) return [];
    const cells = this.#cellsInView(this.L);
    const out = [];
    for (const index of this.prefetchIndices) for (const c of cells) out.push(...this.#tilesOf(c, index));
    return out;
  }

  #pump() {
    while (this.reading < MAX_TILE_READS && this.queue.length) {
      const n = this.queue.shift();
      if (this.tiles.has(n.key)) continue;
      this.#start(n, false);
    }
    // Prefetch only once the view has read what it needs (its frame first).
    if (!this.queue.length && this.reading === 0) {
      for (const n of this.#prefetchTiles()) {
        if (this.prefetching >= MAX_PREFETCH_READS) break;
        if (this.tiles.has(n.key)) continue;
        this.#start(n, true);
      }
    }
    this.#progress();
  }

  #start(n, prefetch) {
    const tile = { ...n, state: "loading", ctrl: new AbortController(), bytes: 0, prefetch };
    this.tiles.set(n.key, tile);
    if (prefetch) this.prefetching++;
    else this.reading++;
    this.#read(tile).finally(() => {
      if (prefetch) this.prefetching--;
      else this.reading--;
      this.#pump();
      this.#checkComplete();
    });
  }

  /** Index of the pyramid level (0: the array itself) and the stride within it, for the current zoom. */
  source() {
    if (!this.arr) return { level: 0, stride: 1 };
    const s = 2 ** (this.L ?? 0);
    const lv = this.image.source(s, this.slice.ydim, this.slice.xdim);
    return { level: lv.level, stride: s / lv.factors[this.slice.xdim] };
  }

  async #read(tile) {
    const { ydim, xdim } = this.slice;
    const layer = tile.layer;
    const level = layer.source(tile.s, ydim, xdim);
    const sel = layer.selection(level, tile, tile.index, ydim, xdim);
    try {
      const res = await level.arr.get(sel, { signal: tile.ctrl.signal });
      if (this.tiles.get(tile.key) !== tile) return;
      const ny = Math.ceil((tile.y1 - tile.y0) / tile.s);
      const nx = Math.ceil((tile.x1 - tile.x0) / tile.s);
      const complex = !tile.label && this.kind === "complex";
      const { values, raw } = tileValues(res, ny, nx, layer.rowsFirst(ydim, xdim), complex);
      Object.assign(tile, { ny, nx, values, raw, bytes: values.byteLength + res.data.byteLength, state: "ready" });
      this.tileBytes += tile.bytes;
      this.#evict();
      if (!tile.prefetch) this.#scheduleDraw();
    } catch (e) {
      if (tile.ctrl.signal.aborted || e?.code === "ABORTED") {
        if (this.tiles.get(tile.key) === tile) this.tiles.delete(tile.key);
        return;
      }
      tile.state = "error";
      tile.error = e;
      if (tile.prefetch) {
        this.tiles.delete(tile.key); // the view reads it again (and reports) if it needs it
        return;
      }
      this.cb.onError?.(e, "read");
      this.#scheduleDraw();
    }
  }

  #evict() {
    const keep = new Set(this.needed);
    for (const [k, t] of this.tiles) {
      if (this.tileBytes <= TILE_CACHE_BYTES) break;
      if (keep.has(k) || t.state === "loading") continue;
      this.tiles.delete(k);
      this.tileBytes -= t.bytes;
    }
    while (this.cells.size > MAX_CELLS) this.cells.delete(this.cells.keys().next().value);
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
    if (this.channels) {
      const changed = [];
      for (const c of this.channels.list) {
        const st = this.channelStats.get(c.index);
        if (!c.auto || !c.visible || !st) continue;
        [c.lo, c.hi] = autoLimits(st, false);
        c.auto = false;
        changed.push(c);
      }
      this.displayVersion++;
      if (changed.length) this.cb.onChannelLimits?.(changed.map((c) => ({ index: c.index, lo: c.lo, hi: c.hi })));
    } else if (this.stats) {
      const [lo, hi] = autoLimits(this.stats, isBool(this.arr));
      this.display = { ...this.display, lo, hi };
      this.displayVersion++;
      this.cb.onAutoContrast?.(lo, hi);
    }
    this.#scheduleDraw();
  }

  /** Statistics of the tiles in view (stats.js): the image's, or each visible channel's. */
  #updateStats() {
    // Percentiles only when the limits are to be set from them (Auto).
    const ranks = this.autoPending;
    // Without them (the histogram after a step), a quarter million values are plenty.
    const maxSamples = ranks ? 1_000_000 : 1 << 18;
    this.statsDue = false;
    const ready = (t) => t?.state === "ready";
    const tiles = this.viewCells.flatMap((c) => c.tiles.filter((t) => !t.label)).map((n) => this.tiles.get(n.key)).filter(ready);
    if (this.channels) {
      this.channelStats = new Map();
      for (const c of this.channels.list.filter((x) => x.visible)) {
        this.channelStats.set(c.index, summarize(tiles.filter((t) => t.channel?.index === c.index).map((t) => t.values), { ranks, maxSamples }));
      }
      this.stats = null;
    } else {
      this.stats = summarize(tiles.map((t) => t.values), { ranks, maxSamples });
    }
    this.cb.onStats?.(this.stats, this.channelStats);
  }

  // ----------------------------------------------------------- values

  /**
   * The samples shown at a canvas point: {iy, ix, stride, value, raw} (or
   * channels: [{index, value, raw}] for a composite), label: the label
   * value there; null outside the image.
   */
  sampleAt(px, py) {
    if (!this.arr) return null;
    const { x, y } = this.toData(px, py);
    if (x < 0 || y < 0 || x >= this.W || y >= this.H) return null;
    const s = 2 ** (this.L ?? 0);
    const iy = Math.floor(Math.floor(y) / s) * s;
    const ix = Math.floor(Math.floor(x) / s) * s;
    const cell = { L: this.L, s, i: Math.floor(iy / (this.by * s)), j: Math.floor(ix / (this.bx * s)) };
    const out = { iy, ix, stride: s };
    const read = (key) => {
      const t = this.tiles.get(key);
      if (!t || t.state !== "ready") return undefined;
      const ry = (iy - t.y0) / s;
      const rx = (ix - t.x0) / s;
      const { data, sy, sx, items, hy, hx } = t.raw;
      if (ry >= hy || rx >= hx) return null;
      const k = (ry * sy + rx * sx) * items;
      return { value: t.values[ry * t.nx + rx], raw: items === 2 ? [data[k], data[k + 1]] : data[k] };
    };
    const tiles = this.#tilesOf(cell, this.slice.index);
    for (const t of tiles) {
      const v = read(t.key);
      if (v === undefined) return { ...out, loading: true };
      if (t.label) out.label = v?.raw ?? null;
      else if (t.channel) (out.channels ??= []).push({ index: t.channel.index, ...v });
      else if (v === null) return null;
      else Object.assign(out, v);
    }
    return out;
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

  /**
   * Draws at the next animation frame. While tiles are still arriving, at
   * most every 100 ms (each draw repaints the whole canvas; sixteen tiles
   * arriving one by one would cost sixteen); at once when the last arrives.
   */
  #scheduleDraw() {
    // Until the frame is drawn, the picture on screen is out of date.
    if (this.arr && !this.tooBig) this.cb.onPending?.();
    if (this.frame) return;
    const wait = this.complete ? 0 : this.lastDraw + 100 - performance.now();
    if (wait > 0) {
      if (!this.drawTimer) {
        this.drawTimer = setTimeout(() => {
          this.drawTimer = 0;
          this.#scheduleDraw();
        }, wait);
      }
      return;
    }
    clearTimeout(this.drawTimer);
    this.drawTimer = 0;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.lastDraw = performance.now();
      this.#draw();
    });
  }

  /** A cell's painted bitmap (image layer), made or refreshed from its tiles; null until they are all there. */
  #paint(cell, tiles) {
    const img = tiles.filter((t) => !t.label).map((t) => this.tiles.get(t.key));
    if (!img.length || img.some((t) => t?.state !== "ready")) return null;
    const key = `${this.#cellPrefix(this.slice.index)}${cell.L}|${cell.i},${cell.j}`;
    let c = this.cells.get(key);
    if (c && c.version === this.displayVersion) {
      this.cells.delete(key);
      this.cells.set(key, c);
      return c;
    }
    const { nx, ny } = img[0];
    if (!c) {
      const bitmap = new OffscreenCanvas(nx, ny);
      c = { bitmap, ctx: bitmap.getContext("2d"), version: 0, cell, tiles };
    }
    const data = c.ctx.createImageData(nx, ny);
    if (this.channels) {
      paintComposite(
        img.map((t) => ({ values: t.values, color: t.channel.color, lo: t.channel.lo, hi: t.channel.hi, inverted: t.channel.inverted })),
        nx * ny,
        data.data,
      );
    } else paintColormap(img[0].values, data.data, this.display);
    c.ctx.putImageData(data, 0, 0);
    c.version = this.displayVersion;
    this.cells.set(key, c);
    return c;
  }

  /** A cell's label bitmap, or null. */
  #paintLabels(tile) {
    const t = this.tiles.get(tile.key);
    if (t?.state !== "ready") return null;
    if (!t.bitmap || t.labelVersion !== this.labelVersion) {
      t.bitmap ??= new OffscreenCanvas(t.nx, t.ny);
      const g = t.bitmap.getContext("2d");
      const data = g.createImageData(t.nx, t.ny);
      paintLabels(t.values, data.data, this.labels.colors);
      g.putImageData(data, 0, 0);
      if (t.labelVersion === undefined) {
        t.bytes += t.nx * t.ny * 4;
        this.tileBytes += t.nx * t.ny * 4;
      }
      t.labelVersion = this.labelVersion;
    }
    return t.bitmap;
  }

  #blit(bitmap, cell) {
    const { ctx } = this;
    const v = this.view;
    const p = this.toScreen(cell.x0, cell.y0);
    const w = bitmap.width * cell.s * v.z;
    const h = bitmap.height * cell.s * v.z;
    ctx.imageSmoothingEnabled = v.z * cell.s < 1;
    ctx.imageSmoothingQuality = "medium";
    if (this.flipY) {
      // Row cell.y0 sits at p.py and later rows go up the screen.
      ctx.save();
      ctx.translate(0, p.py);
      ctx.scale(1, -1);
      ctx.drawImage(bitmap, p.px, 0, w, h);
      ctx.restore();
    } else {
      ctx.drawImage(bitmap, p.px, p.py, w, h);
    }
  }

  #draw() {
    const { ctx, dpr } = this;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#16181d";
    ctx.fillRect(0, 0, this.cw, this.ch);
    this.scaleBar = null;
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
    if (!this.autoPending && this.viewCells) {
      const L = this.L ?? 0;
      const r = this.#visibleRange();
      const overlaps = (c) => !(c.y1 <= r.y0 || c.y0 >= r.y1 || c.x1 <= r.x0 || c.x0 >= r.x1);
      // Placeholders first: cells of other levels painted earlier for this
      // slice (coarser first, then finer), then the current level.
      const prefix = this.#cellPrefix(this.slice.index);
      const others = [];
      const previous = [];
      for (const [k, c] of this.cells) {
        if (!overlaps(c.cell)) continue;
        // The slice shown before (another frame): until this one's cells are there.
        if (this.previousPrefix && this.previousPrefix !== prefix && k.startsWith(this.previousPrefix) && c.cell.L === L) previous.push(c);
        if (c.cell.L === L || !k.startsWith(prefix) || Math.abs(c.cell.L - L) > 4) continue;
        others.push(c);
      }
      if (!this.complete) for (const c of previous) if (c.version === this.displayVersion) this.#blit(c.bitmap, c.cell);
      const rank = (c) => (c.cell.L > L ? c.cell.L : c.cell.L - L + 100);
      others.sort((p, q) => rank(q) - rank(p));
      for (const c of others) {
        // Repainted in today's colours while its tiles are cached; else skipped.
        const now = c.version === this.displayVersion ? c : this.#paint(c.cell, c.tiles);
        if (now) this.#blit(now.bitmap, c.cell);
      }
      for (const cell of this.viewCells) {
        const c = this.#paint(cell, cell.tiles);
        if (c) this.#blit(c.bitmap, cell);
      }
      if (this.labels) {
        ctx.globalAlpha = this.labels.opacity;
        for (const cell of this.viewCells) {
          const lt = cell.tiles.find((t) => t.label);
          const bm = lt && this.#paintLabels(lt);
          if (bm) this.#blit(bm, cell);
        }
        ctx.globalAlpha = 1;
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
    const phys = this.physical;
    if (phys) {
      drawTicks(ctx, this, this.ticks, { y: phys[this.slice.ydim], x: phys[this.slice.xdim] });
      this.scaleBar = drawScaleBar(ctx, this, phys[this.slice.xdim]);
    } else drawTicks(ctx, this, this.ticks, null);
    this.drawn++;
    this.cb.onDrawn?.(this);
    if (this.complete && !this.autoPending) {
      if (this.statsDue) {
        const needed = this.needed;
        setTimeout(() => {
          if (this.statsDue && this.needed === needed) this.#updateStats();
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
      if (k === "ArrowLeft") this.panBy(step, 0);
      else if (k === "ArrowRight") this.panBy(-step, 0);
      else if (k === "ArrowUp") this.panBy(0, step);
      else if (k === "ArrowDown") this.panBy(0, -step);
      else return;
      e.preventDefault();
    });
  }
}
