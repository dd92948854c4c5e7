// Local sources and the open forms: the URL box, the path box under the
// tree, the Folder… and Zip… pickers (a .zip or a zipped OME-Zarr .ozx),
// and folders or zips dropped on the page (nothing is uploaded; the files
// are read where they are).
import * as zarr from "zarr-wasm";
import { $ } from "./dom.js";
import { app } from "./state.js";
import { showError } from "./banner.js";
import { openStore, openURL, showPathError } from "./open.js";
import { findPath } from "./tree.js";
import { select } from "./select.js";

/** Wires the forms, pickers and drag and drop. */
export function initSources() {
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
      await showPathError(p);
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
    if (file && /\.(zip|ozx)$/i.test(file.name)) openZipFile(file);
    else if (file) showError({ message: `${file.name} is neither a folder, a .zip nor an .ozx` }, "", "Cannot open this file");
  });
}

function openFiles(files, pathOf) {
  const store = new zarr.FileListStore(files, { pathOf });
  $("url").value = "";
  openStore(store, { label: `local folder ${store.label || "(picked)"}` });
}

async function openZipFile(file) {
  $("url").value = "";
  try {
    const blob = new zarr.BlobStore(file);
    const store = await zarr.ZipStore.open(blob, blob.key);
    openStore(store, { label: `local file ${file.name}` });
  } catch (e) {
    showError(e, "open");
  }
}

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
