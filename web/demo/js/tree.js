// The hierarchy tree: groups unfold (children listed by the package's
// group.children(); an OME-Zarr image names its levels even where the
// store cannot list), arrays and groups are selected by a click.
import { $, el } from "./dom.js";
import { app } from "./state.js";
import { explain } from "./format.js";
import { numericKind } from "./arrays.js";
import { labelNames, multiscalesOf, plateOf, wellOf } from "./ome.js";

let onSelect = (_t) => {};

/** Sets what a click on a node does (select.js's select). */
export function initTree(select) {
  onSelect = select;
}
/**
 * A tree node for node (a package node). A child that cannot be opened has
 * no node and is listed with its error; a lazy child (lazyKind "group")
 * is opened when it is unfolded or selected (a plate's rows and wells: a
 * 384-well plate would otherwise cost hundreds of requests to list).
 */
export function makeTreeNode(node, name, parent, error = null, lazyKind = null) {
  const path = node ? node.path : parent?.path ? `${parent.path}/${name}` : name;
  return { node, name, path, kind: node ? node.kind : lazyKind ?? "unknown", lazy: !node && !!lazyKind, parent, children: null, expanded: false, error, li: null };
}

/** Opens a lazy node (no-op for others); it becomes "unknown" with its error when it cannot be opened. */
export async function ensureNode(t) {
  if (!t.lazy) return t;
  t.lazy = false;
  try {
    t.node = await t.parent.node.open(t.name, { kind: t.kind });
  } catch (e) {
    t.kind = "unknown";
    t.error = e;
  }
  return t;
}

function describeArray(a) {
  const dt = typeof a.dtype === "string" ? a.dtype : a.dtype?.name ?? "struct";
  return `${a.shape.length ? a.shape.join("×") : "()"} ${dt}`;
}

export async function loadChildren(t) {
  await ensureNode(t);
  if (t.children || t.kind !== "group") return;
  try {
    const kids = await t.node.children();
    t.children = kids.map((k) => makeTreeNode(k.node, k.name, t, k.error ?? null));
  } catch (e) {
    t.children = [];
    t.error = e;
  }
  // OME-Zarr names the children of images, plates and wells in their
  // metadata, so they are listed even where the store cannot list (plain
  // HTTP without consolidated metadata, as most OME-Zarr is).
  if (t.children.length === 0 && lazyGroups(t)) {
    t.children = omeChildren(t).map((n) => makeTreeNode(null, n, t, null, "group"));
    if (t.children.length) t.error = null;
  } else if (t.children.length === 0) {
    const names = omeChildren(t);
    const nodes = await Promise.all(names.map((n) => t.node.open(n).then((node) => [n, node], () => null)));
    t.children = nodes.filter(Boolean).map(([name, node]) => makeTreeNode(node, name, t));
    if (t.children.length) t.error = null;
  }
}

/** Whether t's OME-named children are groups listed without opening them: a plate's rows, a row's wells. */
function lazyGroups(t) {
  return !!(plateOf(t.node.attrs) || (t.parent?.node && plateOf(t.parent.node.attrs)));
}

/**
 * The children OME-Zarr metadata names: an image's levels and its
 * "labels" group, a labels group's label images, a plate's rows, a row's
 * wells (from the plate above it), a well's fields of view.
 */
function omeChildren(t) {
  const attrs = t.node.attrs;
  const ms = multiscalesOf(t.node);
  if (ms) return [...ms.datasets.map((d) => d.path.replace(/^\/+/, "")), "labels"];
  const labels = labelNames(attrs);
  if (labels.length) return labels;
  const plate = plateOf(attrs);
  if (plate) return [...new Set(plate.wells.map((w) => w.path.split("/")[0]))];
  const parentPlate = t.parent?.node && plateOf(t.parent.node.attrs);
  if (parentPlate) return parentPlate.wells.filter((w) => w.path.split("/")[0] === t.name).map((w) => w.path.split("/")[1]);
  const well = wellOf(attrs);
  if (well) return well.images.map((i) => i.path);
  return [];
}

export async function expand(t, depth) {
  if (t.kind !== "group") return;
  await loadChildren(t);
  if (t.kind !== "group") return;
  t.expanded = true;
  renderTreeNode(t);
  if (depth > 1 && t.children.length <= 50 && !lazyGroups(t)) {
    await Promise.all(t.children.filter((c) => c.kind === "group").map((c) => expand(c, depth - 1)));
  }
}

export async function findPath(path) {
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
    t = await ensureNode(next);
  }
  renderTreeNode(t.parent ?? t);
  return t;
}

/** The array to show first: the largest numeric one with two or more dimensions. */
export function firstDrawable(t) {
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

export function renderTree() {
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

export function renderTreeNode(t) {
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
    onSelect(t);
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

export function markSelected(t) {
  for (const r of $("tree").querySelectorAll(".row.selected")) r.classList.remove("selected");
  const prev = app.selected;
  app.selected = t;
  if (prev) renderTreeNode(prev);
  renderTreeNode(t);
}
