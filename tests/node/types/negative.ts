// narrowed.ts without the narrowing: every line marked "error" must fail
// to compile (types.test.mjs counts them), which shows that the declared
// types are narrow, not `any` or a union that accepts everything.
import * as zarr from "zarr-wasm";

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
