// What each data type reads as, stated once and checked twice: tsc checks
// every row against the declarations (TypedArrayFor, Scalar), and
// types.test.mjs runs the compiled table against the package, so the
// declared types are the ones the runtime returns.
import * as zarr from "zarr-wasm";

type Guard<T> = (x: unknown) => x is T;

interface Row<D extends zarr.DataTypeName> {
  dtype: D;
  /** create() takes this (a name, or a v2 typestr where the name is v2-only). */
  create: string;
  zarrFormat: 2 | 3;
  /** Recognises the declared type of get()'s data. */
  data: Guard<zarr.TypedArrayFor<D>>;
  /** Recognises the declared type of zarr.get() of one element. */
  scalar: Guard<zarr.Scalar<D>>;
}

// A class as a guard: only a constructor whose instances have the declared
// type is accepted.
function is<T>(ctor: abstract new (...args: any[]) => T): Guard<T> {
  return (x: unknown): x is T => x instanceof ctor;
}
const isNumber = (x: unknown): x is number => typeof x === "number";
const isBigint = (x: unknown): x is bigint => typeof x === "bigint";
const isBoolean = (x: unknown): x is boolean => typeof x === "boolean";
const isString = (x: unknown): x is string => typeof x === "string";
const isStrings = (x: unknown): x is string[] => Array.isArray(x) && x.every(isString);
const isBytesList = (x: unknown): x is Uint8Array[] => Array.isArray(x) && x.every((b) => b instanceof Uint8Array);
const isPair = (x: unknown): x is [number, number] => Array.isArray(x) && x.length === 2 && x.every(isNumber);
const isJSONList = (x: unknown): x is zarr.JSONValue[] => Array.isArray(x);
const isJSON = (x: unknown): x is zarr.JSONValue => x !== undefined;

function row<D extends zarr.DataTypeName>(r: Row<D>): Row<zarr.DataTypeName> {
  return r as unknown as Row<zarr.DataTypeName>;
}

export const rows: Array<Row<zarr.DataTypeName>> = [
  row({ dtype: "bool", create: "bool", zarrFormat: 3, data: is(Uint8Array), scalar: isBoolean }),
  row({ dtype: "int8", create: "int8", zarrFormat: 3, data: is(Int8Array), scalar: isNumber }),
  row({ dtype: "uint8", create: "uint8", zarrFormat: 3, data: is(Uint8Array), scalar: isNumber }),
  row({ dtype: "int16", create: "int16", zarrFormat: 3, data: is(Int16Array), scalar: isNumber }),
  row({ dtype: "uint16", create: "uint16", zarrFormat: 2, data: is(Uint16Array), scalar: isNumber }),
  row({ dtype: "int32", create: "int32", zarrFormat: 3, data: is(Int32Array), scalar: isNumber }),
  row({ dtype: "uint32", create: "uint32", zarrFormat: 3, data: is(Uint32Array), scalar: isNumber }),
  row({ dtype: "int64", create: "int64", zarrFormat: 3, data: is(BigInt64Array), scalar: isBigint }),
  row({ dtype: "uint64", create: "uint64", zarrFormat: 2, data: is(BigUint64Array), scalar: isBigint }),
  row({ dtype: "float16", create: "float16", zarrFormat: 3, data: is(Float32Array), scalar: isNumber }),
  row({ dtype: "float32", create: "float32", zarrFormat: 2, data: is(Float32Array), scalar: isNumber }),
  row({ dtype: "float64", create: "float64", zarrFormat: 3, data: is(Float64Array), scalar: isNumber }),
  row({ dtype: "bfloat16", create: "bfloat16", zarrFormat: 3, data: is(Float32Array), scalar: isNumber }),
  row({ dtype: "float8_e4m3fn", create: "float8_e4m3fn", zarrFormat: 3, data: is(Float32Array), scalar: isNumber }),
  row({ dtype: "int4", create: "int4", zarrFormat: 3, data: is(Int8Array), scalar: isNumber }),
  row({ dtype: "uint2", create: "uint2", zarrFormat: 3, data: is(Uint8Array), scalar: isNumber }),
  row({ dtype: "complex64", create: "complex64", zarrFormat: 3, data: is(Float32Array), scalar: isPair }),
  row({ dtype: "complex128", create: "complex128", zarrFormat: 2, data: is(Float64Array), scalar: isPair }),
  row({ dtype: "datetime64[ns]", create: "datetime64[ns]", zarrFormat: 2, data: is(BigInt64Array), scalar: isBigint }),
  row({ dtype: "timedelta64[s]", create: "timedelta64[s]", zarrFormat: 3, data: is(BigInt64Array), scalar: isBigint }),
  row({ dtype: "string", create: "string", zarrFormat: 3, data: isStrings, scalar: isString }),
  row({ dtype: "v2:U4", create: "<U4", zarrFormat: 2, data: isStrings, scalar: isString }),
  row({ dtype: "v2:S3", create: "|S3", zarrFormat: 2, data: isStrings, scalar: isString }),
  row({ dtype: "bytes", create: "bytes", zarrFormat: 3, data: isBytesList, scalar: is(Uint8Array) }),
  row({ dtype: "r16", create: "r16", zarrFormat: 3, data: isBytesList, scalar: is(Uint8Array) }),
  row({ dtype: "v2:object", create: "|O", zarrFormat: 2, data: isJSONList, scalar: isJSON }),
];
