// The address bar follows the picture (?url=&path=&dims=&index=&view=&cmap=
// &reverse=&flip=&clim=&ticks=, for an Icechunk repository &branch=, &tag= or
// &snapshot=, and for OME-Zarr images and plates
// &composite=0&channels=&clims=&colors=&labels=&acq=), so a copied link reopens what was on
// screen; readState reads it back at start.
import { $ } from "./dom.js";
import { app } from "./state.js";
import { versionIn, versionParams } from "./icechunk.js";

let saveTimer = 0;

/** Saves the state after a pause (sliders and zooms move in bursts). */
export function saveStateSoon() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(saveState, 300);
}

export function saveState() {
  const q = new URLSearchParams();
  if (app.source?.url) q.set("url", app.source.url);
  for (const [k, v] of versionParams(app.source)) q.set(k, v);
  if (app.selected && app.selected.path) q.set("path", app.selected.path);
  if (app.arr && app.slice && !$("view-host").hidden) {
    const nd = app.arr.shape.length;
    if (!(app.slice.ydim === nd - 2 && app.slice.xdim === nd - 1)) q.set("dims", `${app.slice.ydim},${app.slice.xdim}`);
    if (app.slice.index.some((v, d) => v && d !== app.slice.ydim && d !== app.slice.xdim)) {
      q.set("index", app.slice.index.map((v, d) => (d === app.slice.ydim || d === app.slice.xdim ? 0 : v)).join(","));
    }
    if (app.display.cmap !== "viridis") q.set("cmap", app.display.cmap);
    if (app.display.reversed) q.set("reverse", "1");
    if (app.view.flipY) q.set("flip", "1");
    if (app.manualClim && !app.channels) q.set("clim", `${app.display.lo},${app.display.hi}`);
    if (app.image?.channelsAvailable && !app.channels) q.set("composite", "0");
    if (app.channels && app.channels.some((c) => !c.visible)) q.set("channels", app.channels.filter((c) => c.visible).map((c) => c.index).join(","));
    if (app.labelNames.length && app.labelName !== app.labelNames[0]) q.set("labels", app.labelName ?? "");
    if (app.ticks !== "off") q.set("ticks", app.ticks);
    const v = app.view.view;
    if (!app.view.fitPending) q.set("view", `${v.cx},${v.cy},${v.z}`); // (shortest exact text: the same pixels)
  }
  const grid = !$("grid-host").hidden;
  if (grid && app.plate?.plate.acquisitions.length > 1) q.set("acq", String(app.plate.acquisition));
  if (grid && app.channels?.some((c) => !c.visible)) q.set("channels", app.channels.filter((c) => c.visible).map((c) => c.index).join(","));
  if (app.channels && (grid || !$("view-host").hidden)) {
    // Each channel's limits once they are known ("" while they wait for
    // the data in view: auto).
    if (app.channels.some((c) => !c.auto)) q.set("clims", app.channels.map((c) => (c.auto ? "" : `${c.lo}:${c.hi}`)).join(","));
    const base = (app.image ?? app.plate?.template?.image)?.channels;
    if (base && app.channels.some((c, i) => c.color.join() !== base[i]?.color.join())) q.set("colors", app.channels.map((c) => hex(c.color)).join(","));
  }
  const s = q.toString().replace(/%2F/g, "/").replace(/%3A/g, ":").replace(/%2C/g, ",");
  const next = `${location.pathname}${s ? "?" + s : ""}`;
  if (next !== location.pathname + location.search) history.replaceState(null, "", next);
}

const hex = (c) => c.map((x) => x.toString(16).padStart(2, "0")).join("").toUpperCase();

/**
 * The state in the address: {url, path, version (icechunk.js), extra: {dims, index, cmap,
 * reversed, flip, clim, composite, channels, clims, colors, labels, ticks,
 * acq, view}}.
 */
export function readState() {
  const q = new URLSearchParams(location.search);
  const nums = (s) => (s ? s.split(",").map(Number) : undefined);
  const v = nums(q.get("view"));
  return {
    url: q.get("url"),
    path: q.get("path") ?? "",
    version: versionIn(q),
    extra: {
      dims: nums(q.get("dims")),
      index: nums(q.get("index")),
      cmap: q.get("cmap") ?? undefined,
      reversed: q.has("reverse") ? q.get("reverse") === "1" : undefined,
      flip: q.has("flip") ? q.get("flip") === "1" : undefined,
      clim: nums(q.get("clim")),
      composite: q.has("composite") ? q.get("composite") !== "0" : undefined,
      channels: q.has("channels") ? nums(q.get("channels")) ?? [] : undefined,
      clims: q.get("clims")?.split(",").map((p) => p.split(":").map(Number)),
      colors: q.get("colors")?.split(",").map((h) => (/^[0-9a-f]{6}$/i.test(h) ? [0, 2, 4].map((k) => parseInt(h.slice(k, k + 2), 16)) : null)),
      labels: q.get("labels") ?? undefined,
      ticks: ["index", "physical"].includes(q.get("ticks")) ? q.get("ticks") : undefined,
      acq: q.has("acq") ? Number(q.get("acq")) : undefined,
      view: v && v.length === 3 && v.every(Number.isFinite) ? { cx: v[0], cy: v[1], z: v[2] } : undefined,
    },
  };
}
