// The Slice panel: which dimensions are rows and columns, whether row 0 is
// at the bottom, axis ticks, and a slider for each other dimension (with
// its coordinate: a coordinate array's value, or the physical position
// from OME-Zarr transforms), each of which can be played.
import { $, el } from "./dom.js";
import { app } from "./state.js";
import { formatNumber } from "./format.js";
import { unitInfo } from "./ome.js";
import { saveState, saveStateSoon } from "./address.js";
import { Player } from "./playback.js";
import { formatTime } from "./cftime.js";

/** The physical coordinate of index i along d, as text ("12.5 µm"), or "". */
export function physicalText(d, i) {
  const p = app.physical?.[d];
  if (!p || !(p.scale > 0)) return "";
  const u = unitInfo(p.unit)?.symbol;
  return `${formatNumber(Number((i * p.scale + p.translation).toPrecision(10)))}${u ? " " + u : ""}`;
}

/**
 * The coordinate of index i along d as text: a date for a CF time
 * coordinate (cftime.js), else the value with its units; "" without one.
 */
export function coordText(d, i) {
  const c = app.coords[d];
  if (!c) return "";
  const date = app.coordTimes?.[d] && formatTime(c[i], app.coordTimes[d]);
  if (date) return date;
  return `${formatNumber(c[i])}${app.coordUnits?.[d] ? " " + app.coordUnits[d] : ""}`;
}

/** The dimensions with a slider: neither displayed nor the composite's channels. */
function sliderDims() {
  const out = [];
  for (let d = 0; d < app.arr.shape.length; d++) {
    if (d === app.slice.ydim || d === app.slice.xdim) continue;
    if (app.channels && d === app.image?.channelAxis) continue;
    out.push(d);
  }
  return out;
}

/** Moves dimension d to index v (clamped): the view follows, the next frame in that direction is read ahead. */
export function stepTo(d, v, { prefetchNext = true } = {}) {
  const n = app.arr.shape[d];
  v = Math.min(n - 1, Math.max(0, v));
  const old = app.slice.index[d];
  if (v === old) return;
  app.slice.index[d] = v;
  const range = $("sliders").querySelector(`input[type=range][data-dim="${d}"]`);
  if (range) range.value = String(v);
  app.playDim = d;
  updateSliderLabels();
  app.view.setSlice(app.slice);
  // Stepping through frames one by one: read the next one while this one shows.
  if (prefetchNext && !app.player?.playing) {
    const next = v + Math.sign(v - old);
    if (Math.abs(v - old) === 1 && next >= 0 && next < n) {
      const at = app.slice.index.slice();
      at[d] = next;
      app.view.prefetch([at]);
    } else app.view.prefetch([]);
  }
  saveStateSoon();
}

export function buildSliceControls() {
  const a = app.arr;
  const nd = a.shape.length;
  app.player?.stop();
  const opts = (sel) => app.dimNames.map((n, d) => el("option", { value: String(d), text: `${n} (${a.shape[d]})`, selected: d === sel }));
  $("ydim").replaceChildren(...opts(app.slice.ydim));
  $("xdim").replaceChildren(...opts(app.slice.xdim));
  const box = $("sliders");
  box.replaceChildren();
  const dims = sliderDims();
  if (!dims.includes(app.playDim)) app.playDim = dims.find((d) => app.image?.axes?.[d]?.type === "time") ?? dims[0] ?? null;
  for (const d of dims) {
    const n = a.shape[d];
    const range = el("input", { type: "range", min: "0", max: String(n - 1), step: "1", value: String(app.slice.index[d]), "data-dim": String(d), "aria-label": app.dimNames[d] });
    range.addEventListener("input", () => stepTo(d, Number(range.value)));
    const play = el("button", { type: "button", class: "step play", "data-play": String(d), title: `play ${app.dimNames[d]} (space)`, text: "▶", disabled: n < 2 });
    play.addEventListener("click", () => {
      app.playDim = d;
      app.player.toggle(d);
    });
    box.append(
      el(
        "div",
        { class: "slider" },
        el("div", { class: "head" }, el("span", { class: "dim", text: app.dimNames[d] }), el("span", { class: "val", "data-val": String(d) })),
        el(
          "div",
          { class: "ctl" },
          el("button", { type: "button", class: "step", title: "previous (,)", text: "‹", onclick: () => stepTo(d, app.slice.index[d] - 1) }),
          range,
          el("button", { type: "button", class: "step", title: "next (.)", text: "›", onclick: () => stepTo(d, app.slice.index[d] + 1) }),
          play,
        ),
      ),
    );
  }
  if (!dims.length) box.append(el("p", { class: "muted small", text: nd === 2 ? "Both dimensions are shown." : "Every other dimension is shown (channels in the composite)." }));
  $("play-box").hidden = !dims.length;
  $("ticks").value = app.ticks;
  $("ticks").querySelector('option[value="physical"]').disabled = !app.physical;
  updateSliderLabels();
}

export function updateSliderLabels() {
  for (const v of $("sliders").querySelectorAll("[data-val]")) {
    const d = Number(v.dataset.val);
    const i = app.slice.index[d];
    const phys = physicalText(d, i);
    const c = coordText(d, i);
    v.textContent = `${i} / ${app.arr.shape[d] - 1}${c ? ` · ${c}` : ""}${phys ? ` · ${phys}` : ""}`;
  }
}

function showPlayState(st) {
  for (const b of $("sliders").querySelectorAll("[data-play]")) {
    const on = st.dim === Number(b.dataset.play);
    b.textContent = on ? "❚❚" : "▶";
    b.classList.toggle("on", on);
  }
  $("play-state").textContent = st.dim === null ? "" : `playing ${app.dimNames[st.dim]}${st.achieved ? ` · ${st.achieved.toFixed(1)} frames/s` : ""}`;
}

function changeDims(ydim, xdim) {
  if (ydim === xdim) {
    // Picking the other's dimension swaps them.
    const old = app.slice;
    if (ydim === old.ydim) xdim = old.ydim === ydim ? old.xdim : old.ydim;
    else ydim = old.xdim === xdim ? old.ydim : old.xdim;
    if (ydim === xdim) return;
  }
  app.slice = { ...app.slice, ydim, xdim };
  buildSliceControls();
  app.view.setSlice(app.slice);
  autoFlip();
  onDimsChanged();
  saveState();
}

let onDimsChanged = () => {};

/** North up: latitudes that increase with the row put row 0 at the bottom. */
export function autoFlip() {
  if (app.flipChosen || !app.slice) return;
  const d = app.slice.ydim;
  const c = app.coords[d];
  const latLike = /^(lat|latitude|y_lat|nav_lat)$/i.test(app.dimNames[d]) || /north/i.test(app.coordUnits?.[d] ?? "");
  const flip = !!(c && latLike && c.length > 1 && c[c.length - 1] > c[0]);
  $("flip").checked = flip;
  app.view.setFlip(flip);
}

/** Wires the dimension pickers, the flip box, the ticks and playback; dimsChanged runs after rows or columns change. */
export function initSlicePanel(dimsChanged = () => {}) {
  onDimsChanged = dimsChanged;
  $("ydim").addEventListener("change", () => {
    const y = Number($("ydim").value);
    let x = app.slice.xdim;
    if (y === x) x = app.slice.ydim;
    changeDims(y, x);
  });
  $("xdim").addEventListener("change", () => {
    const x = Number($("xdim").value);
    let y = app.slice.ydim;
    if (x === y) y = app.slice.xdim;
    changeDims(y, x);
  });
  $("swap-dims").addEventListener("click", () => changeDims(app.slice.xdim, app.slice.ydim));
  $("flip").addEventListener("change", () => {
    app.flipChosen = true;
    app.view.setFlip($("flip").checked);
    saveState();
  });
  $("ticks").addEventListener("change", () => {
    app.ticks = $("ticks").value;
    app.view.setTicks(app.ticks);
    saveState();
  });
  app.player = new Player({
    getIndex: () => app.slice.index,
    shape: () => app.arr.shape,
    step: (d, v) => stepTo(d, v, { prefetchNext: false }),
    rendered: () => app.status === "rendered",
    prefetch: (indices) => app.view.prefetch(indices),
    onState: showPlayState,
  });
  $("fps").addEventListener("change", () => app.player.setRate(Number($("fps").value)));
  app.player.fps = Number($("fps").value);
}
