// Runs inside the browser page: reads fixture cases over HTTP with
// zarr-wasm's FetchStore and returns the results in a form that survives
// the trip to Node (TypedArrays as base64, BigInts as strings), where
// tests/node/helpers.mjs compares them with the recorded values.

function b64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function encode(d) {
  if (ArrayBuffer.isView(d)) return { typed: d.constructor.name, b64: b64(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)) };
  if (Array.isArray(d)) return { list: d.map(element) };
  return { fields: Object.fromEntries(Object.entries(d).map(([k, v]) => [k, encode(v)])) };
}

function element(v) {
  if (v instanceof Uint8Array) return { u8: b64(v) };
  if (typeof v === "bigint") return { big: v.toString() };
  if (typeof v === "number" && !Number.isFinite(v)) return { num: String(v) };
  if (Array.isArray(v)) return { arr: v.map(element) };
  if (v && typeof v === "object") return { obj: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, element(x)])) };
  return { v };
}

export function install(zarr, label, { executor, readStats }) {
  // Chunks the package's read executor decoded on the calling thread, by
  // decoder (lib/read.js; the switch sends every read to the engine).
  globalThis.directDecoded = () => ({ ...readStats.decoded });
  globalThis.setDirect = (on) => {
    executor.enabled = on;
  };
  // Stopping the pool while a read waits on a worker: the read still completes
  // (browsers send no event when a worker is terminated).
  globalThis.stopPoolMidRead = async () => {
    const store = new zarr.MemoryStore();
    const n = 1 << 20;
    const arr = await zarr.create(store, { shape: [n], chunks: [n / 16], dtype: "<f4", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
    const values = Float32Array.from({ length: n }, (_, i) => Math.sin(i / 1000));
    await arr.set(null, values);
    const pool = await zarr.useWorkers(1, { minBytes: 0 });
    const reading = arr.get(null);
    await zarr.useWorkers(0);
    const timeout = new Promise((r) => setTimeout(() => r("timeout"), 20000));
    const r = await Promise.race([reading, timeout]);
    return r === "timeout" ? "timeout" : { ok: r.data.every((x, i) => x === values[i]), decodedByWorker: pool.stats().decoded[0] };
  };
  // The decode worker pool: start it, run the cases, report what each worker decoded, stop it.
  globalThis.runCasesWithWorkers = async (cases, base) => {
    const pool = await zarr.useWorkers(2, { minBytes: 0 });
    try {
      const results = await globalThis.runCases(cases, base);
      return { results, stats: pool.stats() };
    } finally {
      await zarr.useWorkers(0);
    }
  };
  globalThis.runCases = async (cases, base) => {
    const out = [];
    for (const c of cases) {
      try {
        const url = new URL(`${c.store.split("/").map(encodeURIComponent).join("/")}/`, base);
        const arr = await zarr.open(new zarr.FetchStore(url), { path: c.path, kind: "array" });
        const r = await arr.get(c.selection);
        out.push({ name: c.name, shape: r.shape, data: encode(r.data) });
      } catch (e) {
        out.push({ name: c.name, error: { name: e.name, code: e.code, message: e.message, zarrError: e instanceof zarr.ZarrError } });
      }
    }
    return out;
  };
  // Reference sets: c.store is the reference file (or Parquet directory)
  // relative to base; c.target the default target for null urls.
  globalThis.runRefCases = async (cases, base) => {
    const stores = new Map();
    const out = [];
    for (const c of cases) {
      try {
        const id = `${c.store}|${c.target ?? ""}`;
        if (!stores.has(id)) stores.set(id, await zarr.ReferenceStore.fromUrl(new URL(c.store, base), { target: c.target }));
        const arr = await zarr.open(stores.get(id), { path: c.path, kind: "array" });
        const r = await arr.get(c.selection);
        out.push({ name: c.name, shape: r.shape, data: encode(r.data) });
      } catch (e) {
        out.push({ name: c.name, error: { name: e.name, code: e.code, message: e.message, zarrError: e instanceof zarr.ZarrError } });
      }
    }
    return out;
  };
  // One array of a fresh reference store: the requests it took.
  globalThis.refRequests = async (url, path, options = {}) => {
    const s = await zarr.ReferenceStore.fromUrl(url, options);
    const arr = await zarr.open(s, { path, kind: "array" });
    const before = s.requests;
    const r = await arr.get();
    return { requests: s.requests - before, n: r.shape.reduce((a, b) => a * b, 1) };
  };
  globalThis.probe = async (base) => {
    const res = {};
    try {
      await zarr.open(new zarr.FetchStore(base), { path: "dtypes/f4_lx" });
    } catch (e) {
      res.missing = { zarrError: e instanceof zarr.ZarrError, code: e.code, suggest: e.suggest };
    }
    const store = new zarr.MemoryStore();
    const a = await zarr.create(store, { shape: [4], chunks: [2], dtype: "float64", attributes: { where: label } });
    await a.set(null, Float64Array.of(1, 2, 3, 4));
    const g = await a.get([zarr.slice(1, 3)]);
    res.memory = [...g.data];
    const ac = new AbortController();
    ac.abort();
    try {
      await a.get(null, { signal: ac.signal });
    } catch (e) {
      res.abort = e.code;
    }
    return res;
  };
  // TensorStore specs in a page: an http kvstore by URL (FetchStore), the
  // memory kvstore, and the file kvstore refused (no file system).
  globalThis.specProbe = async (base) => {
    const res = {};
    const a = await zarr.openSpec(`${base}dtypes/i2_le/|zarr2:`);
    res.http = { values: [...(await a.get("1, 0:3")).data], kvstore: a.spec().kvstore.driver, rank: a.schema.rank };
    const m = await zarr.openSpec({ driver: "zarr2", kvstore: "memory://probe/", create: true, delete_existing: true, dtype: "uint8", schema: { domain: { shape: [3] } } });
    await m.set(null, Uint8Array.of(7, 8, 9));
    res.memory = [...(await (await zarr.openSpec("memory://probe|zarr2:")).get()).data];
    try {
      await zarr.openSpec("file:///tmp/x.zarr|zarr2:");
    } catch (e) {
      res.file = e.code;
    }
    return res;
  };
  // n reads of a window of a shard the server swaps between versions:
  // each read's values (base64 of the Int32Array) or error code.
  globalThis.versionedReads = async (base, n, window) => {
    const arr = await zarr.open(new zarr.FetchStore(base), { path: "a", kind: "array" });
    const out = [];
    for (let i = 0; i < n; i++) {
      try {
        const { data } = await arr.get(window);
        const b = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        let s = "";
        for (let j = 0; j < b.length; j += 0x8000) s += String.fromCharCode(...b.subarray(j, j + 0x8000));
        out.push({ b64: btoa(s) });
      } catch (e) {
        out.push({ code: e.code ?? String(e) });
      }
    }
    return out;
  };
  globalThis.zarrWasmLabel = label;
  document.title = `ready: ${label}`;
}
