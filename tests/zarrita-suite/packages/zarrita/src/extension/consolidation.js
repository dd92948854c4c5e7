export { withConsolidatedMetadata, withMaybeConsolidatedMetadata } from "zarr-wasm";
