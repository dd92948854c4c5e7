// @zarrita/storage → zarr-wasm's stores: FileSystemStore from zarr-wasm/node;
// ZipFileStore.fromBlob (synchronous in zarrita) as a store that opens
// zarr-wasm's ZipStore over a BlobStore on first use.
import { FileSystemStore, ZipStore, BlobStore } from "zarr-wasm/node";

export { FileSystemStore };

export class ZipFileStore {
  #zip;
  constructor(open) {
    this.#zip = open();
  }
  static fromBlob(blob) {
    return new ZipFileStore(() => ZipStore.open(new BlobStore(blob, "/data.zip"), "/data.zip"));
  }
  async get(key, options) {
    return (await this.#zip).get(key, options);
  }
  async getRange(key, range, options) {
    return (await this.#zip).getRange(key, range, options);
  }
}
