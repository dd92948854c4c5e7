// The address bar follows the picture (?url=&path=&dims=&index=&view=&cmap=
// &reverse=&flip=&clim=&ticks=, for an Icechunk repository &branch=, &tag= or
// &snapshot=, for OME-Zarr images and plates
// &composite=0&channels=&clims=&colors=&labels=&acq=, and the 3D view's
// &3d=), so a copied link reopens what was on screen; readState reads it
// back at start.
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
  // The 3D view shows the slice's array: the slice's state, then the view's.
  const vol = !$("volume-host").hidden && app.volume?.volume ? app.volume : null;
  if (app.arr && app.slice && (!$("view-host").hidden || vol)) {
    const nd = app.arr.shape.length;
    if (!(app.slice.ydim === nd - 2 && app.slice.xdim === nd - 1)) q.set("dims", `${app.slice.ydim},${app.slice.xdim}`);
    if (app.slice.index.some((v, d) => v && d !== app.slice.ydim && d !== app.slice.xdim)) {
      q.set("index", app.slice.index.map((v, d) => (d === app.slice.ydim || d === app.slice.xdim ? 0 : v)).join(","));
    }
    if (app.display.cmap !== "viridis") q.set("cmap", app.display.cmap);
    if (app.display.reversed) q.set("reverse", "1");
    if (app.view.flipY) q.set("flip", "1");
    // (the 3D view's limits are the slice view's, which come from the data in view)
    if ((app.manualClim || vol) && !app.channels) q.set("clim", `${app.display.lo},${app.display.hi}`);
    if (app.image?.channelsAvailable && !app.channels) q.set("composite", "0");
    if (app.channels && app.channels.some((c) => !c.visible)) q.set("channels", app.channels.filter((c) => c.visible).map((c) => c.index).join(","));
    if (app.labelNames.length && app.labelName !== app.labelNames[0]) q.set("labels", app.labelName ?? "");
    if (app.ticks !== "off") q.set("ticks", app.ticks);
    const v = app.view.view;
    if (!app.view.fitPending) q.set("view", `${v.cx},${v.cy},${v.z}`); // (shortest exact text: the same pixels)
  }
  if (vol) q.set("3d", volumeText(vol.state, vol.volume.level));
  const grid = !$("grid-host").hidden;
  if (grid && app.plate?.plate.acquisitions.length > 1) q.set("acq", String(app.plate.acquisition));
  if (grid && app.channels?.some((c) => !c.visible)) q.set("channels", app.channels.filter((c) => c.visible).map((c) => c.index).join(","));
  if (app.channels && (grid || !$("view-host").hidden || vol)) {
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
 * The 3D view's state as text: its mode, then what differs from the
 * defaults as name:value (yaw, pitch, zoom, level, budget, depth, and
 * crop:x0:x1:y0:y1:z0:z1), numbers in their shortest exact text:
 * "alpha,yaw:0.6,pitch:0.4,zoom:1.8,level:1,budget:1,crop:0:1:0:1:0:0.5".
 */
function volumeText(s, level) {
  const parts = [s.mode];
  if (s.yaw) parts.push(`yaw:${s.yaw}`);
  if (s.pitch) parts.push(`pitch:${s.pitch}`);
  if (s.zoom !== 1) parts.push(`zoom:${s.zoom}`);
  parts.push(`level:${level}`);
  if (s.budgetMiB !== 256) parts.push(`budget:${s.budgetMiB}`);
  parts.push(`depth:${s.depth}`);
  const { lo, hi } = s.crop;
  if (lo.some((v) => v !== 0) || hi.some((v) => v !== 1)) parts.push(`crop:${[0, 1, 2].map((k) => `${lo[k]}:${hi[k]}`).join(":")}`);
  return parts.join(",");
}

/** volumeText read back: {mode, yaw, pitch, zoom, level, budgetMiB, depth, crop} (what it has), or undefined. */
function readVolume(text) {
  const [mode, ...rest] = text.split(",");
  if (mode !== "mip" && mode !== "alpha") return undefined;
  const out = { mode };
  for (const part of rest) {
    const [name, ...vs] = part.split(":");
    const v = vs.map(Number);
    if (!v.length || !v.every(Number.isFinite)) continue;
    if (["yaw", "pitch", "zoom"].includes(name) && v.length === 1) out[name] = v[0];
    else if (["level", "depth"].includes(name) && v.length === 1 && Number.isInteger(v[0])) out[name] = v[0];
    else if (name === "budget" && v.length === 1 && v[0] > 0) out.budgetMiB = v[0];
    else if (name === "crop" && v.length === 6) out.crop = { lo: [v[0], v[2], v[4]], hi: [v[1], v[3], v[5]] };
  }
  return out;
}

/**
 * The state in the address: {url, path, version (icechunk.js), extra: {dims, index, cmap,
 * reversed, flip, clim, composite, channels, clims, colors, labels, ticks,
 * acq, view, volume}}.
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
      volume: q.has("3d") ? readVolume(q.get("3d")) : undefined,
    },
  };
}
