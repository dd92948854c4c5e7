export { open } from "zarr-wasm";
