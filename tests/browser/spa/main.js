// Opens a v2 and a v3 array from the app's own origin, where Vite answers
// every missing metadata key (zarr.json of a v2 store, .zarray of a v3
// one) with index.html and status 200. readFixture returns what a read
// gives, for the test to compare with the writers' values.
import * as zarr from "zarr-wasm";
import wasmUrl from "zarr-wasm/zarr.wasm?url";

await zarr.init(wasmUrl);

/** A fetch that hides the content type, so only the engine's own check ("<" starts no JSON) can tell. */
async function fetchWithoutType(req) {
  const res = await fetch(req);
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/octet-stream");
  return new Response(res.body, { status: res.status, headers });
}

globalThis.readFixture = async (base, path, hideType) => {
  try {
    const store = new zarr.FetchStore(new URL(base, location.href), hideType ? { fetch: fetchWithoutType } : {});
    const arr = await zarr.open(store, { path, kind: "array" });
    const res = await arr.get();
    return { zarrFormat: arr.zarrFormat, dtype: arr.dtype, shape: res.shape, data: Array.from(res.data, Number) };
  } catch (e) {
    return { error: { code: e.code, message: e.message } };
  }
};
document.title = "ready";
