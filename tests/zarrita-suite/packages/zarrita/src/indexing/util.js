// slice is zarr-wasm's. range (a Python-like range generator the tests
// build expected values with) is zarrita's own, from its npm package: a
// test helper, not API. sliceIndices is a zarrita internal.
import { notInZarrWasm } from "../_internal.js";
export { slice } from "zarr-wasm";
export { range } from "../../../../node_modules/zarrita/dist/src/indexing/util.js";
export const sliceIndices = notInZarrWasm("sliceIndices");
