// The Colour panel: a colormap (reversible) for one array, or — an
// OME-Zarr image's channels — each channel in its colour, shown or hidden,
// with contrast limits of its own; the limits (typed, dragged on the
// histogram, or Auto from the percentiles in view) and the histogram of
// the data in view are those of the colormap or of the selected channel.
// The Labels panel picks a label image to lay over the image.
import { $, el } from "./dom.js";
import { app, setStatus } from "./state.js";
import { colormapList, cssGradient, table } from "./colormaps.js";
import { formatNumber } from "./format.js";
import { dtypeText } from "./arrays.js";
import { saveStateSoon } from "./address.js";

let onComposite = (_on) => {};
let onLabels = (_name) => {};

/**
 * Wires the controls. composite(on) switches an image with channels
 * between the composite and one channel through a colormap; labels(name)
 * shows a label image (null: none).
 */
export function initColorControls({ composite, labels } = {}) {
  onComposite = composite ?? onComposite;
  onLabels = labels ?? onLabels;
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
    setLimits(lo, hi);
  };
  $("lo").addEventListener("change", onClim);
  $("hi").addEventListener("change", onClim);
  $("lo").addEventListener("input", onClim);
  $("hi").addEventListener("input", onClim);
  $("auto").addEventListener("click", () => {
    setStatus("loading");
    if (app.channels) {
      for (const c of app.channels) c.auto = true;
      app.stageView.setChannels(app.channels.map((c) => ({ index: c.index, auto: true })));
    } else app.manualClim = false;
    app.stageView.autoContrast();
  });
  $("composite").addEventListener("change", () => onComposite($("composite").checked));
  $("label-select").addEventListener("change", () => onLabels($("label-select").value || null));
  $("label-opacity").addEventListener("input", () => {
    app.labelOpacity = Number($("label-opacity").value);
    app.view.setLabelOpacity(app.labelOpacity);
  });
  initHistogramDrag();
}

/** The channel the limits and the histogram are about (composite), or null. */
function selectedChannel() {
  return app.channels?.find((c) => c.index === app.selectedChannel) ?? null;
}

/** The limits being edited: the colormap's or the selected channel's. */
function limits() {
  const c = selectedChannel();
  return c ? { lo: c.lo, hi: c.hi } : { lo: app.display.lo, hi: app.display.hi };
}

/** The statistics the histogram shows. */
function shownStats() {
  const c = selectedChannel();
  return c ? app.channelStats?.get(c.index) ?? null : app.stats;
}

function setLimits(lo, hi) {
  const c = selectedChannel();
  if (c) {
    c.lo = lo;
    c.hi = hi;
    c.auto = false;
    app.stageView.setChannels([{ index: c.index, lo, hi, auto: false }]);
    renderChannels();
    drawHistogram();
    saveStateSoon();
    return;
  }
  app.display.lo = lo;
  app.display.hi = hi;
  app.manualClim = true;
  applyDisplay();
}

function applyDisplay() {
  app.stageView.setDisplay(app.display);
  $("cmap-preview").style.background = cssGradient(app.display.cmap, app.display.reversed);
  drawHistogram();
  saveStateSoon();
}

/** Shows the controls for the current image: the colormap, or its channels. */
export function syncColorControls() {
  $("cmap").value = app.display.cmap;
  $("reverse").checked = app.display.reversed;
  $("cmap-preview").style.background = cssGradient(app.display.cmap, app.display.reversed);
  $("cmap-box").hidden = !!app.channels;
  $("channels-box").hidden = !app.image?.channelsAvailable;
  $("composite").checked = !!app.channels;
  renderChannels();
  syncClimInputs();
  drawHistogram();
}

/** The channel list: a box to show each, its colour (editable), name and limits; a click selects it. */
export function renderChannels() {
  const ul = $("channel-list");
  if (!app.channels) {
    ul.replaceChildren();
    return;
  }
  const hex = (c) => "#" + c.map((x) => x.toString(16).padStart(2, "0")).join("");
  ul.replaceChildren(
    ...app.channels.map((c) => {
      const show = el("input", { type: "checkbox", "data-channel": String(c.index), "aria-label": `show ${c.label}`, checked: c.visible });
      show.addEventListener("change", () => {
        c.visible = show.checked;
        app.stageView.setChannels([{ index: c.index, visible: c.visible }]);
        saveStateSoon();
      });
      const color = el("input", { type: "color", value: hex(c.color), "aria-label": `colour of ${c.label}` });
      color.addEventListener("input", () => {
        const n = parseInt(color.value.slice(1), 16);
        c.color = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
        app.stageView.setChannels([{ index: c.index, color: c.color }]);
        drawHistogram();
        saveStateSoon();
      });
      const li = el(
        "li",
        { class: `channel${c.index === app.selectedChannel ? " selected" : ""}`, "data-index": String(c.index), title: "Click to edit this channel's limits" },
        show,
        color,
        el("span", { class: "name", text: c.label }),
        el("span", { class: "limits muted", text: c.auto ? "auto" : `${formatNumber(c.lo)}–${formatNumber(c.hi)}` }),
      );
      li.addEventListener("click", (e) => {
        if (e.target === show || e.target === color) return;
        app.selectedChannel = c.index;
        renderChannels();
        syncClimInputs();
        drawHistogram();
      });
      return li;
    }),
  );
}

export function syncClimInputs() {
  const fmt = (v) => (Number.isFinite(v) ? String(Number(v.toPrecision(7))) : "");
  const { lo, hi } = limits();
  if (document.activeElement !== $("lo")) $("lo").value = fmt(lo);
  if (document.activeElement !== $("hi")) $("hi").value = fmt(hi);
}

/** Fills the Labels panel: none, or the label images the image has. */
export function syncLabelControls() {
  const names = app.labelNames ?? [];
  $("labels-panel").hidden = names.length === 0;
  $("label-select").replaceChildren(
    el("option", { value: "", text: "none" }),
    ...names.map((n) => el("option", { value: n, text: n, selected: n === app.labelName })),
  );
  $("label-opacity").value = String(app.labelOpacity);
}

function histRange() {
  const st = shownStats();
  const { lo, hi } = limits();
  const a = Math.min(st?.min ?? lo, lo);
  let b = Math.max(st?.max ?? hi, hi);
  if (!(b > a)) b = a + 1;
  return [a, b];
}

/** The colour at t in [0, 1] of the current colormap or channel ramp. */
function rampAt(t) {
  const c = selectedChannel();
  if (c) return c.color.map((k) => Math.round(k * (c.inverted ? 1 - t : t)));
  const tab = table(app.display.cmap, app.display.reversed);
  const j = Math.round(t * 255);
  return [tab[3 * j], tab[3 * j + 1], tab[3 * j + 2]];
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
  const st = shownStats();
  const [a, b] = histRange();
  const X = (v) => ((v - a) / (b - a)) * w;
  const barH = h - 16;
  g.fillStyle = "#f6f8fa";
  g.fillRect(0, 0, w, barH);
  const { lo, hi } = limits();
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
  // The colormap (or the channel's ramp) across the window, flat outside it.
  for (let x = 0; x < w; x++) {
    const v = a + ((x + 0.5) / w) * (b - a);
    let t = hi > lo ? (v - lo) / (hi - lo) : v > lo ? 1 : 0;
    t = Math.max(0, Math.min(1, t));
    g.fillStyle = `rgb(${rampAt(t).join(",")})`;
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
  const which = selectedChannel() ? `${selectedChannel().label}: ` : "";
  if (st && st.count) {
    s.textContent = `${which}in view: min ${formatNumber(st.min)}, max ${formatNumber(st.max)}${st.nan ? `, ${st.nan} NaN` : ""} · ${st.count.toLocaleString()} values${st.sampled ? " (sampled)" : ""}; bar height ∝ √count.`;
  } else if (st) {
    s.textContent = `${which}no finite values in view.`;
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
    const { lo, hi } = limits();
    which = Math.abs(v - lo) <= Math.abs(v - hi) ? "lo" : "hi";
    c.setPointerCapture(e.pointerId);
    move(e);
  });
  const move = (e) => {
    if (!which) return;
    let v = valueAt(e);
    if (app.arr && !/^(float|<f|>f|\|f|complex|<c|>c)/.test(dtypeText(app.arr))) v = Math.round(v);
    const { lo, hi } = limits();
    if (which === "lo") setLimits(Math.min(v, hi), hi);
    else setLimits(lo, Math.max(v, lo));
    syncClimInputs();
  };
  c.addEventListener("pointermove", move);
  c.addEventListener("pointerup", () => (which = null));
  c.addEventListener("pointercancel", () => (which = null));
}
