export { root, Location, Array, Group } from "zarr-wasm";
