// Selecting a node: a plate shows its wells side by side and a well its
// fields (plate.js); an OME-Zarr image group shows its image; an array is
// drawn as a 2D slice (two or more dimensions), plotted (one) or shown as a
// table of values (anything else); a plain group shows its metadata.
import * as zarr from "zarr-wasm";
import { $, el } from "./dom.js";
import { app, setStatus } from "./state.js";
import { formatShape } from "./format.js";
import { table } from "./colormaps.js";
import { dimNames, dtypeText, numericKind } from "./arrays.js";
import { multiscalesOf, plateOf, wellOf } from "./ome.js";
import { compositeChannels, defaultIndex, openImage, openLabel, physicalAxes } from "./image.js";
import { showError } from "./banner.js";
import { showMode } from "./stage.js";
import { ensureNode, markSelected } from "./tree.js";
import { showPlate, showWell } from "./plate.js";
import { parseTimeUnits } from "./cftime.js";
import { mapOf } from "./geo.js";
import { crsOf, projector } from "./crs.js";
import { renderDetails } from "./details.js";
import { ordinalSuffix, updateStatusLine } from "./status.js";
import { saveState } from "./address.js";
import { valueTable } from "./plot.js";
import { autoFlip, buildSliceControls, updateSliderLabels } from "./slice-panel.js";
import { drawHistogram, renderChannels, syncClimInputs, syncColorControls, syncLabelControls } from "./color-panel.js";
export async function select(t, extra = {}) {
  app.selectCtrl?.abort();
  const ctrl = new AbortController();
  app.selectCtrl = ctrl;
  markSelected(t);
  await ensureNode(t);
  if (ctrl.signal.aborted) return;
  if (!t.node) {
    // Listed by its group, but it cannot be opened.
    showError(t.error, "select");
    return;
  }
  const n = t.node;
  app.pending3D = null;
  app.arr = null;
  app.pyramid = [];
  app.image = null;
  app.channels = null;
  app.labelNames = [];
  app.labelName = null;
  $("slice-panel").hidden = true;
  $("color-panel").hidden = true;
  $("labels-panel").hidden = true;
  app.grid.clear();
  if (!(n.kind === "group" && (plateOf(n.attrs) || wellOf(n.attrs)))) app.plate = null;
  // A plate or a well: its pictures side by side.
  if (n.kind === "group" && (plateOf(n.attrs) || wellOf(n.attrs))) {
    renderDetails(t, null);
    const hooks = { signal: ctrl.signal, applyChannelState, syncColors: syncColorControls };
    try {
      await (plateOf(n.attrs) ? showPlate : showWell)(t, extra, hooks);
    } catch (e) {
      if (!ctrl.signal.aborted) showError(e, "select");
    }
    return;
  }
  app.stageView = app.view;
  // A group holding an OME-Zarr multiscale image shows the image.
  const ms = n.kind === "group" ? multiscalesOf(n) : null;
  let image = null;
  if (ms) {
    try {
      image = await openImage(n, ms);
    } catch (e) {
      if (ctrl.signal.aborted) return;
      showError(e, "select", "The multiscale image's levels could not be opened");
    }
    if (ctrl.signal.aborted) return;
  }
  renderDetails(t, image);
  const a = image ? image.levels[0].arr : n;
  $("stage-title").replaceChildren(
    el("span", { class: "path", text: "/" + t.path }),
    el("span", {
      class: "desc",
      text:
        a.kind === "array"
          ? `${formatShape(a.shape)} · ${dtypeText(a)}${image ? ` · multiscale image, ${image.levels.length} level${image.levels.length === 1 ? "" : "s"}` : ""}${(image ? ms.name : a.attrs?.long_name) ? " · " + (image ? ms.name : a.attrs.long_name) : ""}`
          : n.attrs?.title ?? "group",
    }),
  );
  if (a.kind !== "array") {
    app.view.clear();
    showMode("empty", "This is a group. Pick an array in the tree to look at its data.");
    setStatus("rendered");
    saveState();
    return;
  }
  app.arr = a;
  app.pyramid = image ? image.levels.slice(1) : [];
  app.image = image?.image ?? null;
  app.imageNode = image ? n : null;
  app.labelNames = image?.labels ?? [];
  app.labelsGroup = image?.labelsGroup ?? null;
  const kind = numericKind(a);
  app.dimNames = dimNames(a, image?.axes);
  app.coords = a.shape.map(() => null);
  app.coordUnits = [];
  app.coordAttrs = [];
  app.coordTimes = [];
  app.map = null;
  app.mapOverlay.set(null);
  try {
    if (kind && a.shape.length >= 2 && a.shape.every((s) => s > 0)) {
      await showSlice(t, extra);
    } else if (kind && a.shape.length === 1 && a.shape[0] > 0) {
      showMode("plot");
      setStatus("loading");
      const r = await app.plot.show(a, { signal: ctrl.signal });
      $("status").textContent = `${r.count} points${r.stride > 1 ? ` (every ${r.stride}${ordinalSuffix(r.stride)})` : ""}`;
      setStatus("rendered");
      app.renders++;
      saveState();
    } else {
      await showTable(a, ctrl.signal);
    }
  } catch (e) {
    if (ctrl.signal.aborted) return;
    showError(e, "select");
  }
}

async function showTable(a, signal) {
  showMode("table");
  setStatus("loading");
  const { rows, nd, shown, prefix } = await valueTable(a, { signal });
  const tbl = el("table");
  const what = nd === 0 ? "The value" : nd === 1 ? `The first ${shown[0]} values` : `Rows 0–${shown[0] - 1}, columns 0–${shown[1] - 1}${prefix.length ? ` at [${prefix.join(", ")}, …]` : ""}`;
  tbl.append(el("caption", { text: `${what} (${dtypeText(a)}; ${numericKind(a) ? "" : "not numbers, so shown as text"})`.replace("; )", ")") }));
  if (nd >= 2) {
    tbl.append(el("tr", {}, el("th", { text: "" }), ...rows[0].map((_, j) => el("th", { text: String(j) }))));
  }
  rows.forEach((r, i) => tbl.append(el("tr", {}, nd >= 1 ? el("th", { text: String(i) }) : null, ...r.map((c) => el("td", { text: c })))));
  $("table-host").replaceChildren(tbl);
  setStatus("rendered");
  app.renders++;
  saveState();
}

async function showSlice(t, extra) {
  const a = app.arr;
  const nd = a.shape.length;
  let slice = { ydim: nd - 2, xdim: nd - 1, index: defaultIndex(app.image, a.shape) };
  if (extra.dims && extra.dims.length === 2 && extra.dims.every((d) => d >= 0 && d < nd) && extra.dims[0] !== extra.dims[1]) {
    slice.ydim = extra.dims[0];
    slice.xdim = extra.dims[1];
  }
  if (extra.index && extra.index.length === nd) {
    slice.index = extra.index.map((v, d) => Math.min(Math.max(0, v | 0), a.shape[d] - 1));
  }
  app.slice = slice;
  if (extra.cmap && table(extra.cmap)) app.display.cmap = extra.cmap;
  if (extra.reversed !== undefined) app.display.reversed = extra.reversed;
  const manual = extra.clim && extra.clim.length === 2 && extra.clim.every(Number.isFinite);
  if (manual) {
    app.display.lo = extra.clim[0];
    app.display.hi = extra.clim[1];
  }
  app.manualClim = !!manual;
  app.flipChosen = extra.flip !== undefined;
  // An OME-Zarr image with channels (or omero settings) is a composite
  // unless the address says otherwise.
  const composite = app.image?.channelsAvailable && extra.composite !== false;
  app.channels = composite ? compositeChannels(app.image).list : null;
  if (app.channels) applyChannelState(app.channels, extra);
  app.selectedChannel = app.channels?.find((c) => c.visible)?.index ?? app.channels?.[0]?.index;
  app.channelStats = new Map();
  app.physical = physicalAxes(app.image);
  app.labelName = app.labelNames.includes(extra.labels) ? extra.labels : extra.labels === "" ? null : app.labelNames[0] ?? null;
  if (extra.ticks) app.ticks = extra.ticks === "physical" && !app.physical ? "index" : extra.ticks;
  app.view.setTicks(app.ticks);
  showMode("view");
  $("slice-panel").hidden = false;
  $("color-panel").hidden = false;
  buildSliceControls();
  syncColorControls();
  syncLabelControls();
  setStatus("loading");
  app.view.setDisplay(app.display);
  app.view.flipY = !!extra.flip;
  // A link's 3D view opens once the slice view has drawn (its limits known).
  app.pending3D = extra.volume ?? null;
  $("flip").checked = app.view.flipY;
  showImage(!!manual);
  if (extra.view) app.view.setView(extra.view);
  if (app.labelName) showLabels(app.labelName);
  loadCoords(t);
  saveState();
}

/** The channels' visibility, limits and colours the address gives. */
export function applyChannelState(channels, { channels: shown, clims, colors }) {
  channels.forEach((c, i) => {
    if (shown) c.visible = shown.includes(c.index);
    const l = clims?.[i];
    if (l?.length === 2 && l.every(Number.isFinite)) Object.assign(c, { lo: l[0], hi: l[1], auto: false });
    if (colors?.[i]) c.color = colors[i];
  });
}

/** Hands the image (and how to colour it) to the view. */
function showImage(keepDisplay) {
  const channels = app.channels && { dim: app.image.channelAxis, list: app.channels.map((c) => ({ ...c })) };
  app.view.setImage(app.arr, app.slice, { keepDisplay, pyramid: app.pyramid, channels, physical: app.physical });
}

/** Switches an image with channels between the composite and one channel through a colormap. */
export function setComposite(on) {
  if (!app.image?.channelsAvailable || !!app.channels === on) return;
  app.channels = on ? compositeChannels(app.image).list : null;
  app.selectedChannel = app.channels?.find((c) => c.visible)?.index;
  app.manualClim = false;
  setStatus("loading");
  buildSliceControls();
  syncColorControls();
  showImage(false);
  if (app.labelName) showLabels(app.labelName);
  saveState();
}

/** Shows a label image of the current image over it (null: none). */
export async function showLabels(name) {
  app.labelName = name;
  syncLabelControls();
  saveState();
  if (!name) {
    app.view.setLabels(null);
    return;
  }
  const arr = app.arr;
  try {
    const lab = await openLabel(app.labelsGroup, name, arr, app.image.axes, app.slice);
    if (app.arr !== arr || app.labelName !== name) return;
    if (!lab) {
      showError({ message: `the label image ${name} does not share the image's y and x axes` }, "", "The labels cannot be laid over this image");
      return;
    }
    app.view.setLabels({ ...lab, opacity: app.labelOpacity });
  } catch (e) {
    showError(e, "", `The label image ${name} could not be opened`);
  }
}

/** The view set channel limits from the data (auto): mirror them in the panel. */
export function channelLimitsChanged(changes) {
  for (const ch of changes) {
    const c = app.channels?.find((x) => x.index === ch.index);
    if (c) Object.assign(c, { lo: ch.lo, hi: ch.hi, auto: false });
  }
  renderChannels();
  syncClimInputs();
  drawHistogram();
}

/** 1-D coordinate arrays beside the array, named like its dimensions; then whether it is a map. */
async function loadCoords(t) {
  const a = app.arr;
  const parent = t.parent?.node;
  if (t.node !== a) return;
  const names = parent ? app.dimNames : [];
  await Promise.all(
    names.map(async (name, d) => {
      if (name.startsWith("dim ")) return;
      try {
        const c = await parent.open(name, { kind: "array" });
        if (c.shape.length !== 1 || c.shape[0] !== a.shape[d] || c.shape[0] > 1e6 || numericKind(c) !== "real") return;
        const r = await c.get(null);
        if (app.arr !== a) return;
        app.coords[d] = Float64Array.from(r.data, Number);
        app.coordAttrs[d] = c.attrs ?? {};
        app.coordUnits[d] = typeof c.attrs?.units === "string" ? c.attrs.units : "";
        app.coordTimes[d] = parseTimeUnits(c.attrs?.units, c.attrs?.calendar ?? "standard");
        updateSliderLabels();
        autoFlip();
      } catch {
        /* no coordinate array: indices only */
      }
    }),
  );
  if (app.arr === a) await updateMap();
}

/**
 * Draws the slice as a map when it is one (geo.js): coastlines and a
 * graticule over it, projected with proj4 for a projected grid (crs.js).
 */
export async function updateMap() {
  const a = app.arr;
  const t = app.selected;
  if (!a || !app.slice) return;
  const parent = t?.parent?.node;
  const dims = app.dimNames.map((name, d) => ({ name, values: app.coords[d], attrs: app.coordAttrs[d] ?? {} }));
  let crs = null;
  try {
    const gmName = typeof a.attrs?.grid_mapping === "string" ? a.attrs.grid_mapping.trim().split(/[\s:]+/)[0] : null;
    const gm = gmName && parent ? (await parent.open(gmName)).attrs : null;
    crs = crsOf(a.attrs ?? {}, parent?.attrs ?? {}, gm);
  } catch {
    crs = null; // a grid_mapping variable that is not there: no projection
  }
  const map = mapOf(dims, app.slice, crs?.def ? crs : null);
  if (map?.kind === "projected") {
    try {
      map.project = await projector(crs);
    } catch (e) {
      showError(e, "", "The map's projection could not be set up");
      return;
    }
  }
  if (app.arr !== a) return;
  app.map = map && { ...map, crsSource: crs?.source ?? null };
  app.mapOverlay.set(map);
}

