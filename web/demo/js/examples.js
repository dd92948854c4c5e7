// The examples menu: the sample data web/demo/gen writes beside the page.
import { $, el } from "./dom.js";

/** Sample stores served beside the page, and the node each one opens at. */
export const examples = [
  { label: "Sample · Zarr v3 (blosc, sharded zstd, complex, bool)", url: "data/sample.zarr", path: "climate/temperature" },
  { label: "Sample · Zarr v2 (consolidated)", url: "data/sample-v2.zarr", path: "temperature" },
  { label: "Sample · Zarr v2 in a .zip", url: "data/sample-v2.zarr.zip", path: "temperature" },
  { label: "Sample · Zarr v1 array (zlib)", url: "data/sample-v1.zarr", path: "" },
  { label: "Sample · kerchunk references (JSON) over one binary file", url: "data/refs/sample.json", path: "temperature" },
  { label: "Sample · Parquet references (hyparquet-writer)", url: "data/refs/pq/refs.parq", path: "a/big" },
  { label: "Sample · OME-Zarr image: 2 channels, labels, 3 levels (NGFF 0.4)", url: "data/sample-ome.zarr", path: "" },
  { label: "Sample · OME-Zarr movie, 20 × 10 × 1024² uint16 (t, z, y, x)", url: "data/sample-movie.zarr", path: "" },
  { label: "Sample · OME-Zarr plate, 2 × 3 wells (NGFF 0.4)", url: "data/sample-plate.zarr", path: "" },
  { label: "Sample · Icechunk repository: 3 commits, a branch, a tag", url: "data/history.icechunk", path: "temperature" },
];

/** Fills the examples menu; onPick(example) opens the one picked. */
export function initExamples(onPick) {
  const sel = $("examples");
  sel.append(el("option", { value: "", text: "Examples…" }));
  examples.forEach((ex, i) => sel.append(el("option", { value: String(i), text: ex.label })));
  sel.addEventListener("change", () => {
    const ex = examples[Number(sel.value)];
    sel.value = "";
    if (ex) onPick(ex);
  });
}
