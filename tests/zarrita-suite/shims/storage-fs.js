export { FileSystemStore as default } from "zarr-wasm/node";
