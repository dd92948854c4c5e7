// narrowed.ts without the narrowing: every line marked "error" must fail
// to compile (types.test.mjs counts them), which shows that the declared
// types are narrow, not `any` or a union that accepts everything.
import * as zarr from "zarr-wasm";
import { FileSystemStore } from "zarr-wasm/node";

export async function notNarrowed(store: zarr.Store): Promise<void> {
  const arr = await zarr.open(store, { path: "t", kind: "array" });
  const f: Float32Array = (await arr.get()).data; // error
  const one: number = await zarr.get(arr, [0]); // error
  const checked = await zarr.open(store, { path: "t", kind: "array", dtype: "int16" });
  const f32: Float32Array = (await checked.get()).data; // error
  const created = await zarr.create(store, { path: "c", shape: [4], dtype: "uint8" });
  const i16: Int16Array = (await created.get()).data; // error
  const whole: number = await zarr.get(created, [zarr.slice(0, 2)]); // error
  const g = await zarr.open(store, { kind: "group" });
  const child = await g.open("obs");
  await child.children(); // error
  void [f, one, f32, i16, whole];
}

// Options types have no open index signature: a misspelt option of each
// fails to compile (each line below has exactly one).
export async function misspelt(store: zarr.Store, arr: zarr.ZarrArray<"int32">, g: zarr.ZarrGroup): Promise<void> {
  await zarr.open(store, { path: "a", kidn: "array" }); // error
  await zarr.open.v3(store, { pth: "a" }); // error
  await zarr.create(store, { shape: [2], dtype: "int32", compresor: null }); // error
  await zarr.create(store, { attributes: {}, overwrit: true }); // error
  await zarr.createGroup(store, { zarFormat: 3 }); // error
  await arr.get(null, { concurency: 4 }); // error
  await zarr.get(arr, null, { singal: undefined }); // error
  await arr.set(null, 1, { singal: undefined }); // error
  await zarr.set(arr, null, 1, { singal: undefined }); // error
  await arr.getChunk([0], { singal: undefined }); // error
  await arr.resize([4], { expandOnyl: true }); // error
  await g.open("a", { knd: "array" }); // error
  await g.children({ singal: undefined }); // error
  await zarr.openSpec({ driver: "zarr3", kvstor: { driver: "memory" } }); // error
  await zarr.openSpec("memory://", { singal: undefined }); // error
  await zarr.withConsolidatedMetadata(store, { metadataKy: ".zmetadata" }); // error
  new zarr.FetchStore("https://example.org/", { headrs: {} }); // error
  await zarr.storeFromUrl("https://example.org/", { retires: 2 }); // error
  await zarr.ReferenceStore.fromUrl("https://example.org/r.json", { urlmap: (u: string) => u }); // error
  await zarr.ZipStore.open(store, "/a.zip", { singal: undefined }); // error
  new zarr.FileListStore([], { pathof: (f: File) => f.name }); // error
  await zarr.useWorkers(2, { minByte: 0 }); // error
  await zarr.init(undefined, { engin: "full" }); // error
  new FileSystemStore("/tmp/data.zarr", { allowOutsideSymlink: true }); // error
}
