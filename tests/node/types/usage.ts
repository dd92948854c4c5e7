// Compiled by types.test.mjs with tsc --noEmit: the declarations cover the
// API as README.md and docs/javascript.md use it.
import * as zarr from "zarr-wasm";
import { FileSystemStore } from "zarr-wasm/node";

export async function usage(signal: AbortSignal): Promise<number> {
  const store = new zarr.FetchStore("https://host/data.zarr", { headers: { Authorization: "x" }, concurrency: 8, retries: 2 });
  const arr = await zarr.open(store, { path: "a/b", kind: "array" });
  const shape: number[] = arr.shape;
  const chunks: number[] | null = arr.chunks;
  const dtype: zarr.DataTypeName | zarr.StructDataType = arr.dtype;
  const shards: number[] | null = arr.shards;
  const dims: Array<string | null> | null = arr.dimensionNames;
  const fmt: 1 | 2 | 3 = arr.zarrFormat;
  const fill: unknown = arr.fillValue;
  const attrs: zarr.Attributes = arr.attrs;
  const { data, shape: s2, stride } = await arr.get([zarr.slice(0, 10), null, 3], { signal });
  const r2 = await arr.get("0:10, :, 3");
  await arr.set([zarr.slice(0, 10), null], 1.5);
  await arr.set(null, { data: new Float32Array(4), shape: [2, 2] });
  await arr.set(null, new Float32Array(4));
  const g = await zarr.open(new zarr.MemoryStore(), { kind: "group" });
  const kids = await g.children();
  const names: string[] = kids.map((k) => `${k.name} ${k.path} ${k.kind}`);
  const a2 = await zarr.create(new FileSystemStore("/tmp/x"), {
    path: "p",
    shape: [10, 10],
    chunks: [5, 5],
    dtype: "float32",
    fillValue: NaN,
    zarrFormat: 3,
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd" }],
    attributes: { units: "K" },
  });
  const g2: zarr.ZarrGroup = await zarr.createGroup(new zarr.MemoryStore(), { path: "g" });
  try {
    await zarr.open(new Map<string, Uint8Array>());
  } catch (e) {
    if (e instanceof zarr.ZarrError) {
      const code: zarr.ZarrErrorCode = e.code;
      void code;
    }
  }
  const refs = await zarr.ReferenceStore.fromUrl("https://host/refs.json", {
    target: "data.nc",
    urlMap: (url, defaults) => (url.startsWith("s3://private/") ? url.replace("s3://private/", "https://proxy/") : defaults(url)),
    fetch: (req) => fetch(req),
    maxGap: 1 << 20,
    signal,
  });
  const refs2 = await zarr.ReferenceStore.fromJSON({ version: 1, refs: {} }, { baseUrl: "https://host/refs.json" });
  const refs3 = await zarr.ReferenceStore.fromParquet(new URL("https://host/refs.parq/"));
  const ra = await zarr.open(refs, { path: "temperature", kind: "array" });
  const where = await refs2.lookup("/temperature/0.0");
  const loc: string = where && !where.inline ? where.fetchUrl : "inline";
  const sent: number = refs3.requests;
  const listed: string[] = await refs.list("/");
  const ic = await zarr.IcechunkStore.open("https://host/repo.icechunk", {
    branch: "main",
    virtualChunks: { "s3://bucket/data/": "https://mirror.example/data/", "https://host/files/": true },
    retries: 2,
    signal,
  });
  const snap: string = ic.snapshotId;
  const icArr = await zarr.open(ic, { path: "temperature", kind: "array" });
  const branchNames: string[] = (await ic.branches()).map((b) => b.name);
  const tagged: string = (await ic.tags())[0].snapshot;
  const history = await ic.ancestry();
  const when: Date = history[0].time;
  const parent: string | null = history[0].parent;
  const refreshed: zarr.IcechunkStore = await ic.refresh();
  const atTag = await zarr.IcechunkStore.open(new zarr.MemoryStore(), { tag: "v1" });
  const atSnapshot = await zarr.IcechunkStore.open(new URL("https://host/repo/"), { snapshot: "1CECHNKREP0F1RSTCMT0" });
  void [snap, icArr, branchNames, tagged, when, parent, refreshed, atTag, atSnapshot];
  const ts = await zarr.openSpec({ driver: "zarr2", kvstore: { driver: "memory", path: "a/" }, create: true, dtype: "uint16", schema: { domain: { shape: [10] }, chunk_layout: { chunk: { aspect_ratio: [1], elements: 5 } } } });
  const rank: number = ts.schema.rank;
  const tsSpec: zarr.TensorStoreSpec = ts.spec();
  await ts.resize([null], { expandOnly: true });
  const byUrl = await zarr.openSpec("memory://a|zarr2:", { signal });
  const mem = await zarr.memoryKvStore();
  void [rank, tsSpec, byUrl, mem];
  // The chunk cache and versioned stores.
  await zarr.setCacheBytes(64 << 20);
  const cached = await zarr.open(new zarr.FetchStore("https://host/data.zarr", { conditionalRequests: true }), { path: "t", kind: "array", cacheBytes: 1 << 20, recheck: "open" });
  const cs: zarr.CacheStats = await zarr.cacheStats(cached);
  const ss: zarr.StoreStats | null = await zarr.storeStats(new zarr.MemoryStore());
  await zarr.clearCache();
  const mstore = new zarr.MemoryStore();
  const v = mstore.get("/a", { versioned: true });
  const gen: string | null | undefined = "generation" in v ? v.generation : null;
  const w = mstore.set("/a", new Uint8Array(1), { ifMatch: gen ?? undefined, versioned: true });
  const versionedStore: zarr.Store = {
    get: async (_key, o) => (o?.versioned ? { data: new Uint8Array(4), generation: "v1" } : new Uint8Array(4)),
    set: async (_key, _value, o) => (o?.ifMatch === "v0" ? { changed: true as const } : { generation: "v2" }),
  };
  void [cs.hits, ss?.notModified, w, versionedStore];
  await zarr.init(new URL("https://cdn/zarr.wasm"));
  const pool: zarr.DecodePool = await zarr.useWorkers(4, { minBytes: 1 << 16 });
  const perWorker: number[] = pool.stats().decoded;
  const onThisThread: number = pool.stats().here + pool.stats().declined + pool.stats().reads;
  await zarr.useWorkers(0);
  void [perWorker, onThisThread, shape, chunks, shards, dims, dtype, fmt, fill, attrs, data, s2, stride, r2, names, a2, g2, ra, loc, sent, listed];
  return data instanceof Float32Array ? data.length : 0;
}
