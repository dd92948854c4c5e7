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

/** Shows one of "view", "grid", "plot", "table" or "empty" (with a message). */
export function showMode(mode, message) {
  $("view-host").hidden = mode !== "view";
  $("view-tools").hidden = mode !== "view";
  $("grid-host").hidden = mode !== "grid";
  if (mode !== "view") $("colorbar").hidden = true;
  $("plot-host").hidden = mode !== "plot";
  $("table-host").hidden = mode !== "table";
  $("empty").hidden = mode !== "empty";
  if (mode === "empty") $("empty").replaceChildren(el("p", { text: message ?? "Open a Zarr store to begin." }));
  if (mode !== "grid") $("plate-panel").hidden = true;
  if (mode !== "view") {
    $("progress").hidden = true;
    hideLoading();
  }
  $("status").textContent = "";
  $("hover").innerHTML = "&nbsp;";
}
