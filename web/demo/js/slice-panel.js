// The Slice panel: which dimensions are rows and columns, whether row 0 is
// at the bottom, and a slider for each other dimension.
import { $, el } from "./dom.js";
import { app } from "./state.js";
import { formatNumber } from "./format.js";
import { saveState, saveStateSoon } from "./address.js";
export function buildSliceControls() {
  const a = app.arr;
  const nd = a.shape.length;
  const opts = (sel) => app.dimNames.map((n, d) => el("option", { value: String(d), text: `${n} (${a.shape[d]})`, selected: d === sel }));
  $("ydim").replaceChildren(...opts(app.slice.ydim));
  $("xdim").replaceChildren(...opts(app.slice.xdim));
  const box = $("sliders");
  box.replaceChildren();
  for (let d = 0; d < nd; d++) {
    if (d === app.slice.ydim || d === app.slice.xdim) continue;
    const n = a.shape[d];
    const range = el("input", { type: "range", min: "0", max: String(n - 1), step: "1", value: String(app.slice.index[d]), "data-dim": String(d), "aria-label": app.dimNames[d] });
    const set = (v) => {
      v = Math.min(n - 1, Math.max(0, v));
      range.value = String(v);
      app.slice.index[d] = v;
      updateSliderLabels();
      app.view.setSlice(app.slice);
      saveStateSoon();
    };
    range.addEventListener("input", () => set(Number(range.value)));
    box.append(
      el(
        "div",
        { class: "slider" },
        el("div", { class: "head" }, el("span", { class: "dim", text: app.dimNames[d] }), el("span", { class: "val", "data-val": String(d) })),
        el(
          "div",
          { class: "ctl" },
          el("button", { type: "button", class: "step", title: "previous", text: "‹", onclick: () => set(app.slice.index[d] - 1) }),
          range,
          el("button", { type: "button", class: "step", title: "next", text: "›", onclick: () => set(app.slice.index[d] + 1) }),
        ),
      ),
    );
  }
  if (nd === 2) box.append(el("p", { class: "muted small", text: "Both dimensions are shown." }));
  updateSliderLabels();
}

export function updateSliderLabels() {
  for (const v of $("sliders").querySelectorAll("[data-val]")) {
    const d = Number(v.dataset.val);
    const i = app.slice.index[d];
    const c = app.coords[d];
    v.textContent = `${i} / ${app.arr.shape[d] - 1}${c ? ` · ${formatNumber(c[i])}${app.coordUnits?.[d] ? " " + app.coordUnits[d] : ""}` : ""}`;
  }
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
  saveState();
}

export /** North up: latitudes that increase with the row put row 0 at the bottom. */
function autoFlip() {
  if (app.flipChosen || !app.slice) return;
  const d = app.slice.ydim;
  const c = app.coords[d];
  const latLike = /^(lat|latitude|y_lat|nav_lat)$/i.test(app.dimNames[d]) || /north/i.test(app.coordUnits?.[d] ?? "");
  const flip = !!(c && latLike && c.length > 1 && c[c.length - 1] > c[0]);
  $("flip").checked = flip;
  app.view.setFlip(flip);
}

/** Wires the dimension pickers and the flip box. */
export function initSlicePanel() {
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
}
