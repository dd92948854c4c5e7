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

export interface LocateOptions extends FetchStoreOptions {
  signal?: AbortSignal;
  /** Makes the store of the root's directory (of the root itself without "zip:"); FetchStore by default. */
  rootStore?: (dir: string) => unknown;
}

/**
 * Where a URL or a URL pipeline points (github.com/jbms/url-pipeline):
 * "https://host/data.zip|zip:path/in/zip|zarr3:group/array" is the ZIP file
 * at that URL, the hierarchy at path/in/zip inside it, and the Zarr v3 node
 * group/array; "|zip:inner.zip|zip:…" opens a ZIP file inside another,
 * "zarr2:" asks for Zarr v2 and "zarr:" for either. zarrFormat is 2 or 3 when
 * the pipeline names one. A URL without "|" is storeFromUrl's.
 */
export declare function locate(url: string | URL, options?: LocateOptions): Promise<{ store: FetchStore | ZipStore | ReferenceStore; path: string; zarrFormat?: 2 | 3 }>;
