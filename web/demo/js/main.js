// The viewer page's entry point: makes the slice view and the plot, wires
// the panels, and opens the store the address names (or the first example).
//
// Where things are:
//   open.js         opening a store (URL, zip, reference sets), then the tree
//   local.js        the URL and path forms, folder/zip pickers, drag and drop
//   tree.js         the hierarchy tree
//   select.js       what a selected node shows (image, plot, table, group)
//   details.js      the Details panel (metadata)
//   slice-panel.js  rows/columns, flip, and a slider per other dimension
//   color-panel.js  colormap, contrast limits, histogram
//   status.js       the value under the cursor and the status line
//   address.js      the address bar mirrors the view (?url=&path=&…)
//   icechunk.js     Icechunk repositories: opening one, the Version panel
//   view.js         the 2D slice view (tiles read through the package, drawn on a canvas)
//   geo.js          maps: latitude–longitude or projected grids, places in them
//   crs.js          coordinate reference systems (GeoZarr proj:, CF grid_mapping) for proj4
//   coast.js        Natural Earth coastlines (world-atlas, served with the page)
//   map-overlay.js  coastlines, graticule and degree labels over a map
//   cftime.js       CF time coordinates as dates (every CF calendar)
//   colorbar.js     the colour bar: colormap, limits, long_name and units
//   volume.js       the 3D view: the level that fits a GPU budget, crop, mouse
//   volume-gl.js    WebGL2 ray marching (maximum intensity, alpha compositing)
//   plate.js        what a plate or a well opens on: pictures side by side
//   plate-read.js   reading a plate's wells with few requests
//   grid-view.js    the grid of pictures (wells of a plate, fields of a well)
//   plot.js         1-D plots and value tables
//   image.js        an OME-Zarr image for the view: channels, physical axes, labels
//   ome.js          OME-Zarr metadata (multiscales, omero, labels, plates, units)
//   layers.js       what tiles are read from (levels of an image or a label image)
//   paint.js        pixels: colormaps, channel composites, labels
//   overlay.js      scale bar and axis ticks
//   stats.js        statistics of the data in view (percentiles, histogram)
//   playback.js     playing an axis, reading frames ahead
//   keys.js         keyboard shortcuts
//   arrays.js       facts about an array (data type, dimension names, units)
//   state.js        the shared state; inspect.js exposes it as window.zarrDemo
import * as zarr from "zarr-wasm";
import { $ } from "./dom.js";
import { app, setStatus } from "./state.js";
import { SliceView } from "./view.js";
import { GridView } from "./grid-view.js";
import { MapOverlay } from "./map-overlay.js";
import { VolumeView, depthCandidates } from "./volume.js";
import { showMode } from "./stage.js";
import { updateColorbar } from "./colorbar.js";
import { initPlatePanel, openCell } from "./plate.js";
import { LinePlot } from "./plot.js";
import { examples, initExamples } from "./examples.js";
import { initBanner, showError } from "./banner.js";
import { exposeState } from "./inspect.js";
import { absolute, openURL } from "./open.js";
import { initSources } from "./local.js";
import { initTree } from "./tree.js";
import { channelLimitsChanged, select, setComposite, showLabels, updateMap } from "./select.js";
import { initKeys } from "./keys.js";
import { initSlicePanel } from "./slice-panel.js";
import { drawHistogram, initColorControls, syncClimInputs, syncColorControls } from "./color-panel.js";
import { showGridHover, showHover, showPlotHover, showProgress, updateStatusLine } from "./status.js";
import { readState, saveState, saveStateSoon } from "./address.js";

/** What the slice view and the plate grid report alike. */
const viewCallbacks = {
  onProgress: showProgress,
  onStats: (st, channelStats) => {
    app.stats = st;
    app.channelStats = channelStats ?? new Map();
    drawHistogram();
  },
  onChannelLimits: (changes) => {
    channelLimitsChanged(changes);
    saveState();
  },
};

app.view = new SliceView($("view-host"), {
  ...viewCallbacks,
  onHover: showHover,
  onAutoContrast: (lo, hi) => {
    app.display.lo = lo;
    app.display.hi = hi;
    app.manualClim = false;
    syncClimInputs();
    drawHistogram();
    saveState();
  },
  onError: (e, kind) => {
    if (kind === "read") showError(e, "read", "Part of the array could not be read");
    else showError(e, kind);
  },
  onView: () => {
    updateStatusLine();
    saveStateSoon();
  },
  onPending: () => {
    if (app.status === "rendered") setStatus("drawing");
  },
  onRendered: () => {
    app.renders++;
    setStatus("rendered");
    updateStatusLine();
    updateColorbar();
    update3DButton();
    if (app.pending3D) {
      const initial = app.pending3D;
      app.pending3D = null;
      if (!$("view-3d").hidden) show3D(initial);
    }
  },
  onDrawn: () => app.mapOverlay.draw(),
});

app.stageView = app.view;
app.mapOverlay = new MapOverlay($("view-host"), app.view);

app.grid = new GridView($("grid-host"), {
  onHover: showGridHover,
  onOpen: (cell) => openCell(cell, select),
  ...viewCallbacks,
  onAutoContrast: (lo, hi) => {
    app.display.lo = lo;
    app.display.hi = hi;
    syncClimInputs();
    drawHistogram();
  },
  onRendered: () => {
    if (app.plate && !app.plate.firstPicture) app.plate.firstPicture = performance.now();
    app.renders++;
    setStatus("rendered");
    updateStatusLine();
  },
});

app.plot = new LinePlot($("plot-host"), { onHover: showPlotHover });

app.volume = new VolumeView($("volume-host"));
app.volume.onError = (e) => showError(e, "", "The volume could not be shown");
app.volume.onChange = saveStateSoon;

/** The 3D button: offered when the slice has a third dimension to show as depth. */
function update3DButton() {
  const a = app.arr;
  const chAxis = app.channels ? app.image.channelAxis : -1;
  $("view-3d").hidden = !(a && app.slice && depthCandidates(a.shape, app.slice, chAxis).length > 0);
}

const in3D = () => !$("volume-host").hidden;
/** The 3D view of the slice's array (initial: a link's state). */
function show3D(initial = null) {
  showMode("volume");
  updateColorbar();
  return app.volume.open(initial);
}
$("view-3d").addEventListener("click", () => {
  if (in3D()) {
    showMode("view");
    $("colorbar").hidden = true;
    updateColorbar();
    saveState();
  } else show3D();
});
$("zoom-in").addEventListener("click", () => (in3D() ? app.volume.set({ zoom: app.volume.state.zoom * 1.5 }) : app.view.zoomBy(1.5)));
$("zoom-out").addEventListener("click", () => (in3D() ? app.volume.set({ zoom: app.volume.state.zoom / 1.5 }) : app.view.zoomBy(1 / 1.5)));
$("zoom-fit").addEventListener("click", () => (in3D() ? app.volume.set({ zoom: 1 }) : app.view.fit()));
$("zoom-1").addEventListener("click", () => (in3D() ? app.volume.set({ zoom: 1 }) : app.view.actualSize()));

exposeState();
initBanner();
initTree(select);
initSources();
initSlicePanel(updateMap);
initExamples((ex) => openURL(absolute(ex.url), ex.path));
initColorControls({ composite: setComposite, labels: showLabels });
initKeys();
initPlatePanel(select);
syncColorControls();

const start = readState();
zarr.init().catch((e) => showError(e, "", "The WebAssembly engine did not start"));
if (start.url) openURL(absolute(start.url), start.path, start.extra, start.version);
else openURL(absolute(examples[0].url), start.path || examples[0].path, start.extra);
