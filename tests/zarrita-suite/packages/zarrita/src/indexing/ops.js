import { notInZarrWasm } from "../_internal.js";
export { get, set } from "zarr-wasm";
export const setter = notInZarrWasm("setter");
