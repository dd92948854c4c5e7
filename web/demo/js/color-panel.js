// The Colour panel: colormap (reversible), contrast limits (typed, dragged
// on the histogram, or Auto from the percentiles in view), and the
// histogram and statistics of the data in view.
import { $, el } from "./dom.js";
import { app, setStatus } from "./state.js";
import { colormapList, cssGradient, table } from "./colormaps.js";
import { formatNumber } from "./format.js";
import { dtypeText } from "./arrays.js";
import { saveStateSoon } from "./address.js";
export function initColorControls() {
  const sel = $("cmap");
  for (const [name, label] of colormapList) sel.append(el("option", { value: name, text: label }));
  sel.addEventListener("change", () => {
    app.display.cmap = sel.value;
    applyDisplay();
  });
  $("reverse").addEventListener("change", () => {
    app.display.reversed = $("reverse").checked;
    applyDisplay();
  });
  const onClim = () => {
    const lo = Number($("lo").value);
    const hi = Number($("hi").value);
    if ($("lo").value === "" || $("hi").value === "" || !Number.isFinite(lo) || !Number.isFinite(hi)) return;
    app.display.lo = lo;
    app.display.hi = hi;
    app.manualClim = true;
    applyDisplay();
  };
  $("lo").addEventListener("change", onClim);
  $("hi").addEventListener("change", onClim);
  $("lo").addEventListener("input", onClim);
  $("hi").addEventListener("input", onClim);
  $("auto").addEventListener("click", () => {
    app.manualClim = false;
    setStatus("loading");
    app.view.autoContrast();
  });
  initHistogramDrag();
}

function applyDisplay() {
  app.view.setDisplay(app.display);
  $("cmap-preview").style.background = cssGradient(app.display.cmap, app.display.reversed);
  drawHistogram();
  saveStateSoon();
}

export function syncColorControls() {
  $("cmap").value = app.display.cmap;
  $("reverse").checked = app.display.reversed;
  $("cmap-preview").style.background = cssGradient(app.display.cmap, app.display.reversed);
  syncClimInputs();
}

export function syncClimInputs() {
  const fmt = (v) => (Number.isFinite(v) ? String(Number(v.toPrecision(7))) : "");
  if (document.activeElement !== $("lo")) $("lo").value = fmt(app.display.lo);
  if (document.activeElement !== $("hi")) $("hi").value = fmt(app.display.hi);
}

function histRange() {
  const st = app.stats;
  const { lo, hi } = app.display;
  let a = Math.min(st?.min ?? lo, lo);
  let b = Math.max(st?.max ?? hi, hi);
  if (!(b > a)) b = a + 1;
  return [a, b];
}

export function drawHistogram() {
  const c = $("histogram");
  const dpr = window.devicePixelRatio || 1;
  const w = c.clientWidth || 260;
  const h = c.clientHeight || 96;
  if (c.width !== Math.round(w * dpr)) c.width = Math.round(w * dpr);
  if (c.height !== Math.round(h * dpr)) c.height = Math.round(h * dpr);
  const g = c.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  const st = app.stats;
  const [a, b] = histRange();
  const X = (v) => ((v - a) / (b - a)) * w;
  const barH = h - 16;
  g.fillStyle = "#f6f8fa";
  g.fillRect(0, 0, w, barH);
  const { lo, hi, cmap, reversed } = app.display;
  // Shade the contrast window.
  g.fillStyle = "rgba(42,111,219,0.08)";
  g.fillRect(X(lo), 0, X(hi) - X(lo), barH);
  if (st && st.bins?.length) {
    let max = 0;
    for (const n of st.bins) max = Math.max(max, n);
    g.fillStyle = "#6b7685";
    const bw = st.binWidth;
    for (let i = 0; i < st.bins.length; i++) {
      if (!st.bins[i]) continue;
      const x0 = X(st.min + i * bw);
      const x1 = X(st.min + (i + 1) * bw);
      const bh = Math.max(1, Math.sqrt(st.bins[i] / max) * (barH - 4));
      g.fillRect(x0, barH - bh, Math.max(1, x1 - x0 - 0.5), bh);
    }
  }
  // The colormap across the window, flat outside it.
  const tab = table(cmap, reversed);
  for (let x = 0; x < w; x++) {
    const v = a + ((x + 0.5) / w) * (b - a);
    let j = hi > lo ? Math.round(((v - lo) / (hi - lo)) * 255) : v > lo ? 255 : 0;
    j = Math.max(0, Math.min(255, j));
    g.fillStyle = `rgb(${tab[3 * j]},${tab[3 * j + 1]},${tab[3 * j + 2]})`;
    g.fillRect(x, barH + 4, 1, 10);
  }
  g.strokeStyle = "#2a6fdb";
  g.lineWidth = 2;
  for (const v of [lo, hi]) {
    const x = Math.round(X(v));
    g.beginPath();
    g.moveTo(x, 0);
    g.lineTo(x, barH + 2);
    g.stroke();
  }
  const s = $("stats");
  if (st && st.count) {
    s.textContent = `In view: min ${formatNumber(st.min)}, max ${formatNumber(st.max)}${st.nan ? `, ${st.nan} NaN` : ""} · ${st.count.toLocaleString()} values${st.sampled ? " (sampled)" : ""}; bar height ∝ √count.`;
  } else if (st) {
    s.textContent = "No finite values in app.view.";
  } else s.textContent = "";
}

function initHistogramDrag() {
  const c = $("histogram");
  let which = null;
  const valueAt = (e) => {
    const r = c.getBoundingClientRect();
    const [a, b] = histRange();
    return a + ((e.clientX - r.left) / r.width) * (b - a);
  };
  c.addEventListener("pointerdown", (e) => {
    const v = valueAt(e);
    which = Math.abs(v - app.display.lo) <= Math.abs(v - app.display.hi) ? "lo" : "hi";
    c.setPointerCapture(e.pointerId);
    move(e);
  });
  const move = (e) => {
    if (!which) return;
    let v = valueAt(e);
    if (app.arr && !/^(float|<f|>f|\|f|complex|<c|>c)/.test(dtypeText(app.arr))) v = Math.round(v);
    if (which === "lo") app.display.lo = Math.min(v, app.display.hi);
    else app.display.hi = Math.max(v, app.display.lo);
    app.manualClim = true;
    syncClimInputs();
    applyDisplay();
  };
  c.addEventListener("pointermove", move);
  c.addEventListener("pointerup", () => (which = null));
  c.addEventListener("pointercancel", () => (which = null));
}
