// The viewer page: opens a store (URL, picked folder or zip, dropped files),
// shows its hierarchy and the selected node's metadata, and draws arrays
// (2D slices, 1-D plots, value tables). State is mirrored in the address
// bar (?url=&path=&…) so a view can be shared.
import * as zarr from "zarr-wasm";
import { colormapList, cssGradient, table } from "./colormaps.js";
import { BlobStore, FileTreeStore, InstrumentedStore } from "./stores.js";
import { SliceView, numericKind, readChunkShape } from "./view.js";
import { LinePlot, valueTable } from "./plot.js";
import { explain, formatBytes, formatNumber, formatShape } from "./format.js";

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k);
  return e;
};

/** Sample data served beside the page (web/demo/gen writes it). */
const examples = [
  { label: "Sample · Zarr v3 (blosc, sharded zstd, complex, bool)", url: "data/sample.zarr", path: "climate/temperature" },
  { label: "Sample · Zarr v2 (consolidated)", url: "data/sample-v2.zarr", path: "temperature" },
  { label: "Sample · Zarr v2 in a .zip", url: "data/sample-v2.zarr.zip", path: "temperature" },
  { label: "Sample · Zarr v1 array (zlib)", url: "data/sample-v1.zarr", path: "" },
  { label: "Sample · kerchunk references (JSON) over one binary file", url: "data/refs/sample.json", path: "temperature" },
  { label: "Sample · Parquet references (hyparquet-writer)", url: "data/refs/pq/refs.parq", path: "a/big" },
  { label: "Sample · OME-Zarr image pyramid (NGFF 0.4, 3 levels)", url: "data/sample-ome.zarr", path: "" },
];

// ------------------------------------------------------------------ state

const app = {
  source: null, // {label, url?}
  store: null, // InstrumentedStore
  root: null, // tree node
  selected: null, // tree node
  arr: null,
  pyramid: [], // lower resolutions of arr (OME-Zarr multiscales): [{arr, factors}]
  slice: null, // {ydim, xdim, index}
  dimNames: [],
  coords: [], // per dim: Float64Array | null
  display: { cmap: "viridis", reversed: false, lo: 0, hi: 1 },
  manualClim: false,
  stats: null,
  status: "idle", // idle | loading | rendered | error
  renders: 0,
  openSerial: 0,
  selectCtrl: null,
};

// The test and the console can look inside.
window.zarrDemo = {
  /** The decode worker pool's counts, once it runs. */
  get workers() {
    return app.workers ? { size: app.workers.size, ...app.workers.stats() } : null;
  },
  get status() {
    return app.status;
  },
  get renders() {
    return app.renders;
  },
  get path() {
    return app.selected?.path ?? null;
  },
  get slice() {
    return app.slice && { ...app.slice, index: app.slice.index.slice() };
  },
  get display() {
    return { ...app.display };
  },
  get viewState() {
    const v = view;
    return { ...v.view, cw: v.cw, ch: v.ch, level: v.L ?? 0, stride: 2 ** (v.L ?? 0), W: v.W, H: v.H, source: v.source() };
  },
  get stats() {
    return app.stats && { ...app.stats, bins: Array.from(app.stats.bins ?? []) };
  },
  get requests() {
    if (!app.store) return null;
    const inner = app.store.inner;
    return { requests: app.store.requests, bytes: app.store.bytes, http: inner instanceof zarr.ReferenceStore ? inner.requests : null, references: inner instanceof zarr.ReferenceStore };
  },
  lastError: null,
  zarr,
};

// ---------------------------------------------------------------- the view

const view = new SliceView($("view-host"), {
  onHover: showHover,
  onProgress: (p) => {
    const bar = $("progress");
    const busy = p.ready + p.failed < p.total;
    bar.hidden = !busy;
    $("progress-bar").style.width = `${p.total ? (100 * p.ready) / p.total : 0}%`;
    const lo = $("loading");
    lo.hidden = !busy;
    if (busy) {
      lo.textContent = `Loading ${p.ready}/${p.total} tiles${p.stride > 1 ? ` · every ${p.stride}${ordinalSuffix(p.stride)} pixel` : ""}…`;
      setStatus("loading");
    }
    app.progress = p;
    updateStatusLine();
  },
  onStats: (st) => {
    app.stats = st;
    drawHistogram();
  },
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
  },
});

const plot = new LinePlot($("plot-host"), {
  onHover: (h) => {
    if (!h) return showHover(null);
    const coord = app.coords[0];
    const name = app.dimNames[0];
    $("hover").textContent = `${name} ${h.i}${coord ? ` (${formatNumber(coord[h.i])})` : ""} = ${formatNumber(h.value)}${units()}`;
  },
});

function ordinalSuffix(n) {
  const t = n % 100;
  if (t >= 11 && t <= 13) return "th";
  return { 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th";
}

function setStatus(s) {
  app.status = s;
  document.documentElement.dataset.status = s;
}

// ------------------------------------------------------------------ errors

function showError(e, context = "", title) {
  const x = explain(e, context);
  if (!x) return;
  window.zarrDemo.lastError = { code: e?.code, message: String(e?.message ?? e), title: title ?? x.title };
  console.warn("zarr-wasm viewer:", e);
  $("banner-title").textContent = title ?? x.title;
  $("banner-hint").textContent = title ? `${x.title}. ${x.hint}` : x.hint;
  $("banner-detail").textContent = x.detail;
  $("banner").hidden = false;
  if (context === "open" || context === "select") setStatus("error");
}

function clearError() {
  $("banner").hidden = true;
}
$("banner-close").addEventListener("click", clearError);

// ------------------------------------------------------------------ opening

function initExamples() {
  const sel = $("examples");
  sel.append(el("option", { value: "", text: "Examples…" }));
  examples.forEach((ex, i) => sel.append(el("option", { value: String(i), text: ex.label })));
  sel.addEventListener("change", () => {
    const ex = examples[Number(sel.value)];
    sel.value = "";
    if (ex) openURL(absolute(ex.url), ex.path);
  });
}

function absolute(url) {
  return new URL(url, location.href).href;
}

/**
 * Makes the store for a URL: a zip over range requests; a reference set
 * (kerchunk / fsspec JSON, told by its name, or a Parquet reference
 * directory, told by its name or by a .zmetadata with a record_size); or a
 * FetchStore.
 */
async function storeForURL(url, signal) {
  const u = new URL(url, location.href);
  if (/\.zip$/i.test(u.pathname)) {
    const name = decodeURIComponent(u.pathname.slice(u.pathname.lastIndexOf("/") + 1));
    const dir = new URL(u.href);
    dir.pathname = u.pathname.slice(0, u.pathname.lastIndexOf("/") + 1);
    const parent = new zarr.FetchStore(dir);
    return zarr.ZipStore.open(parent, "/" + name, { signal });
  }
  if (/\.json(\.gz|\.zst)?$/i.test(u.pathname)) return zarr.ReferenceStore.fromUrl(u, { signal });
  if (/\.(parq|parquet)\/?$|\/\.zmetadata$/i.test(u.pathname) || (await isParquetRoot(u, signal))) {
    return zarr.ReferenceStore.fromParquet(u, { signal });
  }
  return new zarr.FetchStore(u);
}

/** Whether url is a Parquet reference directory: its .zmetadata has a record_size. */
async function isParquetRoot(url, signal) {
  const zm = new URL(url.href);
  zm.pathname = zm.pathname.replace(/\/?$/, "/.zmetadata");
  try {
    const res = await fetch(zm, { signal });
    if (!res.ok) return false;
    const doc = await res.json();
    return typeof doc?.record_size === "number" && typeof doc.metadata === "object";
  } catch (e) {
    if (e?.name === "AbortError") throw e;
    return false;
  }
}

async function openURL(url, path = "", extra = {}) {
  url = url.trim();
  if (!url) return;
  $("url").value = url;
  const serial = ++app.openSerial;
  setStatus("loading");
  showLoading(`Opening ${url}…`);
  let store;
  try {
    store = await storeForURL(url);
  } catch (e) {
    if (serial !== app.openSerial) return;
    hideLoading();
    showError(e, "open");
    return;
  }
  if (serial !== app.openSerial) return;
  await openStore(store, { label: url, url }, path, extra, serial);
}

async function openStore(inner, source, path = "", extra = {}, serial = ++app.openSerial) {
  clearError();
  const store = new InstrumentedStore(inner, { onActivity: () => updateStatusLine() });
  app.store = store;
  app.source = source;
  app.selected = null;
  app.arr = null;
  app.slice = null;
  app.stats = null;
  view.clear();
  showMode("empty");
  $("stage-title").replaceChildren();
  $("slice-panel").hidden = true;
  $("color-panel").hidden = true;
  $("source-label").textContent = source.label.replace(/^https?:\/\/[^/]+\//, "").replace(/\/$/, "");
  $("source-label").title = source.label;
  $("tree").replaceChildren(el("div", { class: "note", text: "Reading metadata…" }));
  $("details").replaceChildren(el("p", { class: "muted", text: "Select a node." }));
  setStatus("loading");
  let rootNode;
  try {
    rootNode = await zarr.open(store, { path: "" });
  } catch (e) {
    if (serial !== app.openSerial) return;
    // The root may have no metadata (v3 implicit groups, or a path into a
    // bigger hierarchy): try the path itself.
    if (path && e?.code === "NOT_FOUND") {
      try {
        const n = await zarr.open(store, { path });
        if (serial !== app.openSerial) return;
        app.root = makeTreeNode(n, n.name || path, null);
        renderTree();
        await select(app.root, extra);
        return;
      } catch {
        /* report the root's error */
      }
    }
    hideLoading();
    $("tree").replaceChildren(el("div", { class: "note error", text: "Could not open this store." }));
    showError(e, "open");
    $("banner-detail").textContent = `${source.label}: ${$("banner-detail").textContent}`;
    return;
  }
  if (serial !== app.openSerial) return;
  hideLoading();
  const storeName = source.label.replace(/\/+$/, "").split("/").pop() || "/";
  app.root = makeTreeNode(rootNode, rootNode.kind === "group" ? "/" : storeName, null);
  app.root.expanded = true;
  renderTree();
  if (rootNode.kind === "group") await expand(app.root, 2);
  if (serial !== app.openSerial) return;
  let target = null;
  if (path) target = await findPath(path);
  if (serial !== app.openSerial) return;
  if (!target && !path) target = firstDrawable(app.root) ?? app.root;
  if (!target && path) {
    target = app.root;
    showError({ code: "NOT_FOUND", message: `${JSON.stringify(path)} is not in this store` }, "path");
  }
  await select(target, extra);
}

function showLoading(text) {
  const lo = $("loading");
  lo.textContent = text;
  lo.hidden = false;
}
function hideLoading() {
  $("loading").hidden = true;
}

// ---------------------------------------------------------------- the tree

function makeTreeNode(node, name, parent, error = null) {
  // A child that cannot be opened has no node; it is listed with its error.
  const path = node ? node.path : parent?.path ? `${parent.path}/${name}` : name;
  return { node, name, path, kind: node ? node.kind : "unknown", parent, children: null, expanded: false, error, li: null };
}

function describeArray(a) {
  const dt = typeof a.dtype === "string" ? a.dtype : a.dtype?.name ?? JSON.stringify(a.dtype);
  return `${a.shape.length ? a.shape.join("×") : "()"} ${dt}`;
}

async function loadChildren(t) {
  if (t.children || t.kind !== "group") return;
  try {
    const kids = await t.node.children();
    t.children = kids.map((k) => makeTreeNode(k.node, k.name, t, k.error ?? null));
  } catch (e) {
    t.children = [];
    t.error = e;
  }
  // An OME-Zarr image names its levels even where the store cannot list.
  const ms = multiscalesOf(t.node);
  if (ms && t.children.length === 0) {
    const levels = await Promise.all(ms.datasets.map((d) => t.node.open(d.path, { kind: "array" }).then((a) => [d.path, a], () => null)));
    t.children = levels.filter(Boolean).map(([name, a]) => makeTreeNode(a, name, t));
    if (t.children.length) t.error = null;
  }
}

async function expand(t, depth) {
  if (t.kind !== "group") return;
  await loadChildren(t);
  t.expanded = true;
  renderTreeNode(t);
  if (depth > 1 && t.children.length <= 50) {
    await Promise.all(t.children.filter((c) => c.kind === "group").map((c) => expand(c, depth - 1)));
  }
}

async function findPath(path) {
  const parts = path.replace(/^\/+|\/+$/g, "").split("/").filter(Boolean);
  let t = app.root;
  for (const p of parts) {
    if (t.kind !== "group") return null;
    await loadChildren(t);
    let next = t.children.find((c) => c.name === p);
    if (!next) {
      // Not listed (a store that cannot list): open it directly.
      try {
        const n = await t.node.open(p);
        next = makeTreeNode(n, p, t);
        t.children.push(next);
      } catch {
        return null;
      }
    }
    if (!t.expanded) {
      t.expanded = true;
      renderTreeNode(t);
    }
    t = next;
  }
  renderTreeNode(t.parent ?? t);
  return t;
}

/** The array to show first: the largest numeric one with two or more dimensions. */
function firstDrawable(t) {
  let best = null;
  let bestSize = -1;
  const walk = (n) => {
    // A multiscale image is what its group is for.
    if (n.kind === "group" && n.node && multiscalesOf(n.node) && bestSize < Infinity) {
      best = n;
      bestSize = Infinity;
    }
    if (n.kind === "array") {
      const a = n.node;
      const size = a.shape.reduce((x, y) => x * y, 1);
      if (numericKind(a) && a.shape.length >= 2 && size > bestSize) {
        best = n;
        bestSize = size;
      }
    }
    for (const c of n.children ?? []) walk(c);
  };
  walk(t);
  return best;
}

function renderTree() {
  const ul = el("ul", { role: "group" });
  ul.append(treeItem(app.root));
  $("tree").replaceChildren(ul);
}

function treeItem(t) {
  const li = el("li", { role: "treeitem", "aria-expanded": t.kind === "group" ? String(t.expanded) : null });
  t.li = li;
  fillTreeItem(t);
  return li;
}

function renderTreeNode(t) {
  if (t.li) fillTreeItem(t);
}

function fillTreeItem(t) {
  const li = t.li;
  li.setAttribute("aria-selected", String(app.selected === t));
  if (t.kind === "group") li.setAttribute("aria-expanded", String(t.expanded));
  const caret = el("span", { class: "caret", text: t.kind === "group" ? (t.expanded ? "▾" : "▸") : "" });
  const icon = el("span", { class: `icon ${t.kind}`, text: t.kind === "group" ? "▣" : "▦" });
  const meta = t.kind === "array" ? describeArray(t.node) : t.kind === "unknown" ? "cannot be opened" : t.children ? `${t.children.length}` : "";
  const row = el(
    "button",
    { type: "button", class: `row${app.selected === t ? " selected" : ""}`, "data-path": t.path, title: t.path || "/" },
    caret,
    icon,
    el("span", { class: "name", text: t.name }),
    el("span", { class: "meta", text: meta }),
  );
  row.addEventListener("click", async (e) => {
    // The caret, or a click on the selected group, folds and unfolds it;
    // a click on another node selects it (and unfolds a group).
    if (t.kind === "group" && (e.target === caret || app.selected === t)) {
      await toggle(t);
      return;
    }
    if (t.kind === "group" && !t.expanded) await toggle(t);
    select(t);
  });
  row.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight" && t.kind === "group" && !t.expanded) toggle(t);
    else if (e.key === "ArrowLeft" && t.kind === "group" && t.expanded) toggle(t);
    else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const rows = [...$("tree").querySelectorAll(".row")];
      const i = rows.indexOf(row) + (e.key === "ArrowDown" ? 1 : -1);
      rows[i]?.focus();
    } else return;
    e.preventDefault();
  });
  const parts = [row];
  if (t.kind === "group" && t.expanded) {
    const ul = el("ul", { role: "group" });
    if (t.error) {
      ul.append(el("li", { class: "note error", text: listError(t.error) }));
    } else if (t.children) {
      if (t.children.length === 0) ul.append(el("li", { class: "note", text: "empty" }));
      for (const c of t.children) ul.append(c.li && c.li.isConnected ? c.li : treeItem(c));
    }
    parts.push(ul);
  }
  li.replaceChildren(...parts);
}

function listError(e) {
  if (e?.code === "UNSUPPORTED" || /list/i.test(String(e?.message))) {
    return "This store cannot list its contents (plain HTTP has no directory listing and there is no consolidated metadata). Type a path below to open it.";
  }
  return explain(e)?.title + ": " + (e?.message ?? e);
}

async function toggle(t) {
  if (t.kind !== "group") return;
  if (!t.expanded) await loadChildren(t);
  t.expanded = !t.expanded;
  renderTreeNode(t);
}

function markSelected(t) {
  for (const r of $("tree").querySelectorAll(".row.selected")) r.classList.remove("selected");
  const prev = app.selected;
  app.selected = t;
  if (prev) renderTreeNode(prev);
  renderTreeNode(t);
}

// --------------------------------------------------------------- selection

async function select(t, extra = {}) {
  app.selectCtrl?.abort();
  const ctrl = new AbortController();
  app.selectCtrl = ctrl;
  markSelected(t);
  if (!t.node) {
    // Listed by its group, but it cannot be opened.
    showError(t.error, "select");
    return;
  }
  const n = t.node;
  app.arr = null;
  app.pyramid = [];
  $("slice-panel").hidden = true;
  $("color-panel").hidden = true;
  // A group holding an OME-Zarr multiscale image shows the image.
  const ms = n.kind === "group" ? multiscalesOf(n) : null;
  let image = null;
  if (ms) {
    try {
      image = await openPyramid(n, ms);
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
    view.clear();
    showMode("empty", "This is a group. Pick an array in the tree to look at its data.");
    setStatus("rendered");
    saveState();
    return;
  }
  app.arr = a;
  app.pyramid = image ? image.levels.slice(1) : [];
  startWorkersFor(a);
  const kind = numericKind(a);
  app.dimNames = dimNames(a, image?.axes);
  app.coords = a.shape.map(() => null);
  try {
    if (kind && a.shape.length >= 2 && a.shape.every((s) => s > 0)) {
      await showSlice(t, extra);
    } else if (kind && a.shape.length === 1 && a.shape[0] > 0) {
      showMode("plot");
      setStatus("loading");
      const r = await plot.show(a, { signal: ctrl.signal });
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

function dtypeText(a) {
  return typeof a.dtype === "string" ? a.dtype : JSON.stringify(a.dtype);
}

/**
 * The first array whose codecs the decode worker pool takes (bz2, lzma:
 * only Go decodes them, slowly) starts the pool; the viewer works without.
 */
function startWorkersFor(a) {
  const names = [];
  const walk = (cs) => (cs ?? []).forEach((c) => (names.push(c.name), walk(c.configuration?.codecs)));
  walk(a.codecs);
  if (app.workersStarting || !names.some((n) => /(^|\.)(bz2|lzma)$/.test(n))) return;
  app.workersStarting = zarr
    .useWorkers()
    .then((pool) => {
      app.workers = pool;
      updateStatusLine();
    })
    .catch((e) => console.warn("decode workers unavailable:", e));
}

/** Dimension names: OME axes, v3 dimension_names, or xarray's _ARRAY_DIMENSIONS. */
function dimNames(a, axes) {
  const names = axes?.map((x) => (typeof x === "string" ? x : x?.name)) ?? a.dimensionNames ?? a.attrs?._ARRAY_DIMENSIONS ?? null;
  return a.shape.map((_, d) => (names && names[d] ? String(names[d]) : `dim ${d}`));
}

/**
 * The first OME-Zarr multiscale image a group describes ("multiscales" in
 * NGFF 0.4 and earlier, "ome.multiscales" in 0.5), or null.
 */
function multiscalesOf(g) {
  const list = g.attrs?.ome?.multiscales ?? g.attrs?.multiscales;
  const m = Array.isArray(list) ? list[0] : null;
  const ok = m && Array.isArray(m.datasets) && m.datasets.length > 0 && m.datasets.every((d) => typeof d?.path === "string");
  return ok ? m : null;
}

/**
 * Opens the levels of a multiscale image. levels[0] is the full resolution;
 * each level's factors are how many level-0 pixels one of its pixels spans
 * per dimension (from the shapes, which the scale transforms must match).
 */
async function openPyramid(g, ms) {
  const arrays = await Promise.all(ms.datasets.map((d) => g.open(d.path.replace(/^\/+/, ""), { kind: "array" })));
  const a0 = arrays[0];
  const levels = arrays
    .filter((arr) => arr.shape.length === a0.shape.length)
    .map((arr) => ({ arr, factors: a0.shape.map((s, d) => Math.max(1, Math.round(s / Math.max(1, arr.shape[d])))) }));
  const axes = Array.isArray(ms.axes) && ms.axes.length === a0.shape.length ? ms.axes : null;
  return { levels, axes, name: ms.name };
}

function units() {
  const u = app.arr?.attrs?.units;
  return typeof u === "string" && u ? ` ${u}` : "";
}

function showMode(mode, message) {
  $("view-host").hidden = mode !== "view";
  $("view-tools").hidden = mode !== "view";
  $("plot-host").hidden = mode !== "plot";
  $("table-host").hidden = mode !== "table";
  $("empty").hidden = mode !== "empty";
  if (mode === "empty") $("empty").replaceChildren(el("p", { text: message ?? "Open a Zarr store to begin." }));
  if (mode !== "view") {
    $("progress").hidden = true;
    hideLoading();
  }
  $("status").textContent = "";
  $("hover").innerHTML = "&nbsp;";
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

// ----------------------------------------------------------- 2D slice view

async function showSlice(t, extra) {
  const a = app.arr;
  const nd = a.shape.length;
  let slice = { ydim: nd - 2, xdim: nd - 1, index: a.shape.map(() => 0) };
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
  showMode("view");
  $("slice-panel").hidden = false;
  $("color-panel").hidden = false;
  buildSliceControls();
  syncColorControls();
  setStatus("loading");
  view.setDisplay(app.display);
  view.flipY = !!extra.flip;
  $("flip").checked = view.flipY;
  view.setArray(a, slice, { keepDisplay: !!manual, pyramid: app.pyramid });
  if (extra.view) view.setView(extra.view);
  loadCoords(t);
  saveState();
}

/** 1-D coordinate arrays beside the array, named like its dimensions. */
async function loadCoords(t) {
  const a = app.arr;
  const parent = t.parent?.node;
  if (!parent || t.node !== a) return;
  const names = app.dimNames;
  await Promise.all(
    names.map(async (name, d) => {
      if (name.startsWith("dim ")) return;
      try {
        const c = await parent.open(name, { kind: "array" });
        if (c.shape.length !== 1 || c.shape[0] !== a.shape[d] || c.shape[0] > 1e6 || numericKind(c) !== "real") return;
        const r = await c.get(null);
        if (app.arr !== a) return;
        app.coords[d] = Float64Array.from(r.data, Number);
        app.coordUnits = app.coordUnits ?? [];
        app.coordUnits[d] = typeof c.attrs?.units === "string" ? c.attrs.units : "";
        updateSliderLabels();
        autoFlip();
      } catch {
        /* no coordinate array: indices only */
      }
    }),
  );
}

/** North up: latitudes that increase with the row put row 0 at the bottom. */
function autoFlip() {
  if (app.flipChosen || !app.slice) return;
  const d = app.slice.ydim;
  const c = app.coords[d];
  const latLike = /^(lat|latitude|y_lat|nav_lat)$/i.test(app.dimNames[d]) || /north/i.test(app.coordUnits?.[d] ?? "");
  const flip = !!(c && latLike && c.length > 1 && c[c.length - 1] > c[0]);
  $("flip").checked = flip;
  view.setFlip(flip);
}

function buildSliceControls() {
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
      view.setSlice(app.slice);
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

function updateSliderLabels() {
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
  view.setSlice(app.slice);
  autoFlip();
  saveState();
}

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
  view.setFlip($("flip").checked);
  saveState();
});

// ------------------------------------------------------------------ colour

function initColorControls() {
  const sel = $("cmap");
  for (const [name, label] of colormapList) sel.append(el("option", { value: name, text: label }));
  sel.addEventListener("change", () => {
    app.display.cmap = sel.value;
    applyDisplay();
  });
  $("reverse").addEventListener("change", () => {
    app.display.reversed = $("reverse").checked;
    applyDisplay();
  });
  const onClim = () => {
    const lo = Number($("lo").value);
    const hi = Number($("hi").value);
    if ($("lo").value === "" || $("hi").value === "" || !Number.isFinite(lo) || !Number.isFinite(hi)) return;
    app.display.lo = lo;
    app.display.hi = hi;
    app.manualClim = true;
    applyDisplay();
  };
  $("lo").addEventListener("change", onClim);
  $("hi").addEventListener("change", onClim);
  $("lo").addEventListener("input", onClim);
  $("hi").addEventListener("input", onClim);
  $("auto").addEventListener("click", () => {
    app.manualClim = false;
    setStatus("loading");
    view.autoContrast();
  });
  initHistogramDrag();
}

function applyDisplay() {
  view.setDisplay(app.display);
  $("cmap-preview").style.background = cssGradient(app.display.cmap, app.display.reversed);
  drawHistogram();
  saveStateSoon();
}

function syncColorControls() {
  $("cmap").value = app.display.cmap;
  $("reverse").checked = app.display.reversed;
  $("cmap-preview").style.background = cssGradient(app.display.cmap, app.display.reversed);
  syncClimInputs();
}

function syncClimInputs() {
  const fmt = (v) => (Number.isFinite(v) ? String(Number(v.toPrecision(7))) : "");
  if (document.activeElement !== $("lo")) $("lo").value = fmt(app.display.lo);
  if (document.activeElement !== $("hi")) $("hi").value = fmt(app.display.hi);
}

function histRange() {
  const st = app.stats;
  const { lo, hi } = app.display;
  let a = Math.min(st?.min ?? lo, lo);
  let b = Math.max(st?.max ?? hi, hi);
  if (!(b > a)) b = a + 1;
  return [a, b];
}

function drawHistogram() {
  const c = $("histogram");
  const dpr = window.devicePixelRatio || 1;
  const w = c.clientWidth || 260;
  const h = c.clientHeight || 96;
  if (c.width !== Math.round(w * dpr)) c.width = Math.round(w * dpr);
  if (c.height !== Math.round(h * dpr)) c.height = Math.round(h * dpr);
  const g = c.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  const st = app.stats;
  const [a, b] = histRange();
  const X = (v) => ((v - a) / (b - a)) * w;
  const barH = h - 16;
  g.fillStyle = "#f6f8fa";
  g.fillRect(0, 0, w, barH);
  const { lo, hi, cmap, reversed } = app.display;
  // Shade the contrast window.
  g.fillStyle = "rgba(42,111,219,0.08)";
  g.fillRect(X(lo), 0, X(hi) - X(lo), barH);
  if (st && st.bins?.length) {
    let max = 0;
    for (const n of st.bins) max = Math.max(max, n);
    g.fillStyle = "#6b7685";
    const bw = st.binWidth;
    for (let i = 0; i < st.bins.length; i++) {
      if (!st.bins[i]) continue;
      const x0 = X(st.min + i * bw);
      const x1 = X(st.min + (i + 1) * bw);
      const bh = Math.max(1, Math.sqrt(st.bins[i] / max) * (barH - 4));
      g.fillRect(x0, barH - bh, Math.max(1, x1 - x0 - 0.5), bh);
    }
  }
  // The colormap across the window, flat outside it.
  const tab = table(cmap, reversed);
  for (let x = 0; x < w; x++) {
    const v = a + ((x + 0.5) / w) * (b - a);
    let j = hi > lo ? Math.round(((v - lo) / (hi - lo)) * 255) : v > lo ? 255 : 0;
    j = Math.max(0, Math.min(255, j));
    g.fillStyle = `rgb(${tab[3 * j]},${tab[3 * j + 1]},${tab[3 * j + 2]})`;
    g.fillRect(x, barH + 4, 1, 10);
  }
  g.strokeStyle = "#2a6fdb";
  g.lineWidth = 2;
  for (const v of [lo, hi]) {
    const x = Math.round(X(v));
    g.beginPath();
    g.moveTo(x, 0);
    g.lineTo(x, barH + 2);
    g.stroke();
  }
  const s = $("stats");
  if (st && st.count) {
    s.textContent = `In view: min ${formatNumber(st.min)}, max ${formatNumber(st.max)}${st.nan ? `, ${st.nan} NaN` : ""} · ${st.count.toLocaleString()} values${st.sampled ? " (sampled)" : ""}; bar height ∝ √count.`;
  } else if (st) {
    s.textContent = "No finite values in view.";
  } else s.textContent = "";
}

function initHistogramDrag() {
  const c = $("histogram");
  let which = null;
  const valueAt = (e) => {
    const r = c.getBoundingClientRect();
    const [a, b] = histRange();
    return a + ((e.clientX - r.left) / r.width) * (b - a);
  };
  c.addEventListener("pointerdown", (e) => {
    const v = valueAt(e);
    which = Math.abs(v - app.display.lo) <= Math.abs(v - app.display.hi) ? "lo" : "hi";
    c.setPointerCapture(e.pointerId);
    move(e);
  });
  const move = (e) => {
    if (!which) return;
    let v = valueAt(e);
    if (app.arr && !/^(float|<f|>f|\|f|complex|<c|>c)/.test(dtypeText(app.arr))) v = Math.round(v);
    if (which === "lo") app.display.lo = Math.min(v, app.display.hi);
    else app.display.hi = Math.max(v, app.display.lo);
    app.manualClim = true;
    syncClimInputs();
    applyDisplay();
  };
  c.addEventListener("pointermove", move);
  c.addEventListener("pointerup", () => (which = null));
  c.addEventListener("pointercancel", () => (which = null));
}

// ----------------------------------------------------------- status lines

function showHover(h) {
  const out = $("hover");
  if (!h || !app.slice) {
    out.innerHTML = "&nbsp;";
    return;
  }
  const { ydim, xdim, index } = app.slice;
  const parts = [];
  for (let d = 0; d < index.length; d++) {
    const i = d === ydim ? h.iy : d === xdim ? h.ix : index[d];
    const c = app.coords[d];
    parts.push(`${app.dimNames[d]} ${i}${c ? ` (${formatNumber(c[i])})` : ""}`);
  }
  let val;
  if (h.loading) val = "…";
  else if (Array.isArray(h.raw)) val = `${formatNumber(h.raw[0])} ${h.raw[1] < 0 ? "−" : "+"} ${formatNumber(Math.abs(h.raw[1]))}i  |z| = ${formatNumber(h.value)}`;
  else if (app.arr?.dtype === "bool" || app.arr?.dtype === "|b1") val = h.raw ? "true" : "false";
  else val = formatNumber(h.raw);
  out.textContent = `${parts.join(" · ")} = ${val}${h.loading ? "" : units()}${h.stride > 1 ? `  (every ${h.stride}${ordinalSuffix(h.stride)} pixel)` : ""}`;
}

function updateStatusLine() {
  if (!app.arr || $("view-host").hidden) return;
  const v = view.view;
  const p = app.progress;
  const st = app.store;
  const bits = [`zoom ${formatNumber(Math.round(v.z * 1000) / 10)}%`];
  if (app.workers) bits.push(`${app.workers.size} decode worker${app.workers.size === 1 ? "" : "s"}`);
  if (p) {
    const level = p.source?.level ? `pyramid level ${p.source.level}${p.source.stride > 1 ? `, stride ${p.source.stride}` : ""}` : null;
    bits.push(level ?? (p.stride > 1 ? `stride ${p.stride}${p.budgetRaised ? " (chunk budget)" : ""}` : "full resolution"));
    bits.push(`tiles ${p.ready}/${p.total}${p.failed ? `, ${p.failed} failed` : ""}`);
  }
  if (st) {
    // A reference store merges the reads of neighbouring chunks into fewer HTTP requests.
    const http = st.inner instanceof zarr.ReferenceStore ? ` (${st.inner.requests} HTTP)` : "";
    bits.push(`${st.requests} requests${http} · ${formatBytes(st.bytes)}${st.inFlight ? ` · ${st.inFlight} in flight` : ""}`);
  }
  $("status").textContent = bits.join(" · ");
}

// ----------------------------------------------------------------- details

function renderDetails(t, image = null) {
  const n = t.node;
  const box = $("details");
  const dl = el("dl");
  const row = (k, v) => dl.append(el("dt", { text: k }), el("dd", {}, v));
  row("path", "/" + t.path);
  row("kind", n.kind);
  row("format", `Zarr v${n.zarrFormat}`);
  const parts = [dl];
  if (n.kind === "group") {
    row("consolidated", n.consolidated ? "yes" : "no");
    if (image) {
      if (image.axes) row("axes", image.axes.map((x) => (typeof x === "string" ? x : `${x.name}${x.unit ? ` (${x.unit})` : ""}`)).join(", "));
      row("levels", image.levels.map((l) => formatShape(l.arr.shape)).join(" · "));
      row("dtype", dtypeText(image.levels[0].arr));
    }
  } else {
    const names = dimNames(n);
    row("shape", formatShape(n.shape));
    if (names.some((x) => !x.startsWith("dim "))) row("dimensions", names.join(", "));
    row("dtype", dtypeText(n));
    const sharding = n.codecs?.[0]?.name === "sharding_indexed";
    if (n.chunks) {
      row(sharding ? "shards" : "chunks", formatShape(n.chunks));
      if (sharding) row("chunks", formatShape(readChunkShape(n)) + " (inside shards)");
      const count = n.shape.reduce((acc, s, d) => acc * Math.ceil(s / n.chunks[d]), 1);
      row(sharding ? "shard count" : "chunk count", count.toLocaleString());
    } else if (n.chunkSizes) {
      row("chunks", "variable: " + n.chunkSizes.map((s) => (Array.isArray(s) ? `[${s.length > 6 ? s.slice(0, 6).join(", ") + ", …" : s.join(", ")}]` : s)).join(" × "));
    }
    row("fill value", fillText(n.fillValue));
    if (n.order && n.zarrFormat < 3) row("order", n.order);
    const size = n.dataType?.size ? n.shape.reduce((a, b) => a * b, 1) * n.dataType.size : null;
    if (size !== null) row("size", `${formatBytes(size)} uncompressed`);
    parts.push(el("h3", { text: "Codecs" }), codecList(n.codecs ?? []));
  }
  const attrs = n.attrs ?? {};
  parts.push(el("h3", { text: `Attributes${Object.keys(attrs).length ? "" : " (none)"}` }));
  if (Object.keys(attrs).length) parts.push(el("pre", { text: jsonText(attrs) }));
  box.replaceChildren(...parts);
}

function fillText(v) {
  if (v === null) return "null (undefined contents)";
  if (typeof v === "number") return formatNumber(v);
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Uint8Array) return `bytes [${[...v].join(", ")}]`;
  if (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === "number")) return `${formatNumber(v[0])} + ${formatNumber(v[1])}i`;
  return jsonText(v);
}

function jsonText(v) {
  return JSON.stringify(
    v,
    (_, x) => (typeof x === "bigint" ? x.toString() : typeof x === "number" && !Number.isFinite(x) ? String(x) : x instanceof Uint8Array ? [...x] : x),
    2,
  );
}

function codecList(codecs) {
  const ul = el("ul", { class: "codecs" });
  for (const c of codecs) {
    const cfg = { ...(c.configuration ?? {}) };
    const inner = cfg.codecs;
    const index = cfg.index_codecs;
    delete cfg.codecs;
    delete cfg.index_codecs;
    const text = Object.keys(cfg).length ? " " + JSON.stringify(cfg).replace(/"([^"]+)":/g, "$1: ").replace(/,/g, ", ") : "";
    const li = el("li", {}, el("b", { text: c.name }), text);
    if (Array.isArray(inner)) li.append(el("div", { class: "muted", text: "inner chunks:" }), codecList(inner));
    if (Array.isArray(index)) li.append(el("div", { class: "muted", text: "index:" }), codecList(index));
    ul.append(li);
  }
  if (!codecs.length) ul.append(el("li", { text: "none" }));
  return ul;
}

// ------------------------------------------------------- address-bar state

let saveTimer = 0;
function saveStateSoon() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(saveState, 300);
}

function saveState() {
  const q = new URLSearchParams();
  if (app.source?.url) q.set("url", app.source.url);
  if (app.selected && app.selected.path) q.set("path", app.selected.path);
  if (app.arr && app.slice && !$("view-host").hidden) {
    const nd = app.arr.shape.length;
    if (!(app.slice.ydim === nd - 2 && app.slice.xdim === nd - 1)) q.set("dims", `${app.slice.ydim},${app.slice.xdim}`);
    if (app.slice.index.some((v, d) => v && d !== app.slice.ydim && d !== app.slice.xdim)) {
      q.set("index", app.slice.index.map((v, d) => (d === app.slice.ydim || d === app.slice.xdim ? 0 : v)).join(","));
    }
    if (app.display.cmap !== "viridis") q.set("cmap", app.display.cmap);
    if (app.display.reversed) q.set("reverse", "1");
    if (view.flipY) q.set("flip", "1");
    if (app.manualClim) q.set("clim", `${Number(app.display.lo.toPrecision(7))},${Number(app.display.hi.toPrecision(7))}`);
  }
  const s = q.toString().replace(/%2F/g, "/").replace(/%3A/g, ":").replace(/%2C/g, ",");
  const next = `${location.pathname}${s ? "?" + s : ""}`;
  if (next !== location.pathname + location.search) history.replaceState(null, "", next);
}

function readState() {
  const q = new URLSearchParams(location.search);
  const nums = (s) => (s ? s.split(",").map(Number) : undefined);
  const v = nums(q.get("view"));
  return {
    url: q.get("url"),
    path: q.get("path") ?? "",
    extra: {
      dims: nums(q.get("dims")),
      index: nums(q.get("index")),
      cmap: q.get("cmap") ?? undefined,
      reversed: q.has("reverse") ? q.get("reverse") === "1" : undefined,
      flip: q.has("flip") ? q.get("flip") === "1" : undefined,
      clim: nums(q.get("clim")),
      view: v && v.length === 3 && v.every(Number.isFinite) ? { cx: v[0], cy: v[1], z: v[2] } : undefined,
    },
  };
}

// ---------------------------------------------------------- local sources

$("open-form").addEventListener("submit", (e) => {
  e.preventDefault();
  openURL($("url").value);
});
$("path-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const p = $("path-input").value.trim().replace(/^\/+/, "");
  if (!app.root) return;
  const t = await findPath(p);
  if (t) {
    $("path-input").value = "";
    select(t);
  } else {
    showError({ code: "NOT_FOUND", message: `nothing at ${JSON.stringify(p)} in this store` }, "path");
  }
});
$("pick-folder").addEventListener("click", () => $("folder-input").click());
$("pick-zip").addEventListener("click", () => $("zip-input").click());
$("folder-input").addEventListener("change", () => {
  const files = [...$("folder-input").files];
  $("folder-input").value = "";
  if (files.length) openFiles(files);
});
$("zip-input").addEventListener("change", () => {
  const f = $("zip-input").files[0];
  $("zip-input").value = "";
  if (f) openZipFile(f);
});

function openFiles(files, pathOf) {
  const store = new FileTreeStore(files, pathOf);
  $("url").value = "";
  openStore(store, { label: `local folder ${store.label || "(picked)"}` });
}

async function openZipFile(file) {
  $("url").value = "";
  try {
    const blob = new BlobStore(file);
    const store = await zarr.ZipStore.open(blob, blob.key);
    openStore(store, { label: `local file ${file.name}` });
  } catch (e) {
    showError(e, "open");
  }
}

// Drag and drop: a .zip file, or a folder (walked with the entries API).
let dragDepth = 0;
window.addEventListener("dragenter", (e) => {
  if (![...(e.dataTransfer?.types ?? [])].includes("Files")) return;
  dragDepth++;
  $("dropzone").hidden = false;
});
window.addEventListener("dragleave", () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) $("dropzone").hidden = true;
});
window.addEventListener("dragover", (e) => e.preventDefault());
window.addEventListener("drop", async (e) => {
  e.preventDefault();
  dragDepth = 0;
  $("dropzone").hidden = true;
  const items = [...(e.dataTransfer?.items ?? [])];
  const entry = items[0]?.webkitGetAsEntry?.();
  if (entry?.isDirectory) {
    const files = [];
    await walkEntry(entry, "", files);
    if (files.length) openFiles(files.map((f) => f.file), (f) => files.find((x) => x.file === f).path);
    return;
  }
  const file = e.dataTransfer?.files?.[0];
  if (file && /\.zip$/i.test(file.name)) openZipFile(file);
  else if (file) showError({ message: `${file.name} is neither a folder nor a .zip` }, "", "Cannot open this file");
});

async function walkEntry(entry, prefix, out) {
  const path = prefix + entry.name;
  if (entry.isFile) {
    const file = await new Promise((res, rej) => entry.file(res, rej));
    out.push({ file, path });
    return;
  }
  const reader = entry.createReader();
  for (;;) {
    const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
    if (!batch.length) break;
    for (const child of batch) await walkEntry(child, path + "/", out);
  }
}

// ------------------------------------------------------------------- start

$("zoom-in").addEventListener("click", () => view.zoomBy(1.5));
$("zoom-out").addEventListener("click", () => view.zoomBy(1 / 1.5));
$("zoom-fit").addEventListener("click", () => view.fit());
$("zoom-1").addEventListener("click", () => view.actualSize());

initExamples();
initColorControls();
syncColorControls();

const start = readState();
zarr.init().catch((e) => showError(e, "", "The WebAssembly engine did not start"));
if (start.url) openURL(absolute(start.url), start.path, start.extra);
else openURL(absolute(examples[0].url), start.path || examples[0].path, start.extra);
