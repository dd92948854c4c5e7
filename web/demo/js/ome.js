// OME-Zarr (NGFF) metadata: multiscale images ("multiscales" in NGFF 0.4
// and earlier, "ome.multiscales" in 0.5) and their resolution levels.

/** The first multiscale image a group describes, or null. */
export function multiscalesOf(g) {
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
export async function openPyramid(g, ms) {
  const arrays = await Promise.all(ms.datasets.map((d) => g.open(d.path.replace(/^\/+/, ""), { kind: "array" })));
  const a0 = arrays[0];
  const levels = arrays
    .filter((arr) => arr.shape.length === a0.shape.length)
    .map((arr) => ({ arr, factors: a0.shape.map((s, d) => Math.max(1, Math.round(s / Math.max(1, arr.shape[d])))) }));
  const axes = Array.isArray(ms.axes) && ms.axes.length === a0.shape.length ? ms.axes : null;
  return { levels, axes, name: ms.name };
}
