// Types of the stores over picked or dropped files (lib/files.js).
import type { AbsolutePath, GetOptions, Listable, RangeQuery, Readable } from "../index.js";

/** Names directly under prefix among absolute keys (sub-prefixes end in "/"), sorted. */
export declare function listNames(keys: Iterable<string>, prefix: string): string[];

/**
 * A read-only store over File objects (a folder picked with
 * `<input type=file webkitdirectory>` or dropped). Keys are paths below the
 * folder, starting at the hierarchy's top when the folder wraps it.
 */
export declare class FileListStore implements Readable, Listable {
  constructor(files: Iterable<File>, options?: { pathOf?: (file: File) => string });
  /** The picked folder's name ("" when the files had no common folder). */
  readonly folder: string;
  /** Where the hierarchy starts below the folder ("" or "dir/"). */
  readonly root: string;
  readonly files: Map<string, File>;
  /** "folder/root", for people. */
  readonly label: string;
  /** Reads answered with bytes, and their bytes. */
  readonly requests: number;
  readonly bytes: number;
  get(key: AbsolutePath, options?: GetOptions): Promise<Uint8Array | undefined>;
  getRange(key: AbsolutePath, range: RangeQuery, options?: GetOptions): Promise<Uint8Array | undefined>;
  list(prefix?: AbsolutePath): string[];
}

/** One Blob (a picked zip) under one key ("/<file name>" by default), for ZipStore.open. */
export declare class BlobStore implements Readable {
  constructor(blob: Blob, key?: string);
  readonly blob: Blob;
  readonly key: string;
  readonly requests: number;
  readonly bytes: number;
  get(key: AbsolutePath, options?: GetOptions): Promise<Uint8Array | undefined>;
  getRange(key: AbsolutePath, range: RangeQuery, options?: GetOptions): Promise<Uint8Array | undefined>;
}
