// Type declarations for zarr-wasm/node (Node only).
export * from "./index.js";
import type { AbsolutePath, RangeQuery, Readable, Writable, Listable } from "./index.js";

/**
 * A read/write store over a directory. Writes go to a temporary file in the
 * same directory and are renamed into place (atomic for readers). Symbolic
 * links below the root that resolve outside it are refused (ZarrError
 * STORE) unless allowOutsideSymlinks is set.
 */
export declare class FileSystemStore implements Readable, Writable, Listable {
  constructor(root: string | URL, options?: { allowOutsideSymlinks?: boolean });
  readonly root: string;
  /** Lets symbolic links below the root lead outside it (off by default). */
  allowOutsideSymlinks: boolean;
  /** The file of a key. */
  path(key: AbsolutePath): string;
  get(key: AbsolutePath): Promise<Uint8Array | undefined>;
  getRange(key: AbsolutePath, range: RangeQuery): Promise<Uint8Array | undefined>;
  has(key: AbsolutePath): Promise<boolean>;
  set(key: AbsolutePath, value: Uint8Array): Promise<void>;
  delete(key: AbsolutePath): Promise<boolean>;
  list(prefix?: AbsolutePath): Promise<string[]>;
}
