// What a plate or a well opens on. A plate: every well side by side in the
// grid view, rows and columns named as the plate names them, each well's
// first field (of the acquisition chosen in the Plate panel) from the
// lowest-resolution level that fits its cell, read as plate-read.js
// explains. A well: its fields side by side, each from the level that fits.
// A click on a well opens it; a click on a field opens its image at full
// resolution in the slice view.
import { $, el } from "./dom.js";
import { app, setStatus } from "./state.js";
import { showError } from "./banner.js";
import { showMode } from "./stage.js";
import { findPath } from "./tree.js";
import { multiscalesOf, openPyramid, plateOf, wellOf } from "./ome.js";
import { compositeChannels } from "./image.js";
import { WellReader, levelFor, openTemplate, readPlane, requestsOf } from "./plate-read.js";
import { formatShape } from "./format.js";
import { saveState } from "./address.js";

const WELLS_IN_FLIGHT = 16; // wells read at once (each about four requests sent together)

/** Colours for the grid: the image's channels (with the address's changes), or the colormap. */
function gridColors(image, extra, applyChannelState) {
  if ((image.channelAxis >= 0 || image.omero) && extra.composite !== false) {
    const list = compositeChannels(image).list;
    applyChannelState(list, extra);
    return list;
  }
  return null;
}

/** Runs f over items, at most n at once. */
async function bounded(items, n, f) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await f(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/** The part of select.js's work that shows a grid: panels, title, the grid view in front. */
function enterGrid(title, desc) {
  showMode("grid");
  app.stageView = app.grid;
  app.arr = null;
  app.slice = null;
  $("stage-title").replaceChildren(el("span", { class: "path", text: title }), el("span", { class: "desc", text: desc }));
}

/** Hands the channels (or colormap) to the Colour panel and the grid. */
function showColors(channels, sync) {
  app.channels = channels;
  app.selectedChannel = channels?.find((c) => c.visible)?.index ?? channels?.[0]?.index;
  app.channelStats = new Map();
  $("color-panel").hidden = false;
  sync();
}

/**
 * Shows the plate of tree node t. extra: the address's state (acq,
 * channels, clims, colors, composite); hooks: {signal, applyChannelState,
 * syncColors}.
 */
export async function showPlate(t, extra, { signal, applyChannelState, syncColors }) {
  const plate = plateOf(t.node.attrs);
  const acqs = plate.acquisitions;
  const acquisition = acqs.length ? (acqs.some((a) => a.id === extra.acq) ? extra.acq : acqs[0].id) : undefined;
  const where = `/${t.path}`;
  enterGrid(where, `plate${plate.name ? ` “${plate.name}”` : ""} · ${plate.rows.length} × ${plate.columns.length} · ${plate.wells.length} wells`);
  setStatus("loading");
  app.grid.setGrid({ rows: plate.rows, columns: plate.columns, cells: [] });
  const store = t.node.store;
  const before = requestsOf(store);
  const started = performance.now();
  const template = await openTemplate(t.node, plate, acquisition, signal);
  if (signal.aborted) return;
  if (!template) {
    showMode("empty", "No well of this plate has a field of view with a multiscale image.");
    setStatus("rendered");
    return;
  }
  // Metadata that cost no request came from consolidated metadata.
  const consolidated = before !== null && requestsOf(store) === before;
  const channels = gridColors(template.image, extra, applyChannelState);
  const cells = plate.wells.filter((w) => w.rowIndex >= 0 && w.columnIndex >= 0).map((w) => ({ key: w.path, row: w.rowIndex, col: w.columnIndex, label: `${w.row}${w.column}`, title: `well ${w.row}${w.column}` }));
  app.grid.setGrid({ rows: plate.rows, columns: plate.columns, cells, channels: channels && { list: channels }, display: { ...app.display }, autoDisplay: !app.manualClim });
  showColors(channels, syncColors);
  const level = levelFor(template, app.grid.cellPixels());
  const reader = new WellReader(t.node, template, level, acquisition, { consolidated });
  app.plate = { tree: t, plate, acquisition, template, level, reader, consolidated, started, firstPicture: null, requestsBefore: before };
  renderPlatePanel(plate, acquisition, template, level);
  saveState();
  await bounded(cells, WELLS_IN_FLIGHT, async (c) => {
    if (signal.aborted) return;
    try {
      const pic = await reader.read(c.key, signal);
      if (!signal.aborted) app.grid.setCell(c.key, pic.field === null ? null : pic);
    } catch (e) {
      if (signal.aborted || e?.code === "ABORTED") return;
      app.grid.setCell(c.key, null, e);
      showError(e, "read", `Well ${c.label} could not be read`);
    }
  });
}

/** Shows the fields of well t side by side (with the plate's acquisition, when the well is in one). */
export async function showWell(t, extra, { signal, applyChannelState, syncColors }) {
  const well = wellOf(t.node.attrs);
  const acquisition = app.plate?.acquisition;
  let images = well.images;
  if (acquisition !== undefined && images.some((i) => i.acquisition === acquisition)) images = images.filter((i) => i.acquisition === acquisition);
  enterGrid(`/${t.path}`, `well · ${images.length} field${images.length === 1 ? "" : "s"} of view`);
  setStatus("loading");
  const n = images.length;
  const cols = Math.max(1, Math.ceil(Math.sqrt(n)));
  const rows = Math.max(1, Math.ceil(n / cols));
  const cells = images.map((img, i) => ({ key: img.path, row: Math.floor(i / cols), col: i % cols, label: `field ${img.path}`, title: `field ${img.path}` }));
  app.grid.setGrid({ rows: Array.from({ length: rows }, () => ""), columns: Array.from({ length: cols }, () => ""), cells });
  if (!n) {
    setStatus("rendered");
    return;
  }
  // The fields' images; the first one's channels colour them all.
  const opened = await Promise.all(
    images.map(async (img) => {
      try {
        const g = await t.node.open(img.path, { kind: "group", signal });
        const ms = multiscalesOf(g);
        return ms ? await openPyramid(g, ms) : null;
      } catch (e) {
        return { error: e };
      }
    }),
  );
  if (signal.aborted) return;
  const first = opened.find((o) => o && !o.error);
  if (!first) {
    showMode("empty", "The fields of this well have no multiscale image.");
    setStatus("rendered");
    return;
  }
  const channels = gridColors(first.image, extra, applyChannelState);
  app.grid.setGrid({ rows: Array.from({ length: rows }, () => ""), columns: Array.from({ length: cols }, () => ""), cells, channels: channels && { list: channels }, display: { ...app.display }, autoDisplay: !app.manualClim });
  showColors(channels, syncColors);
  const px = app.grid.cellPixels();
  renderPlatePanel(null);
  saveState();
  await Promise.all(
    opened.map(async (o, i) => {
      const key = images[i].path;
      if (!o || o.error) return app.grid.setCell(key, null, o?.error ?? null);
      try {
        const level = o.levels[levelFor(o, px)];
        const pic = await readPlane(level.arr, first.image, signal);
        if (!signal.aborted) app.grid.setCell(key, pic);
      } catch (e) {
        if (!signal.aborted && e?.code !== "ABORTED") app.grid.setCell(key, null, e);
      }
    }),
  );
}

/** A click on a cell: a plate's well opens as a well, a well's field as its image. */
export async function openCell(cell, select) {
  const t = app.selected;
  if (!t) return;
  const target = await findPath(`${t.path ? t.path + "/" : ""}${cell.key}`);
  if (target) select(target);
}

/** The Plate panel: the acquisition menu and what the overview reads. */
function renderPlatePanel(plate, acquisition, template, level) {
  const box = $("plate-panel");
  box.hidden = !plate;
  if (!plate) return;
  const sel = $("acquisition");
  sel.replaceChildren(...plate.acquisitions.map((a) => el("option", { value: String(a.id), text: a.name, selected: a.id === acquisition })));
  $("acquisition-row").hidden = plate.acquisitions.length < 2;
  const l = template.levels[level];
  $("plate-info").textContent = `Each well: field ${template.fieldPath}, level ${l.path} (${formatShape(l.arr.shape)}), every channel in one read.`;
}

/** Wires the acquisition menu: choosing one shows the plate again with it. */
export function initPlatePanel(select) {
  $("acquisition").addEventListener("change", () => {
    const t = app.plate?.tree;
    if (t) select(t, { acq: Number($("acquisition").value) });
  });
}
