// zarr-wasm: Zarr for JavaScript, backed by a Go engine compiled to
// WebAssembly. See docs/javascript.md and index.d.ts.
export { init, wasmModule } from "./lib/runtime.js";
export { useWorkers, workerPool } from "./lib/workers.js";
export { ZarrError, codes, isZarritaError } from "./lib/errors.js";
export { createGroup, slice, ZarrArray, ZarrGroup, Location, root } from "./lib/core.js";
export { open, create } from "./lib/locations.js";
export { ZarrArray as Array, ZarrGroup as Group } from "./lib/core.js";
export { conventionsOf } from "./lib/conventions.js";
export { get, set, select, consolidate } from "./lib/functions.js";
export { withConsolidatedMetadata, withMaybeConsolidatedMetadata } from "./lib/consolidated.js";
export { MemoryStore, FetchStore, HTTPError, RangeMismatchError, httpDefaults } from "./lib/stores.js";
export { ReferenceStore } from "./lib/refs.js";
export { openSpec, memoryKvStore } from "./lib/spec.js";
export { ZipStore } from "./lib/zip.js";
export { IcechunkStore } from "./lib/icechunk.js";
export { setCacheBytes, cacheStats, clearCache, storeStats } from "./lib/cache.js";
export { storeFromUrl, locate } from "./lib/sources.js";
export { FileListStore, BlobStore } from "./lib/files.js";
