// The Details panel: the selected node's facts (shape, dimensions, data
// type, chunks and shards, codecs, fill value, size) and its attributes;
// for an OME-Zarr image its levels, pixel size, channels and labels.
import { $, el } from "./dom.js";
import { formatBytes, formatNumber, formatShape } from "./format.js";
import { dimNames, dtypeText } from "./arrays.js";
import { plateOf, unitInfo, wellOf } from "./ome.js";
export function renderDetails(t, image = null) {
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
      const im = image.image;
      if (im?.version) row("NGFF", im.version);
      if (im?.scale) {
        // The size of a level-0 pixel along each spatial or time axis.
        const sizes = im.scale.map((s, d) => (im.axes?.[d]?.type === "channel" ? null : `${im.axes?.[d]?.name ?? d} ${formatNumber(s)}${unitInfo(im.axes?.[d]?.unit)?.symbol ? " " + unitInfo(im.axes[d].unit).symbol : ""}`));
        row("pixel size", sizes.filter(Boolean).join(" · "));
      }
      if (im?.channelAxis >= 0 || im?.omero) row("channels", im.channels.map((c) => c.label + (c.window ? ` (${formatNumber(c.window.start)}–${formatNumber(c.window.end)})` : "")).join(", "));
      if (im && (im.defaultZ !== undefined || im.defaultT !== undefined)) row("defaults", [im.defaultZ !== undefined && `z ${im.defaultZ}`, im.defaultT !== undefined && `t ${im.defaultT}`].filter(Boolean).join(", "));
      if (image.labels?.length) row("labels", image.labels.join(", "));
    }
    const plate = plateOf(n.attrs);
    if (plate) row("plate", `${plate.name ? plate.name + ": " : ""}${plate.rows.length} × ${plate.columns.length}, ${plate.wells.length} wells`);
    const well = wellOf(n.attrs);
    if (well) row("well", `${well.images.length} field${well.images.length === 1 ? "" : "s"} of view`);
  } else {
    const names = dimNames(n);
    row("shape", formatShape(n.shape));
    if (names.some((x) => !x.startsWith("dim "))) row("dimensions", names.join(", "));
    row("dtype", dtypeText(n));
    const grid = n.shards ?? n.chunks;
    if (grid) {
      row(n.shards ? "shards" : "chunks", formatShape(grid));
      if (n.shards) row("chunks", formatShape(n.chunks) + " (inside shards)");
      const count = n.shape.reduce((acc, s, d) => acc * Math.ceil(s / grid[d]), 1);
      row(n.shards ? "shard count" : "chunk count", count.toLocaleString());
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
