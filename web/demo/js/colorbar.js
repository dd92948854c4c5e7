// The colour bar in the stage's head, for the slice view (an array drawn through a colormap):
// the colormap from the lower to the upper contrast limit, their values,
// and what is shown — the array's long_name (else standard_name, else its
// name) and its units.
import { $ } from "./dom.js";
import { app } from "./state.js";
import { cssGradient } from "./colormaps.js";
import { formatNumber } from "./format.js";

/** Shows or hides the colour bar for what the view shows now. */
export function updateColorbar() {
  const bar = $("colorbar");
  const a = app.arr;
  const show = !!a && !!app.slice && !app.channels && (!$("view-host").hidden || !$("volume-host").hidden);
  bar.hidden = !show;
  if (!show) return;
  const attrs = a.attrs ?? {};
  const name = [attrs.long_name, attrs.standard_name, a.name].find((x) => typeof x === "string" && x) ?? "";
  const units = typeof attrs.units === "string" && attrs.units ? attrs.units : "";
  $("colorbar-title").textContent = `${name}${units ? ` (${units})` : ""}`;
  $("colorbar-ramp").style.background = cssGradient(app.display.cmap, app.display.reversed);
  const { lo, hi } = app.display;
  $("colorbar-lo").textContent = formatNumber(lo);
  $("colorbar-hi").textContent = formatNumber(hi);
}
