// The grid view: pictures side by side in a labelled grid — a plate's
// wells (rows A…, columns 1…, as the plate names them; wells the plate does
// not list are left empty) or a well's fields. Each cell holds one small
// picture (its values per channel), drawn as the slice view draws an
// image: channels added in their colours with limits shared by every cell,
// or one array through a colormap. The limits come from omero's windows,
// or from the percentiles of every cell's values once all have arrived.
// While pictures arrive, each is drawn once into its own place (a few at a
// time, a frame at most every DRAW_EVERY ms); the whole grid is drawn again
// only when the layout or the colours change, and once when all are there.
import { paintColormap, paintComposite } from "./paint.js";
import { summarize } from "./stats.js";
import { autoLimits } from "./view.js";

const FONT = "12px system-ui, sans-serif";
const MARGIN = { top: 24, left: 30, right: 8, bottom: 8 };
// While pictures arrive: each frame costs the page a copy of the whole
// canvas (software compositing), whatever was drawn in it.
const DRAW_EVERY = 200;

export class GridView {
  /**
   * @param {HTMLElement} host element the canvas fills
   * @param {{onHover?: Function, onOpen?: Function, onRendered?: Function,
   *   onStats?: Function, onChannelLimits?: Function, onAutoContrast?: Function,
   *   onProgress?: Function}} cb
   */
  constructor(host, cb = {}) {
    this.host = host;
    this.cb = cb;
    this.canvas = document.createElement("canvas");
    this.canvas.className = "grid-canvas";
    this.canvas.setAttribute("aria-label", "grid of pictures; click one to open it");
    host.appendChild(this.canvas);
    this.ctx = this.canvas.getContext("2d");
    this.cw = 1;
    this.ch = 1;
    this.rows = [];
    this.columns = [];
    this.cells = new Map(); // key → {key, row, col, label, title, state: "loading"|"ready"|"empty"|"error", values, ny, nx, bitmap, version}
    this.channels = null; // {list: [{index, color, lo, hi, visible, inverted, auto}]}
    this.display = { cmap: "gray", reversed: false, lo: 0, hi: 1 };
    this.version = 1;
    this.frame = 0;
    this.full = true; // the next frame draws everything (else only this.fresh)
    this.fresh = new Set(); // cells to draw into their places
    this.drawn = 0;
    this.hovered = null;
    this.#bindEvents();
    new ResizeObserver(() => this.#resize()).observe(host);
    this.#resize();
  }

  /**
   * Lays out a grid: rows and columns (names), cells [{key, row, col,
   * label, title}] (row and column indices; other positions stay empty).
   * channels: as SliceView's ({list}), or null for one array through
   * display's colormap (autoDisplay: its limits from the data).
   */
  setGrid({ rows, columns, cells, channels = null, display = null, autoDisplay = true }) {
    this.rows = rows;
    this.columns = columns;
    this.cells = new Map(cells.map((c) => [c.key, { ...c, state: "loading" }]));
    this.channels = channels && { list: channels.list.map((c) => ({ ...c })) };
    if (display) this.display = { ...display };
    this.autoPending = this.channels ? this.channels.list.some((c) => c.auto) : autoDisplay;
    this.version++;
    this.complete = false;
    this.stats = null;
    this.#progress();
    this.#scheduleDraw(true);
  }

  /** The size of a cell's picture area in device pixels (the larger side), for choosing a level. */
  cellPixels() {
    const { size } = this.#layout();
    return Math.ceil(size * (window.devicePixelRatio || 1));
  }

  /** A cell's picture: {values: per channel typed array, ny, nx} (null: empty), or an error. */
  setCell(key, picture, error = null) {
    const c = this.cells.get(key);
    if (!c) return;
    if (error) Object.assign(c, { state: "error", error });
    else if (!picture) c.state = "empty";
    else Object.assign(c, { state: "ready", values: picture.values, ny: picture.ny, nx: picture.nx, bitmap: null, version: 0 });
    this.fresh.add(c);
    this.#checkComplete();
    this.#scheduleDraw(false);
  }

  /** Channel changes, as SliceView.setChannels: [{index, color?, lo?, hi?, visible?}]. */
  setChannels(changes) {
    if (!this.channels) return;
    for (const ch of changes) {
      const c = this.channels.list.find((x) => x.index === ch.index);
      if (c) Object.assign(c, ch);
    }
    if (this.channels.list.some((c) => c.auto && c.visible)) this.autoContrast();
    this.version++;
    this.#scheduleDraw(true);
  }

  setDisplay(d) {
    this.display = { ...this.display, ...d };
    this.version++;
    this.#scheduleDraw(true);
  }

  /** Limits from the percentiles of every cell's values (now, if all are there). */
  autoContrast() {
    this.autoPending = true;
    this.complete = false;
    this.#checkComplete();
  }

  setLabelOpacity() {}

  clear() {
    this.complete = false;
    this.cells = new Map();
    this.rows = [];
    this.columns = [];
    this.#scheduleDraw(true);
  }

  /** Screen rectangles (CSS px) of the cells' pictures as last drawn: [{key, label, x, y, w, h, ny, nx, state}]. */
  layoutOf() {
    const out = [];
    for (const c of this.cells.values()) {
      const r = this.#pictureRect(c);
      out.push({ key: c.key, label: c.label, row: c.row, col: c.col, state: c.state, ny: c.ny ?? null, nx: c.nx ?? null, ...r });
    }
    return out;
  }

  // ----------------------------------------------------------- layout

  #layout() {
    const nr = Math.max(1, this.rows.length);
    const nc = Math.max(1, this.columns.length);
    const w = (this.cw - MARGIN.left - MARGIN.right) / nc;
    const h = (this.ch - MARGIN.top - MARGIN.bottom) / nr;
    const size = Math.max(4, Math.min(w, h));
    const gap = Math.max(1, Math.round(size * 0.04));
    // The grid centred in the canvas.
    const x0 = MARGIN.left + (this.cw - MARGIN.left - MARGIN.right - size * nc) / 2;
    const y0 = MARGIN.top + (this.ch - MARGIN.top - MARGIN.bottom - size * nr) / 2;
    return { size: size - gap, pitch: size, gap, x0, y0 };
  }

  /** The cell's box, and its picture's rectangle in it (aspect kept, centred). */
  #pictureRect(c) {
    const { size, pitch, gap, x0, y0 } = this.#layout();
    const bx = x0 + c.col * pitch + gap / 2;
    const by = y0 + c.row * pitch + gap / 2;
    if (!(c.ny > 0 && c.nx > 0)) return { x: bx, y: by, w: size, h: size, box: { x: bx, y: by, w: size, h: size } };
    const s = Math.min(size / c.nx, size / c.ny);
    const w = c.nx * s;
    const h = c.ny * s;
    return { x: bx + (size - w) / 2, y: by + (size - h) / 2, w, h, box: { x: bx, y: by, w: size, h: size } };
  }

  #cellAt(px, py) {
    const { pitch, x0, y0 } = this.#layout();
    const col = Math.floor((px - x0) / pitch);
    const row = Math.floor((py - y0) / pitch);
    for (const c of this.cells.values()) if (c.row === row && c.col === col) return c;
    return null;
  }

  // ----------------------------------------------------------- limits

  #progress() {
    let ready = 0;
    for (const c of this.cells.values()) if (c.state !== "loading") ready++;
    this.cb.onProgress?.({ ready, failed: 0, total: this.cells.size, level: 0, stride: 1, unit: "pictures" });
  }

  #checkComplete() {
    if (this.complete) return;
    for (const c of this.cells.values()) if (c.state === "loading") return;
    this.complete = true;
    this.completions = (this.completions ?? 0) + 1;
    if (this.autoPending) {
      this.#updateStats(true);
      this.autoPending = false;
      this.version++;
    } else this.statsDue = true; // the picture first, the histogram right after
    this.#scheduleDraw(true);
  }

  /** Statistics of every cell's values (per channel), and the limits from them when ranks (auto). */
  #updateStats(ranks) {
    this.statsDue = false;
    const ready = [...this.cells.values()].filter((c) => c.state === "ready");
    if (this.channels) {
      const stats = new Map();
      for (const ch of this.channels.list) {
        const arrays = ready.map((c) => c.values[ch.index]).filter(Boolean);
        stats.set(ch.index, summarize(arrays, { ranks, maxSamples: ranks ? 1_000_000 : 1 << 18 }));
      }
      if (ranks) {
        const changed = [];
        for (const ch of this.channels.list) {
          if (!ch.auto || !stats.get(ch.index)?.count) continue;
          [ch.lo, ch.hi] = autoLimits(stats.get(ch.index), false);
          ch.auto = false;
          changed.push({ index: ch.index, lo: ch.lo, hi: ch.hi });
        }
        if (changed.length) this.cb.onChannelLimits?.(changed);
      }
      this.cb.onStats?.(null, stats);
    } else {
      const st = summarize(ready.map((c) => c.values[0]), { ranks, maxSamples: ranks ? 1_000_000 : 1 << 18 });
      if (ranks && st?.count) {
        const [lo, hi] = autoLimits(st, false);
        this.display = { ...this.display, lo, hi };
        this.cb.onAutoContrast?.(lo, hi);
      }
      this.cb.onStats?.(st, new Map());
    }
  }

  // ----------------------------------------------------------- drawing

  #resize() {
    const r = this.host.getBoundingClientRect();
    this.cw = Math.max(1, Math.round(r.width));
    this.ch = Math.max(1, Math.round(r.height));
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.cw * dpr);
    this.canvas.height = Math.round(this.ch * dpr);
    this.canvas.style.width = `${this.cw}px`;
    this.canvas.style.height = `${this.ch}px`;
    this.#scheduleDraw(true);
  }

  /**
   * Draws on the next frame (full: everything, else the fresh cells); while
   * pictures are still arriving, at most every DRAW_EVERY ms.
   */
  #scheduleDraw(full) {
    if (full) this.full = true;
    if (this.frame) {
      // (a frame waiting for pictures is brought forward for the last one, or another change)
      if (!full || this.frameWaits === 0) return;
      clearTimeout(this.frame);
    }
    const wait = this.complete || full ? 0 : Math.max(0, (this.lastDraw ?? 0) + DRAW_EVERY - performance.now());
    this.frameWaits = wait;
    this.frame = setTimeout(() => {
      this.frameWaits = 0;
      this.#progress(); // (its page updates come in the same frame)
      requestAnimationFrame(() => {
        this.frame = 0;
        this.lastDraw = performance.now();
        if (this.full) this.#draw();
        else this.#drawFresh();
      });
    }, wait);
  }

  /** A cell's bitmap in today's colours. */
  #bitmap(c) {
    if (c.bitmap && c.version === this.version) return c.bitmap;
    c.bitmap ??= new OffscreenCanvas(c.nx, c.ny);
    const g = c.bitmap.getContext("2d");
    const img = g.createImageData(c.nx, c.ny);
    if (this.channels) {
      const shown = this.channels.list.filter((ch) => ch.visible && c.values[ch.index]);
      paintComposite(shown.map((ch) => ({ values: c.values[ch.index], color: ch.color, lo: ch.lo, hi: ch.hi, inverted: ch.inverted })), c.nx * c.ny, img.data);
    } else paintColormap(c.values[0], img.data, this.display);
    g.putImageData(img, 0, 0);
    c.version = this.version;
    return c.bitmap;
  }

  #draw() {
    const { ctx } = this;
    this.full = false;
    this.fresh.clear();
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#16181d";
    ctx.fillRect(0, 0, this.cw, this.ch);
    if (!this.rows.length) return;
    const { size, pitch, gap, x0, y0 } = this.#layout();
    // Every position: an empty well is a dim outline.
    ctx.strokeStyle = "#2b2f36";
    ctx.lineWidth = 1;
    for (let r = 0; r < this.rows.length; r++) {
      for (let k = 0; k < this.columns.length; k++) ctx.strokeRect(Math.round(x0 + k * pitch + gap / 2) + 0.5, Math.round(y0 + r * pitch + gap / 2) + 0.5, Math.round(size) - 1, Math.round(size) - 1);
    }
    for (const c of this.cells.values()) this.#drawCell(c);
    // Row names down the left, column names along the top.
    ctx.font = FONT;
    ctx.fillStyle = "#d7dce3";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    this.columns.forEach((name, k) => ctx.fillText(name, x0 + k * pitch + pitch / 2, y0 - 11));
    ctx.textAlign = "right";
    this.rows.forEach((name, r) => ctx.fillText(name, x0 - 8, y0 + r * pitch + pitch / 2));
    this.#drawn();
  }

  /** Draws the cells that changed since the last frame into their places (the grid around them stays). */
  #drawFresh() {
    const dpr = window.devicePixelRatio || 1;
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    for (const c of this.fresh) if (this.cells.get(c.key) === c) this.#drawCell(c, true);
    this.fresh.clear();
    this.#drawn();
  }

  /** One cell: its picture (or what it is waiting for), and the hover's outline. over: on what was drawn before. */
  #drawCell(c, over = false) {
    const { ctx } = this;
    const r = this.#pictureRect(c);
    if (c.state === "ready" && !this.autoPending) {
      // (no colours until the shared limits are known)
      if (over) {
        ctx.fillStyle = "#16181d";
        ctx.fillRect(r.box.x, r.box.y, r.box.w, r.box.h);
      }
      ctx.imageSmoothingEnabled = r.w < c.nx;
      ctx.imageSmoothingQuality = "medium";
      ctx.drawImage(this.#bitmap(c), r.x, r.y, r.w, r.h);
    } else {
      ctx.fillStyle = c.state === "error" ? "rgba(200, 60, 60, 0.35)" : c.state === "empty" ? "#1b1e24" : "#23262d";
      ctx.fillRect(r.box.x, r.box.y, r.box.w, r.box.h);
    }
    if (this.hovered === c) {
      ctx.strokeStyle = "#2a6fdb";
      ctx.lineWidth = 2;
      ctx.strokeRect(r.box.x, r.box.y, r.box.w, r.box.h);
    }
  }

  #drawn() {
    this.drawn++;
    // Announced once per new picture (a hover's highlight is not one).
    const picture = `${this.version}:${this.completions}`;
    if (this.complete && this.announced !== picture) {
      this.announced = picture;
      this.cb.onRendered?.(this.drawn);
      if (this.statsDue) setTimeout(() => this.statsDue && this.#updateStats(false), 0);
    }
  }

  // ------------------------------------------------------------ input

  #bindEvents() {
    const c = this.canvas;
    const pos = (e) => {
      const r = c.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    c.addEventListener("pointermove", (e) => {
      const p = pos(e);
      const cell = this.#cellAt(p.x, p.y);
      if (cell !== this.hovered) {
        this.hovered = cell;
        this.#scheduleDraw(true);
      }
      this.cb.onHover?.(cell && this.#sample(cell, p));
    });
    c.addEventListener("pointerleave", () => {
      this.hovered = null;
      this.#scheduleDraw(true);
      this.cb.onHover?.(null);
    });
    c.addEventListener("click", (e) => {
      const cell = this.#cellAt(pos(e).x, pos(e).y);
      if (cell) this.cb.onOpen?.(cell);
    });
  }

  /** What is under a point of a cell: {cell, iy, ix, values: per channel} (no values outside its picture). */
  #sample(cell, p) {
    const out = { cell: { key: cell.key, label: cell.label, title: cell.title, state: cell.state } };
    if (cell.state !== "ready") return out;
    const r = this.#pictureRect(cell);
    const ix = Math.floor(((p.x - r.x) / r.w) * cell.nx);
    const iy = Math.floor(((p.y - r.y) / r.h) * cell.ny);
    if (ix < 0 || iy < 0 || ix >= cell.nx || iy >= cell.ny) return out;
    return { ...out, iy, ix, values: cell.values.map((v) => v[iy * cell.nx + ix]) };
  }
}
