// Opening a store: by URL (a Zarr hierarchy over HTTP, a .zip, a kerchunk
// reference set, JSON or Parquet) or a store made from local files; then
// the tree is read and the node the address names (or the first image)
// is selected.
import * as zarr from "zarr-wasm";
import { $, el } from "./dom.js";
import { app, setStatus } from "./state.js";
import { InstrumentedStore } from "./stores.js";
import { clearError, showError } from "./banner.js";
import { hideLoading, showLoading, showMode } from "./stage.js";
import { updateStatusLine } from "./status.js";
import { expand, findPath, firstDrawable, makeTreeNode, renderTree } from "./tree.js";
import { select } from "./select.js";
export function absolute(url) {
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

export async function openURL(url, path = "", extra = {}) {
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

export async function openStore(inner, source, path = "", extra = {}, serial = ++app.openSerial) {
  clearError();
  const store = new InstrumentedStore(inner, { onActivity: () => updateStatusLine() });
  app.store = store;
  app.source = source;
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
