// Relies on the narrowed types: compiles under tsc --strict only because
// is(), open's dtype option and create's literal dtype narrow the array's
// type (negative.ts is the same code without the narrowing, and must not
// compile).
import * as zarr from "zarr-wasm";

export async function narrowed(store: zarr.Store): Promise<number> {
  const arr = await zarr.open(store, { path: "t", kind: "array" });
  let total = 0;
  if (arr.is("float32")) {
    const { data } = await arr.get();
    const f: Float32Array = data;
    const one: number = await zarr.get(arr, [0]);
    total += f.length + one;
  }
  if (arr.is("bigint")) {
    const big: BigInt64Array | BigUint64Array = (await arr.get()).data;
    total += big.length;
  }
  if (arr.is("string")) {
    const s: string[] = (await arr.get()).data;
    total += s.length;
  }
  const checked = await zarr.open(store, { path: "t", kind: "array", dtype: "int16" });
  const i16: Int16Array = (await checked.get()).data;
  const created = await zarr.create(store, { path: "c", shape: [4], dtype: "uint8" });
  const u8: Uint8Array = (await created.get()).data;
  const fromTypestr = await zarr.create(store, { path: "d", shape: [4], dtype: "<i8", zarrFormat: 2 });
  const i64: BigInt64Array = (await fromTypestr.get()).data;
  const flag: boolean = await zarr.get(await zarr.create(store, { path: "b", shape: [2], dtype: "bool" }), [1]);
  const region: zarr.Chunk<Uint8Array> = await zarr.get(created, [zarr.slice(0, 2)]);
  const g = await zarr.open(store, { kind: "group" });
  const child = await g.open("obs");
  if (child.kind === "group") await child.children();
  return total + i16.length + u8.length + i64.length + Number(flag) + region.shape[0];
}
