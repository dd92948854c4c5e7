// Types of storeFromUrl (lib/sources.js).
import type { FetchStore, FetchStoreOptions, ReferenceStore, ZipStore } from "../index.js";

export interface StoreFromUrlOptions extends FetchStoreOptions {
  /** Aborts opening (a zip's directory, a reference set, the Parquet probe). */
  signal?: AbortSignal;
}

/**
 * The store for a URL, told by its form: a `.zip` is a ZipStore read by
 * range requests; `.json` (`.json.gz`, `.json.zst`) a JSON reference set;
 * `.parq`, `.parquet`, `…/.zmetadata` or a directory whose `.zmetadata` has
 * a `record_size` a Parquet reference set; anything else a FetchStore.
 * Each counts its requests and bytes.
 */
export declare function storeFromUrl(url: string | URL, options?: StoreFromUrlOptions): Promise<FetchStore | ZipStore | ReferenceStore>;
