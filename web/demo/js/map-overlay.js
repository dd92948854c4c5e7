// Drawn over a map (a canvas above the slice view's, which keeps the
// data's own pixels): coastlines, a graticule and its labels in degrees.
// Everything is placed by the map's coordinates (geo.js): on a
// latitude–longitude grid through its coordinate values (rows flipped,
// longitudes 0–360 or −180–180 alike), on a projected grid by projecting
// the coastlines and graticule with proj4 (crs.js) into its x/y first.
// Lines are kept in array index space and only moved and scaled with the
// view.
import { coastlines } from "./coast.js";
import { degreeLabel, graticuleStep } from "./geo.js";

const COAST = "rgba(255, 255, 255, 0.95)";
const GRID = "rgba(255, 255, 255, 0.3)";
const FONT = "11px system-ui, sans-serif";

export class MapOverlay {
  /** @param {HTMLElement} host the slice view's host; view: the SliceView. */
  constructor(host, view) {
    this.view = view;
    this.canvas = document.createElement("canvas");
    this.canvas.className = "map-overlay";
    host.appendChild(this.canvas);
    this.ctx = this.canvas.getContext("2d");
    this.map = null;
    this.coast = null; // {scale, lines: [Float64Array of row, col pairs (NaN breaks)]}
    this.grid = new Map(); // step → [{axis, value, line}]
    this.labels = [];
  }

  /**
   * Shows a map (geo.js mapOf, with project: (lon, lat) → [x, y] for a
   * projected one), or nothing (null).
   */
  set(map) {
    this.map = map;
    this.coast = null;
    this.grid = new Map();
    this.labels = [];
    this.wantScale = "110m";
    if (map) this.#loadCoast("110m");
    this.draw();
  }

  async #loadCoast(scale) {
    const map = this.map;
    this.loading = scale;
    const lines = await coastlines(scale).catch(() => null);
    if (this.map !== map || !lines) return;
    this.coast = { scale, lines: lines.map((l) => this.#toIndex(l)) };
    this.loading = null;
    this.draw();
  }

  /** A polyline of degrees in index space ([row, col] pairs), broken (NaN) where it leaves the map or jumps a seam. */
  #toIndex(lonlat) {
    const m = this.map;
    const out = [];
    let prev = null;
    for (let k = 0; k < lonlat.length; k += 2) {
      let p;
      if (m.kind === "latlon") p = m.toIndex(lonlat[k], lonlat[k + 1]);
      else {
        const xy = m.project(lonlat[k], lonlat[k + 1]);
        p = xy ? m.toIndex(xy[0], xy[1]) : [NaN, NaN];
      }
      const ok = Number.isFinite(p[0]) && Number.isFinite(p[1]);
      // Longitudes wrap: a step across half the map is a jump, not a line.
      if (ok && prev && m.kind === "latlon" && Math.abs(p[1] - prev[1]) > m.width / 2) out.push(NaN, NaN);
      out.push(p[0], p[1]);
      prev = ok ? p : null;
    }
    return Float64Array.from(out);
  }

  /** Graticule lines for a step: meridians and parallels in index space. */
  #graticule(step) {
    if (this.grid.has(step)) return this.grid.get(step);
    const lines = [];
    const dense = (f, from, to) => {
      const pts = [];
      const d = Math.min(1, step / 4);
      for (let v = from; v <= to + 1e-9; v += d) pts.push(...f(v));
      return this.#toIndex(Float64Array.from(pts));
    };
    for (let lon = -180; lon < 180; lon += step) lines.push({ axis: "lon", value: lon, line: dense((la) => [lon, Math.max(-89.999, Math.min(89.999, la))], -90, 90) });
    for (let lat = -90 + step; lat < 90; lat += step) lines.push({ axis: "lat", value: lat, line: dense((lo) => [lo, lat], -180, 180) });
    this.grid.set(step, lines);
    return lines;
  }

  #resize() {
    const v = this.view;
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(v.cw * dpr);
    const h = Math.round(v.ch * dpr);
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.canvas.style.width = `${v.cw}px`;
      this.canvas.style.height = `${v.ch}px`;
    }
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }

  /** Draws the lines through a path: index space → screen (CSS px). */
  #stroke(lines) {
    const { ctx, view } = this;
    ctx.beginPath();
    for (const l of lines) {
      let pen = false;
      for (let k = 0; k < l.length; k += 2) {
        const r = l[k];
        const c = l[k + 1];
        if (!(Number.isFinite(r) && Number.isFinite(c))) {
          pen = false;
          continue;
        }
        const p = view.toScreen(c + 0.5, r + 0.5);
        if (pen) ctx.lineTo(p.px, p.py);
        else ctx.moveTo(p.px, p.py);
        pen = true;
      }
    }
    ctx.stroke();
  }

  /** Redraws for the view as it is (the slice view calls this after each of its frames). */
  draw() {
    const { ctx, view, map } = this;
    this.#resize();
    ctx.clearRect(0, 0, view.cw, view.ch);
    this.labels = [];
    if (!map || !view.arr) return;
    // The data's rectangle on screen: lines stay inside it.
    const a = view.toScreen(0, 0);
    const b = view.toScreen(view.W, view.H);
    const box = { x0: Math.max(0, Math.min(a.px, b.px)), x1: Math.min(view.cw, Math.max(a.px, b.px)), y0: Math.max(0, Math.min(a.py, b.py)), y1: Math.min(view.ch, Math.max(a.py, b.py)) };
    if (box.x1 <= box.x0 || box.y1 <= box.y0) return;
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0);
    ctx.clip();
    // Degrees across the view, for the graticule's step and the coastlines' scale.
    const span = this.#spanDegrees();
    const step = graticuleStep(span);
    const grid = this.#graticule(step);
    ctx.strokeStyle = GRID;
    ctx.lineWidth = 1;
    this.#stroke(grid.map((g) => g.line));
    const scale = span < 60 ? "50m" : "110m";
    if (this.coast && this.coast.scale !== scale && this.loading !== scale) this.#loadCoast(scale);
    if (this.coast) {
      ctx.strokeStyle = COAST;
      ctx.lineWidth = 1.25;
      this.#stroke(this.coast.lines);
    }
    ctx.restore();
    this.#labels(grid, box);
    this.step = step;
  }

  /** About how many degrees of longitude the view spans (of latitude where that is less). */
  #spanDegrees() {
    const m = this.map;
    const v = this.view;
    if (m.kind === "latlon") {
      const cols = Math.min(v.W, v.cw / v.view.z);
      return Math.max(1, ((m.lon[1] - m.lon[0]) * cols) / v.W);
    }
    // Projected: the columns in view, in metres, in degrees of latitude.
    const cols = Math.min(v.W, v.cw / v.view.z);
    return Math.max(1, (cols * this.#pixelMetres()) / 111e3);
  }

  /** Metres per array pixel of a projected map (from the centre of the data). */
  #pixelMetres() {
    const m = this.map;
    if (this.metres !== undefined && this.metresMap === m) return this.metres;
    // Two places 1° of latitude apart near the map's centre, in index space.
    let best = 25e3;
    for (const [lon, lat] of [[0, 60], [0, 0], [0, -60], [-45, 70], [0, -70], [100, 30]]) {
      const p = m.project(lon, lat);
      const q = m.project(lon, lat + 1);
      if (!p || !q) continue;
      const i = m.toIndex(p[0], p[1]);
      const j = m.toIndex(q[0], q[1]);
      if (![...i, ...j].every(Number.isFinite)) continue;
      best = 111e3 / Math.hypot(i[0] - j[0], i[1] - j[1]);
      break;
    }
    this.metres = best;
    this.metresMap = m;
    return best;
  }

  /** Labels where meridians cross the bottom edge and parallels the left edge of the data in view. */
  #labels(grid, box) {
    const { ctx, view } = this;
    ctx.save();
    ctx.font = FONT;
    ctx.textBaseline = "middle";
    const placed = [];
    for (const g of grid) {
      const edge = g.axis === "lon" ? box.y1 - 9 : box.x0 + 4;
      let at = null;
      let prev = null;
      for (let k = 0; k < g.line.length && !at; k += 2) {
        if (!Number.isFinite(g.line[k])) {
          prev = null;
          continue;
        }
        const p = view.toScreen(g.line[k + 1] + 0.5, g.line[k] + 0.5);
        if (prev) {
          const [u0, u1] = g.axis === "lon" ? [prev.py, p.py] : [prev.px, p.px];
          if ((u0 - edge) * (u1 - edge) <= 0 && u0 !== u1) {
            const f = (edge - u0) / (u1 - u0);
            at = g.axis === "lon" ? { x: prev.px + f * (p.px - prev.px), y: edge } : { x: edge, y: prev.py + f * (p.py - prev.py) };
          }
        }
        prev = p;
      }
      if (!at || at.x < box.x0 || at.x > box.x1 || at.y < box.y0 || at.y > box.y1) continue;
      const text = degreeLabel(g.value, g.axis);
      const w = ctx.measureText(text).width + 6;
      const x = g.axis === "lon" ? at.x - w / 2 : at.x;
      const r = { x, y: at.y - 8, w, h: 16 };
      if (placed.some((q) => r.x < q.x + q.w && q.x < r.x + r.w && r.y < q.y + q.h && q.y < r.y + r.h)) continue;
      placed.push(r);
      ctx.fillStyle = "rgba(0, 0, 0, 0.55)";
      ctx.fillRect(r.x, r.y, r.w, r.h);
      ctx.fillStyle = "#ffffff";
      ctx.textAlign = "left";
      ctx.fillText(text, r.x + 3, at.y);
      this.labels.push({ text, axis: g.axis, value: g.value, x: at.x, y: at.y });
    }
    ctx.restore();
  }
}
