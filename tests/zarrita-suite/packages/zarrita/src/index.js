// zarrita's package root → zarr-wasm's.
export * from "zarr-wasm";
