// Opening a store: by URL (a Zarr hierarchy over HTTP, a .zip or zipped
// OME-Zarr .ozx, a kerchunk reference set, JSON or Parquet, a URL pipeline,
// an Icechunk repository: icechunk.js) or a store made from local files; then
// the tree is read and the node the address names (or the first image)
// is selected.
import * as zarr from "zarr-wasm";
import { $, el } from "./dom.js";
import { app, setStatus } from "./state.js";
import { clearError, showError } from "./banner.js";
import { hideLoading, showLoading, showMode } from "./stage.js";
import { expand, findPath, firstDrawable, makeTreeNode, renderTree } from "./tree.js";
import { select } from "./select.js";
import { hideVersions, isRepository, openRepository } from "./icechunk.js";

/** url against the page; of a URL pipeline (root|zip:…|zarr3:…), its root. */
export function absolute(url) {
  const [root, ...adapters] = url.split("|");
  return [new URL(root, location.href).href, ...adapters].join("|");
}

/** Opens url (at version, for an Icechunk repository: {branch}, {tag} or {snapshot}). */
export async function openURL(url, path = "", extra = {}, version = null) {
  url = url.trim();
  if (!url) return;
  $("url").value = url;
  const serial = ++app.openSerial;
  setStatus("loading");
  showLoading(`Opening ${url}…`);
  let store;
  try {
    // A URL pipeline's node (data.zip|zip:path/in/zip|zarr3:group/array)
    // is selected unless the address names another.
    let inner;
    ({ store, path: inner } = await storeFor(url));
    path ||= inner;
  } catch (e) {
    if (serial !== app.openSerial) return;
    hideLoading();
    showError(e, "open");
    return;
  }
  if (serial !== app.openSerial) return;
  if (version) await openRepository(store, version, { label: url, url }, path, extra, serial);
  else await openStore(store, { label: url, url }, path, extra, serial);
}

/**
 * The store for a URL and the node's path in it ("" but for a URL
 * pipeline): the package tells a hierarchy, a .zip, reference sets and URL
 * pipelines apart (zarr.locate); a zipped OME-Zarr (.ozx, NGFF RFC-9: a zip
 * whose root is the hierarchy's root) opens as a .zip does, through range
 * requests.
 */
async function storeFor(url) {
  if (url.includes("|")) return zarr.locate(url);
  const u = new URL(url, location.href);
  const m = /^(.*\/)([^/]+\.ozx)$/i.exec(u.pathname);
  if (!m) return { store: await zarr.storeFromUrl(url), path: "" };
  const dir = new URL(u.href);
  dir.pathname = m[1];
  dir.search = "";
  return { store: await zarr.ZipStore.open(new zarr.FetchStore(dir), "/" + decodeURIComponent(m[2])), path: "" };
}

/**
 * The engine's decoded-chunk cache for everything opened from a store: a
 * pool of its own, whose chunks are confirmed with the store once per open
 * (recheck "open"), so panning back, another zoom level of the same chunks
 * and prefetched frames cost no request and no decoding.
 */
const engineCache = { cacheBytes: 192 << 20, recheck: "open" };

/**
 * Shows the hierarchy in store (one of the package's stores, which count
 * their requests and bytes) and selects path in it, or the first image.
 * source: {label, url?, version?} for the page (version: an Icechunk
 * repository's, icechunk.js).
 */
export async function openStore(counted, source, path = "", extra = {}, serial = ++app.openSerial) {
  clearError();
  const store = counted;
  app.store = store;
  app.source = { ...source, counted };
  if (!source.version) hideVersions();
  app.selected = null;
  app.arr = null;
  app.slice = null;
  app.stats = null;
  app.view.clear();
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
    rootNode = await zarr.open(store, { path: "", ...engineCache });
  } catch (e) {
    if (serial !== app.openSerial) return;
    // No Zarr metadata at the root: an Icechunk repository opens at its main branch.
    if (e?.code === "NOT_FOUND" && (await isRepository(store))) {
      if (serial === app.openSerial) await openRepository(store, null, source, path, extra, serial);
      return;
    }
    // The root may have no metadata (v3 implicit groups, or a path into a
    // bigger hierarchy): try the path itself.
    if (path && e?.code === "NOT_FOUND") {
      try {
        const n = await zarr.open(store, { path, ...engineCache });
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
    await showPathError(path);
  }
  await select(target, extra);
}

/**
 * Reports a path that is not in the store with the engine's own error,
 * which suggests a near name where the store can list or has consolidated
 * metadata; the suggestion is offered as a button.
 */
export async function showPathError(path) {
  let err = null;
  try {
    const root = app.root?.node;
    await (root?.kind === "group" ? root.open(path) : zarr.open(app.store, { path }));
  } catch (e) {
    err = e;
  }
  if (!err || err.code !== "NOT_FOUND") err = { code: "NOT_FOUND", message: `${JSON.stringify(path)} is not in this store`, ...(err && { cause: err }) };
  const suggest = err.suggest;
  showError(err, "path", undefined, suggest && {
    label: `Open ${suggest}`,
    run: async () => {
      const t = await findPath(suggest);
      if (t) select(t);
    },
  });
}
