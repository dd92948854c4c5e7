// Icechunk repositories: a repository's URL (or folder) opens like any
// store, through zarr.IcechunkStore at a version (a branch, a tag or a
// snapshot id); the Version panel lists the branches, the tags and the
// ancestry of the version shown, and choosing one reads the tree and the
// picture again at that version, the node and the view kept. The version
// rides in the address (&branch=, &tag= or &snapshot=), so a copied link
// reopens it.
import * as zarr from "zarr-wasm";
import { $, el } from "./dom.js";
import { app } from "./state.js";
import { errorLog, showError } from "./banner.js";
import { hideLoading } from "./stage.js";
import { openStore } from "./open.js";
import { readState, saveState } from "./address.js";

const kinds = ["branch", "tag", "snapshot"];

/** The version an address's query names ({branch}, {tag} or {snapshot}), or null. */
export function versionIn(query) {
  for (const k of kinds) if (query.has(k)) return { [k]: query.get(k) };
  return null;
}

/** The version's part of an address: [[name, value]] (none for a store that is no repository, or has no URL). */
export function versionParams(source) {
  return source?.version && source.url ? Object.entries(source.version) : [];
}

async function has(store, key) {
  try {
    return (await store.get(key)) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Whether store holds an Icechunk repository at its root: the `repo`
 * object (spec 2), or the main branch's ref or config.yaml (spec 1).
 * Asked only when the root has no Zarr metadata, so opening a Zarr store
 * costs no request more.
 */
export async function isRepository(store) {
  if (!store || store instanceof zarr.IcechunkStore || typeof store.get !== "function") return false;
  return (await has(store, "/repo")) || (await has(store, "/refs/branch.main/ref.json")) || (await has(store, "/config.yaml"));
}

/**
 * Opens the repository whose files the store `files` holds (a URL's
 * FetchStore, a local folder's) at version (default: the branch main)
 * and shows it as openStore does; page: {label, url?}. Resolves to
 * false when the repository or the version could not be opened (the page
 * shows why, and what was shown stays).
 */
export async function openRepository(files, version, page, path = "", extra = {}, serial = ++app.openSerial) {
  version ??= { branch: "main" };
  let ic;
  try {
    ic = await zarr.IcechunkStore.open(files, version);
  } catch (e) {
    if (serial !== app.openSerial) return false;
    hideLoading();
    showError(e, "open");
    $("banner-detail").textContent = `${page.label} (${describe(version)}): ${$("banner-detail").textContent}`;
    return false;
  }
  if (serial !== app.openSerial) return false;
  // (the versions are listed while the tree and the picture are read)
  const listed = showVersions(ic, version, serial);
  await openStore(ic, { ...page, version }, path, extra, serial);
  if (serial !== app.openSerial) return true;
  if (!app.selected && errorLog.last?.code === "NOT_FOUND") {
    // (a version whose root holds no group or array: the repository's first snapshot is empty)
    const name = version.snapshot ? `snapshot ${ic.snapshotId}` : `${describe(version)} (snapshot ${ic.snapshotId})`;
    showError({ code: "NOT_FOUND", message: `${name} holds no Zarr group or array at its root` }, "", "Nothing at this version");
    $("banner-hint").textContent = "Choose another version in the Version panel.";
    $("tree").replaceChildren(el("div", { class: "note", text: "Nothing at this version." }));
    saveState();
  }
  await listed;
  return true;
}

const describe = (v) => Object.entries(v).map(([k, x]) => `${k} ${x}`).join("");

/** A version as the Version menu's value: "branch:main", "tag:v1", "snapshot:<id>". */
function menuValue(v) {
  const k = kinds.find((k) => v[k] !== undefined);
  return `${k}:${v[k]}`;
}

/** The Version panel (made once, above the hierarchy). */
function panel() {
  let p = $("version-panel");
  if (p) return p;
  p = el(
    "section",
    { class: "panel version-panel", id: "version-panel", hidden: true },
    el("h2", {}, "Version ", el("span", { id: "version-label", class: "muted" })),
    el("label", { class: "version-ref" }, "Branch or tag ", el("select", { id: "version-ref", onchange: (e) => pick(e.target.value) })),
    el("p", { id: "version-note", class: "muted small", hidden: true }),
    el("ol", { id: "version-history", class: "version-history", "aria-label": "ancestry of the version shown, newest first" }),
  );
  document.querySelector(".sidebar").prepend(p);
  return p;
}

/** Hides the Version panel: the store shown is no repository. */
export function hideVersions() {
  const p = $("version-panel");
  if (p) p.hidden = true;
  app.versions = null;
}

const short = (id) => id.slice(0, 8);

/**
 * Fills the Version panel for ic, opened at version. A spec-1 repository
 * over plain HTTP cannot list its branches and tags (they are files under
 * refs/): the menu then holds the version shown, and a note says how to
 * open another by name.
 */
async function showVersions(ic, version, serial) {
  const [b, t, a] = await Promise.allSettled([ic.branches(), ic.tags(), ic.ancestry()]);
  if (serial !== app.openSerial) return;
  const refsError = b.reason ?? t.reason;
  const branches = b.value ?? [];
  const tags = t.value ?? [];
  const ancestry = a.value ?? [];
  if (a.reason) showError(a.reason, "", "The history of this version could not be read");
  app.versions = { ic, version, branches, tags, ancestry };
  const p = panel();
  $("version-label").textContent = version.snapshot ? `snapshot ${short(ic.snapshotId)}` : `${describe(version)} · ${short(ic.snapshotId)}`;
  $("version-label").title = `snapshot ${ic.snapshotId}`;
  const sel = $("version-ref");
  const option = (kind, r) => el("option", { value: `${kind}:${r.name}`, text: `${r.name} · ${short(r.snapshot)}` });
  const listed = [...branches.map((b) => `branch:${b.name}`), ...tags.map((t) => `tag:${t.name}`)];
  sel.replaceChildren(
    branches.length ? el("optgroup", { label: "Branches" }, branches.map((b) => option("branch", b))) : null,
    tags.length ? el("optgroup", { label: "Tags" }, tags.map((t) => option("tag", t))) : null,
    listed.includes(menuValue(version)) ? null : el("option", { value: menuValue(version), text: `${describe(version)} · ${short(ic.snapshotId)}` }),
  );
  sel.value = menuValue(version);
  $("version-note").hidden = !refsError;
  $("version-note").textContent = refsError ? "The branches and tags cannot be listed here: open one by name with &branch= or &tag= in the address." : "";
  $("version-note").title = refsError?.message ?? "";
  $("version-history").replaceChildren(
    ...ancestry.map((a) =>
      el(
        "li",
        {},
        el(
          "button",
          { type: "button", class: a.id === ic.snapshotId ? "current" : "", "data-snapshot": a.id, title: `${a.message}\nsnapshot ${a.id}${a.parent ? `, parent ${a.parent}` : ""}`, onclick: () => pick(`snapshot:${a.id}`) },
          el("code", { text: short(a.id) }),
          el("span", { class: "message", text: a.message }),
          el("time", { datetime: a.time.toISOString(), text: when(a.time) }),
        ),
      ),
    ),
  );
  p.hidden = false;
}

/** A commit's time for the list: local date and time to the second. */
function when(t) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}`;
}

/** Opens the repository shown at "kind:name", keeping the node and the view. */
async function pick(value) {
  const v = app.versions;
  if (!v) return;
  const at = value.indexOf(":");
  const version = { [value.slice(0, at)]: value.slice(at + 1) };
  if (describe(version) === describe(v.version)) return;
  // The view as the address carries it (slice, zoom and pan, colours).
  saveState();
  const { path, extra } = readState();
  const { counted, version: _, ...page } = app.source;
  if (!(await openRepository(v.ic.source, version, page, path, extra)) && app.versions === v) {
    $("version-ref").value = menuValue(v.version);
  }
}
