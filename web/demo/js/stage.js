// The stage: which of the slice view, the grid view (plates and wells), the
// plot, the table or the empty message is shown, and the loading note over
// it.
import { $, el } from "./dom.js";

export function showLoading(text) {
  const lo = $("loading");
  lo.textContent = text;
  lo.hidden = false;
}

export function hideLoading() {
  $("loading").hidden = true;
}

/** Shows one of "view", "volume", "grid", "plot", "table" or "empty" (with a message). */
export function showMode(mode, message) {
  $("view-host").hidden = mode !== "view";
  $("volume-host").hidden = mode !== "volume";
  $("view-tools").hidden = mode !== "view" && mode !== "volume";
  $("view-3d").classList.toggle("on", mode === "volume");
  $("grid-host").hidden = mode !== "grid";
  if (mode !== "view" && mode !== "volume") $("colorbar").hidden = true;
  $("plot-host").hidden = mode !== "plot";
  $("table-host").hidden = mode !== "table";
  $("empty").hidden = mode !== "empty";
  if (mode === "empty") $("empty").replaceChildren(el("p", { text: message ?? "Open a Zarr store to begin." }));
  if (mode !== "grid") $("plate-panel").hidden = true;
  if (mode !== "view" && mode !== "volume") {
    $("progress").hidden = true;
    hideLoading();
  }
  $("status").textContent = "";
  $("hover").innerHTML = "&nbsp;";
}
