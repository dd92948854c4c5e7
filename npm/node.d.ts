// Type declarations for zarr-wasm/node (Node only).
export * from "./index.js";
import type { AbsolutePath, RangeQuery, Readable, Writable, Listable, GetOptions, VersionedValue, WriteOptions, VersionedWrite } from "./index.js";

/**
 * A read/write store over a directory. Writes go to a temporary file in the
 * same directory and are renamed into place (atomic for readers). Symbolic
 * links below the root that resolve outside it are refused (ZarrError
 * STORE) unless allowOutsideSymlinks is set. Versioned reads give the
 * file's generation (device, inode, size, mtime — as Go's directory
 * store); conditional writes compare and rename under the key's lock file
 * (`.<name>.lock`, the same protocol as Go's directory store).
 */
export declare class FileSystemStore implements Readable, Writable, Listable {
  constructor(root: string | URL, options?: { allowOutsideSymlinks?: boolean });
  readonly root: string;
  /** Lets symbolic links below the root lead outside it (off by default). */
  allowOutsideSymlinks: boolean;
  /** The file of a key. */
  path(key: AbsolutePath): string;
  get(key: AbsolutePath, options?: GetOptions & { versioned?: false }): Promise<Uint8Array | undefined>;
  get(key: AbsolutePath, options: GetOptions & { versioned: true }): Promise<VersionedValue>;
  getRange(key: AbsolutePath, range: RangeQuery, options?: GetOptions & { versioned?: false }): Promise<Uint8Array | undefined>;
  getRange(key: AbsolutePath, range: RangeQuery, options: GetOptions & { versioned: true }): Promise<VersionedValue>;
  has(key: AbsolutePath): Promise<boolean>;
  set(key: AbsolutePath, value: Uint8Array, options?: WriteOptions): Promise<void | VersionedWrite>;
  delete(key: AbsolutePath, options?: WriteOptions): Promise<boolean | VersionedWrite>;
  list(prefix?: AbsolutePath): Promise<string[]>;
}
