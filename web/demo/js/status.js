// The status bar: the value under the cursor (left) and what the view is
// doing (right: zoom, pyramid level or stride, tiles, requests and bytes).
import * as zarr from "zarr-wasm";
import { $ } from "./dom.js";
import { app, setStatus } from "./state.js";
import { formatBytes, formatNumber } from "./format.js";
import { isBool, unitsSuffix } from "./arrays.js";
import { coordText, physicalText } from "./slice-panel.js";

/** "st", "nd", "rd" or "th" for n. */
export function ordinalSuffix(n) {
  const t = n % 100;
  if (t >= 11 && t <= 13) return "th";
  return { 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th";
}

/** Shows the sample under the cursor (SliceView.sampleAt's answer, or null). */
export function showHover(h) {
  const out = $("hover");
  if (!h || !app.slice) {
    out.innerHTML = "&nbsp;";
    return;
  }
  const { ydim, xdim, index } = app.slice;
  const parts = [];
  for (let d = 0; d < index.length; d++) {
    if (h.channels && d === app.image?.channelAxis) continue;
    const i = d === ydim ? h.iy : d === xdim ? h.ix : index[d];
    const c = app.coords[d] && (app.coordTimes?.[d] ? coordText(d, i) : formatNumber(app.coords[d][i]));
    const phys = physicalText(d, i);
    parts.push(`${app.dimNames[d]} ${i}${c ? ` (${c})` : phys ? ` (${phys})` : ""}`);
  }
  let val;
  if (h.loading) val = "…";
  else if (h.channels) {
    val = h.channels.map((ch) => `${app.channels?.find((c) => c.index === ch.index)?.label ?? `channel ${ch.index}`} ${ch.raw === null || ch.raw === undefined ? "–" : formatNumber(ch.raw)}`).join(" · ");
  } else if (Array.isArray(h.raw)) val = `${formatNumber(h.raw[0])} ${h.raw[1] < 0 ? "−" : "+"} ${formatNumber(Math.abs(h.raw[1]))}i  |z| = ${formatNumber(h.value)}`;
  else if (isBool(app.arr)) val = h.raw ? "true" : "false";
  else val = formatNumber(h.raw);
  const label = h.label !== undefined && h.label !== null ? ` · label ${formatNumber(h.label)}` : "";
  const sep = h.channels ? ": " : " = ";
  out.textContent = `${parts.join(" · ")}${sep}${val}${h.loading || h.channels ? "" : unitsSuffix(app.arr)}${label}${h.stride > 1 ? `  (every ${h.stride}${ordinalSuffix(h.stride)} pixel)` : ""}`;
}

/** Shows a 1-D plot's point under the cursor. */
export function showPlotHover(h) {
  if (!h) return showHover(null);
  const coord = app.coords[0];
  const name = app.dimNames[0];
  $("hover").textContent = `${name} ${h.i}${coord ? ` (${formatNumber(coord[h.i])})` : ""} = ${formatNumber(h.value)}${unitsSuffix(app.arr)}`;
}

/** Shows what is under the cursor in the grid view: the well or field, and the values there. */
export function showGridHover(h) {
  const out = $("hover");
  if (!h) {
    out.innerHTML = "&nbsp;";
    return;
  }
  const what = h.cell.title + (h.cell.state === "empty" ? " (no field of view)" : h.cell.state === "error" ? " (could not be read)" : "");
  if (!h.values) {
    out.textContent = what;
    return;
  }
  const names = h.values.map((v, i) => (app.channels ? `${app.channels.find((c) => c.index === i)?.label ?? `channel ${i}`} ${formatNumber(v)}` : formatNumber(v)));
  out.textContent = `${what} · y ${h.iy} · x ${h.ix}: ${names.join(" · ")}`;
}

/** The store's request count and bytes as the status line shows them, or null. */
function requestText() {
  // The package's stores count their requests (a zip: those for the zip
  // file; a reference set: HTTP requests, neighbouring chunks merged).
  const c = app.source?.counted;
  if (typeof c?.requests !== "number") return null;
  const inFlight = c.inFlight ?? c.source?.inFlight;
  return `${c.requests} ${c instanceof zarr.ReferenceStore ? "HTTP " : ""}requests · ${formatBytes(c.bytes ?? 0)}${inFlight ? ` · ${inFlight} in flight` : ""}`;
}

export function updateStatusLine() {
  if (!$("grid-host").hidden) {
    const p = app.progress;
    const bits = [];
    if (p) bits.push(`${p.ready}/${p.total} ${app.plate && app.selected === app.plate.tree ? "wells" : "fields"}`);
    const r = requestText();
    if (r) bits.push(r);
    $("status").textContent = bits.join(" · ");
    return;
  }
  if (!app.arr || $("view-host").hidden) return;
  const v = app.view.view;
  const p = app.progress;
  const bits = [`zoom ${formatNumber(Math.round(v.z * 1000) / 10)}%`];
  const workers = zarr.workerPool().size;
  if (workers > 0) bits.push(`${workers} decode worker${workers === 1 ? "" : "s"}`);
  if (p) {
    const level = p.source?.level ? `pyramid level ${p.source.level}${p.source.stride > 1 ? `, stride ${p.source.stride}` : ""}` : null;
    bits.push(level ?? (p.stride > 1 ? `stride ${p.stride}${p.budgetRaised ? " (chunk budget)" : ""}` : "full resolution"));
    bits.push(`tiles ${p.ready}/${p.total}${p.failed ? `, ${p.failed} failed` : ""}`);
  }
  const r = requestText();
  if (r) bits.push(r);
  $("status").textContent = bits.join(" · ");
}

let progressFrame = 0;
let loadingSince = 0;

/**
 * The tiles' progress (SliceView's onProgress): the page's status at once,
 * the progress bar, the loading note and the status line once per
 * animation frame (a tile arriving would otherwise restyle the page each
 * time), the note only when loading takes longer than a quarter second.
 */
export function showProgress(p) {
  app.progress = p;
  const busy = p.ready + p.failed < p.total;
  if (busy) {
    setStatus("loading");
    loadingSince ||= performance.now();
  } else loadingSince = 0;
  if (progressFrame) return;
  progressFrame = requestAnimationFrame(() => {
    progressFrame = 0;
    const q = app.progress;
    const still = q.ready + q.failed < q.total;
    const slow = still && loadingSince && performance.now() - loadingSince > 250;
    $("progress").hidden = !slow;
    $("loading").hidden = !slow;
    if (slow) {
      // (a transform: the compositor animates it, no layout or paint a frame)
      $("progress-bar").style.transform = `scaleX(${q.total ? q.ready / q.total : 0})`;
      $("loading").textContent = `Loading ${q.ready}/${q.total} ${q.unit ?? "tiles"}${q.stride > 1 ? ` · every ${q.stride}${ordinalSuffix(q.stride)} pixel` : ""}…`;
    }
    updateStatusLine();
    // Look again while loading, so the note appears when it gets slow
    // (once shown, the next progress updates it).
    if (still && !slow) setTimeout(() => app.progress === q && showProgress(q), 260);
  });
}
