// The viewer's state: one object the modules share (what is open, what is
// shown, how it is coloured), and the page's status the test waits on.

export const app = {
  source: null, // {label, url?}
  store: null, // the store the hierarchy is read from
  root: null, // tree node (tree.js)
  selected: null, // tree node
  arr: null, // the array shown
  pyramid: [], // lower resolutions of arr (OME-Zarr multiscales): [{arr, factors}]
  slice: null, // {ydim, xdim, index}
  dimNames: [],
  coords: [], // per dim: Float64Array | null
  coordUnits: [], // per dim: the coordinate array's units
  coordAttrs: [], // per dim: the coordinate array's attributes
  coordTimes: [], // per dim: its CF time units (cftime.js parseTimeUnits), or null
  map: null, // the map the slice shows (geo.js mapOf), or null
  mapOverlay: null, // coastlines and graticule over it (main.js)
  display: { cmap: "viridis", reversed: false, lo: 0, hi: 1 },
  manualClim: false,
  flipChosen: false, // the user (or the address) chose row 0's side
  stats: null, // of the data in view (view.js)
  progress: null, // of the tiles in view
  status: "idle", // idle | loading | drawing | rendered | error
  renders: 0,
  openSerial: 0,
  selectCtrl: null,
  image: null, // the OME-Zarr image shown (ome.js describeImage), or null
  imageNode: null, // its group
  channels: null, // a composite's channels [{index, label, color, lo, hi, visible, auto}], or null
  selectedChannel: null, // the channel whose limits and histogram the Colour panel shows
  channelStats: new Map(), // per channel index, of the data in view
  physical: null, // per dimension {scale, translation, unit} (OME transforms), or null
  labelNames: [], // the image's label images
  labelsGroup: null,
  labelName: null, // the one shown
  labelOpacity: 0.5,
  ticks: "off", // axis ticks: off | index | physical
  player: null, // playback (playback.js)
  view: null, // the SliceView (main.js)
  grid: null, // the GridView: plates and wells (main.js)
  stageView: null, // the one on the stage, which the Colour panel changes: view or grid
  plate: null, // the plate shown or last shown (plate.js): {tree, plate, acquisition, template, level, …}
  pending3D: null, // a link's 3D view state, opened once the slice view has drawn (select.js, main.js)
  plot: null, // the LinePlot (main.js)
};

/** Sets the page's status (also on <html data-status>, for tests and styles). */
export function setStatus(s) {
  if (app.status === s) return; // (a changed attribute on <html> restyles the page)
  app.status = s;
  document.documentElement.dataset.status = s;
}
