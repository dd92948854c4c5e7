// Keyboard shortcuts for the whole page, so they work wherever the focus
// is — on the image, a slider, a button — except while typing in a text
// box: + − 0 1 zoom, arrows pan (a focused slider keeps its own arrows),
// space plays or pauses the axis last stepped, "," and "." step it.
import { $ } from "./dom.js";
import { app } from "./state.js";
import { stepTo } from "./slice-panel.js";

function typing(t) {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return true;
  return t instanceof HTMLInputElement && !["range", "checkbox", "radio", "button", "color"].includes(t.type);
}

export function initKeys() {
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if ($("view-host").hidden || !app.arr || (e.target instanceof Element && e.target.closest("#tree"))) return;
    const view = app.view;
    const onSlider = e.target instanceof HTMLInputElement && e.target.type === "range";
    const k = e.key;
    const d = app.playDim;
    if (k === "+" || k === "=") view.zoomBy(1.5);
    else if (k === "-" || k === "_") view.zoomBy(1 / 1.5);
    else if (k === "0") view.fit();
    else if (k === "1") view.actualSize();
    else if ((k === " " || k === "k") && d !== null && !(e.target instanceof HTMLButtonElement)) app.player.toggle(d);
    else if ((k === "," || k === "<") && d !== null) stepTo(d, app.slice.index[d] - 1);
    else if ((k === "." || k === ">") && d !== null) stepTo(d, app.slice.index[d] + 1);
    else if (k.startsWith("Arrow") && !onSlider && e.target !== view.canvas) {
      // The canvas pans on its own; elsewhere (not on a slider) arrows pan too.
      const step = 60;
      if (k === "ArrowLeft") view.panBy(step, 0);
      else if (k === "ArrowRight") view.panBy(-step, 0);
      else if (k === "ArrowUp") view.panBy(0, step);
      else view.panBy(0, -step);
    } else return;
    e.preventDefault();
  });
}
