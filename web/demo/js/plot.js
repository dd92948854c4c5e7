// One-dimensional arrays as a line plot, and a value table for arrays that
// are not numbers (strings, bytes, structured, objects) or have no
// dimensions. Reads are bounded like the slice view's: a strided read of
// at most a few thousand points, touching a bounded number of chunks.
import * as zarr from "zarr-wasm";
import { numericKind, readChunkShape } from "./arrays.js";
import { formatNumber } from "./format.js";

const MAX_POINTS = 4096;
const CHUNK_BUDGET = 1024;

function toNumbers(res, kind) {
  const d = res.data;
  const items = kind === "complex" ? 2 : 1;
  const n = d.length / items;
  const v = new Float64Array(n);
  const big = typeof d[0] === "bigint";
  for (let i = 0; i < n; i++) v[i] = items === 2 ? Math.hypot(d[2 * i], d[2 * i + 1]) : big ? Number(d[i]) : d[i];
  return v;
}

/** Ticks at "nice" steps covering [lo, hi]. */
export function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return out;
}

export class LinePlot {
  constructor(host, cb = {}) {
    this.host = host;
    this.cb = cb;
    this.canvas = document.createElement("canvas");
    this.canvas.className = "plot-canvas";
    host.appendChild(this.canvas);
    this.ctx = this.canvas.getContext("2d");
    this.values = null;
    new ResizeObserver(() => this.#draw()).observe(host);
    this.canvas.addEventListener("pointermove", (e) => {
      const r = this.canvas.getBoundingClientRect();
      this.hoverX = e.clientX - r.left;
      this.#draw();
    });
    this.canvas.addEventListener("pointerleave", () => {
      this.hoverX = null;
      this.#draw();
      this.cb.onHover?.(null);
    });
  }

  async show(arr, { signal } = {}) {
    this.arr = arr;
    this.values = null;
    this.#draw();
    const n = arr.shape[0];
    const c = readChunkShape(arr)[0] || 1;
    let s = Math.max(1, Math.ceil(n / MAX_POINTS));
    while (Math.ceil(n / Math.max(c, s)) > CHUNK_BUDGET) s *= 2;
    const res = await arr.get([zarr.slice(0, n, s)], { signal });
    this.stride = s;
    this.values = toNumbers(res, numericKind(arr));
    this.#draw();
    return { stride: s, count: this.values.length };
  }

  #draw() {
    const r = this.host.getBoundingClientRect();
    const w = Math.max(1, Math.round(r.width));
    const h = Math.max(1, Math.round(r.height));
    const dpr = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(w * dpr) || this.canvas.height !== Math.round(h * dpr)) {
      this.canvas.width = Math.round(w * dpr);
      this.canvas.height = Math.round(h * dpr);
      this.canvas.style.width = `${w}px`;
      this.canvas.style.height = `${h}px`;
    }
    const g = this.ctx;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = "#ffffff";
    g.fillRect(0, 0, w, h);
    const v = this.values;
    if (!v || v.length === 0) return;
    let lo = Infinity;
    let hi = -Infinity;
    for (const x of v) {
      if (Number.isFinite(x)) {
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
    }
    if (!(hi >= lo)) return;
    if (hi === lo) {
      lo -= 0.5;
      hi += 0.5;
    }
    const pad = (hi - lo) * 0.05;
    lo -= pad;
    hi += pad;
    const m = { l: 64, r: 16, t: 16, b: 34 };
    const pw = w - m.l - m.r;
    const ph = h - m.t - m.b;
    const n = this.arr.shape[0];
    const X = (i) => m.l + (n > 1 ? (i / (n - 1)) * pw : pw / 2);
    const Y = (y) => m.t + (1 - (y - lo) / (hi - lo)) * ph;
    g.font = "11px system-ui, sans-serif";
    g.strokeStyle = "#e3e6ea";
    g.fillStyle = "#5b6470";
    g.lineWidth = 1;
    g.textAlign = "right";
    g.textBaseline = "middle";
    for (const t of niceTicks(lo, hi)) {
      const y = Math.round(Y(t)) + 0.5;
      g.beginPath();
      g.moveTo(m.l, y);
      g.lineTo(w - m.r, y);
      g.stroke();
      g.fillText(formatNumber(t), m.l - 6, y);
    }
    g.textAlign = "center";
    g.textBaseline = "top";
    for (const t of niceTicks(0, n - 1, 6)) {
      if (!Number.isInteger(t)) continue;
      g.fillText(String(t), X(t), h - m.b + 8);
    }
    g.strokeStyle = "#2a6fdb";
    g.lineWidth = 1.5;
    g.beginPath();
    let pen = false;
    for (let k = 0; k < v.length; k++) {
      if (!Number.isFinite(v[k])) {
        pen = false;
        continue;
      }
      const x = X(k * this.stride);
      const y = Y(v[k]);
      if (pen) g.lineTo(x, y);
      else g.moveTo(x, y);
      pen = true;
    }
    g.stroke();
    if (this.hoverX != null && this.hoverX >= m.l && this.hoverX <= w - m.r) {
      const i = Math.round(((this.hoverX - m.l) / pw) * (n - 1) / this.stride);
      const k = Math.min(v.length - 1, Math.max(0, i));
      const x = X(k * this.stride);
      g.strokeStyle = "rgba(0,0,0,0.35)";
      g.lineWidth = 1;
      g.beginPath();
      g.moveTo(Math.round(x) + 0.5, m.t);
      g.lineTo(Math.round(x) + 0.5, h - m.b);
      g.stroke();
      if (Number.isFinite(v[k])) {
        g.fillStyle = "#2a6fdb";
        g.beginPath();
        g.arc(x, Y(v[k]), 3.5, 0, 2 * Math.PI);
        g.fill();
      }
      this.cb.onHover?.({ i: k * this.stride, value: v[k], stride: this.stride });
    }
  }
}

// ----------------------------------------------------------- value table

function cell(v) {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v.length > 80 ? v.slice(0, 80) + "…" : v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return formatNumber(v);
  if (v instanceof Uint8Array) {
    const hex = [...v.subarray(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
    return `${v.length} bytes: ${hex}${v.length > 16 ? " …" : ""}`;
  }
  if (ArrayBuffer.isView(v)) return `[${[...v].slice(0, 8).map(cell).join(", ")}${v.length > 8 ? ", …" : ""}]`;
  try {
    return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
  } catch {
    return String(v);
  }
}

/** Element i of a get() result, whatever the data type. */
function element(data, i, items, fieldShapes) {
  if (Array.isArray(data)) return data[i];
  if (ArrayBuffer.isView(data)) {
    if (items === 2) return `${formatNumber(data[2 * i])} ${data[2 * i + 1] < 0 ? "−" : "+"} ${formatNumber(Math.abs(data[2 * i + 1]))}i`;
    return data[i];
  }
  if (data && typeof data === "object") {
    const o = {};
    for (const [k, f] of Object.entries(data)) {
      const sub = fieldShapes?.[k] ?? 1;
      o[k] = sub > 1 && ArrayBuffer.isView(f) ? Array.from(f.subarray(i * sub, (i + 1) * sub), (x) => (typeof x === "bigint" ? x.toString() : x)) : element(f, i, 1, null);
      if (typeof o[k] === "bigint") o[k] = o[k].toString();
    }
    return o;
  }
  return data;
}

/**
 * The first values of an array as a table: 0-d one cell, 1-d a column,
 * n-d the first rows × columns of the last two dimensions (index 0 elsewhere).
 */
export async function valueTable(arr, { signal, rows = 24, cols = 8 } = {}) {
  const sh = arr.shape;
  const nd = sh.length;
  let sel = null;
  let R = 1;
  let C = 1;
  if (nd === 1) {
    R = Math.min(sh[0], 100);
    sel = [zarr.slice(0, R)];
  } else if (nd >= 2) {
    R = Math.min(sh[nd - 2], rows);
    C = Math.min(sh[nd - 1], cols);
    sel = sh.map((_, d) => (d === nd - 2 ? zarr.slice(0, R) : d === nd - 1 ? zarr.slice(0, C) : 0));
  }
  const res = await arr.get(sel, { signal });
  const t = arr.dataType ?? {};
  const fieldShapes = t.fields ? Object.fromEntries(t.fields.map((f) => [f.name, f.shape.reduce((a, b) => a * b, 1)])) : null;
  const out = [];
  for (let i = 0; i < R; i++) {
    const row = [];
    for (let j = 0; j < C; j++) row.push(cell(element(res.data, i * C + j, t.items, fieldShapes)));
    out.push(row);
  }
  return { rows: out, nd, shown: [R, C], prefix: nd > 2 ? sh.slice(0, nd - 2).map(() => 0) : [] };
}
