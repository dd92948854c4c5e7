// storeFromUrl and the file stores, as a page uses them (type-checked only).
import * as zarr from "zarr-wasm";

export async function openAddress(url: string, signal: AbortSignal): Promise<number> {
  const store = await zarr.storeFromUrl(url, { signal, headers: { "X-Test": "1" } });
  const node = await zarr.open(store);
  const counted: number | undefined = store.requests;
  const bytes: number | undefined = store.bytes;
  if (store instanceof zarr.ZipStore) void store.source;
  return (counted ?? 0) + (bytes ?? 0) + (node.kind === "array" ? 1 : 0);
}

export async function openPicked(files: File[], zip: File): Promise<string[]> {
  const folder = new zarr.FileListStore(files, { pathOf: (f) => f.name });
  const names: string[] = folder.list("/");
  const blob = new zarr.BlobStore(zip);
  const zipped = await zarr.ZipStore.open(blob, blob.key);
  await zarr.open(zipped);
  return [...names, folder.label, String(folder.requests + blob.bytes)];
}
