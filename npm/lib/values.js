// Turns what a caller passes to arr.set() into the descriptor the Go bridge
// reads, coercing to the element representation of the array's data type
// (the same mapping get() returns: docs/javascript.md, "What a read returns").
import { ZarrError } from "./errors.js";
import { toJSONText } from "./json.js";

const typedCtors = {
  Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array,
};

function isTyped(v) {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

function isShaped(v) {
  return v !== null && typeof v === "object" && !isTyped(v) && !Array.isArray(v) &&
    "data" in v && Array.isArray(v.shape);
}

function bad(msg) {
  return new ZarrError("INVALID_ARGUMENT", msg);
}

/**
 * @param {any} type the type info of the array (from the bridge)
 * @param {any} value scalar, TypedArray, array, or {data, shape}
 */
export function describeValue(type, value) {
  let shape = null;
  if (isShaped(value) && !(type.js === "struct" && type.fields.some((f) => f.name === "data"))) {
    shape = value.shape.map(Number);
    value = value.data;
  }
  return describe(type, value, shape);
}

// Lists from this length go to Go in bulk (one buffer + lengths).
const batchMin = 32;
const textEncoder = new TextEncoder();

function stringBatch(values, shape) {
  return {
    kind: "stringBatch",
    joined: textEncoder.encode(values.join("")),
    lens: Uint32Array.from(values, (s) => s.length),
    shape,
  };
}

function bytesBatch(values, shape) {
  let total = 0;
  for (const b of values) total += b.length;
  const joined = new Uint8Array(total);
  let pos = 0;
  for (const b of values) {
    joined.set(b, pos);
    pos += b.length;
  }
  return { kind: "bytesBatch", joined, lens: Uint32Array.from(values, (b) => b.length), shape };
}

function describe(type, value, shape) {
  switch (type.js) {
    case "string": {
      const l = listOf(value, shape, (x) => typeof x === "string", "a string");
      return l.values.length >= batchMin ? stringBatch(l.values, l.shape) : { kind: "strings", ...l };
    }
    case "bytes": {
      const l = listOf(value, shape, (x) => x instanceof Uint8Array, "a Uint8Array");
      return l.values.length >= batchMin ? bytesBatch(l.values, l.shape) : { kind: "objects", ...l };
    }
    case "object": {
      const { values, shape: s } = listOf(value, shape, () => true, "");
      if (values.length >= batchMin) {
        if (values.every((x) => typeof x === "string")) return stringBatch(values, s);
        if (values.every((x) => x instanceof Uint8Array)) return bytesBatch(values, s);
      }
      return { kind: "objects", values: values.map(objectElement), shape: s };
    }
    case "struct":
      return describeStruct(type, value, shape);
    case "unknown":
      throw new ZarrError("UNSUPPORTED", "values of this data type cannot be written from JavaScript");
  }
  const Ctor = typedCtors[type.js];
  const items = type.items ?? 1;
  let ta;
  let scalar = false;
  if (isTyped(value)) {
    ta = value instanceof Ctor ? value : convertArray(Ctor, value);
  } else if (Array.isArray(value)) {
    // Complex: plain numbers are interleaved (re, im, ...) like the
    // TypedArray get() returns; [re, im] pairs or {re, im} objects are one
    // element each.
    const flat = items !== 2 || value.every((x) => typeof x === "number" || typeof x === "bigint");
    ta = convertArray(Ctor, flat ? value : value.flatMap(complexParts));
  } else {
    ta = convertArray(Ctor, items === 2 ? complexParts(value) : [value]);
    scalar = true;
  }
  if (ta.length % items !== 0) throw bad("complex values need a real and an imaginary part each");
  return {
    kind: "typed",
    bytes: new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength),
    shape: scalar ? [] : shape,
  };
}

function complexParts(v) {
  if (typeof v === "number" || typeof v === "bigint") return [Number(v), 0];
  if (Array.isArray(v) && v.length === 2) return [Number(v[0]), Number(v[1])];
  if (v && typeof v === "object" && "re" in v) return [Number(v.re), Number(v.im ?? 0)];
  throw bad(`not a complex value: ${String(v)}`);
}

function convertArray(Ctor, src) {
  const big = Ctor === BigInt64Array || Ctor === BigUint64Array;
  const out = new Ctor(src.length);
  for (let i = 0; i < src.length; i++) {
    const x = src[i];
    if (big) {
      if (typeof x === "bigint") out[i] = x;
      else if (typeof x === "boolean") out[i] = x ? 1n : 0n;
      else {
        const n = Number(x);
        if (!Number.isInteger(n)) throw bad(`${x} is not an integer`);
        out[i] = BigInt(n);
      }
    } else if (typeof x === "bigint") {
      out[i] = Number(x);
    } else if (typeof x === "boolean") {
      out[i] = x ? 1 : 0;
    } else if (typeof x === "number") {
      out[i] = x;
    } else {
      throw bad(`${typeof x} value ${String(x)} is not a number`);
    }
  }
  return out;
}

function listOf(value, shape, ok, what) {
  let values;
  let scalar = false;
  if (Array.isArray(value)) values = value;
  else {
    values = [value];
    scalar = true;
  }
  if (what) {
    for (const v of values) {
      if (!ok(v)) throw bad(`expected ${what}, got ${v === null ? "null" : typeof v}`);
    }
  }
  return { values, shape: scalar ? [] : shape };
}

function objectElement(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || v instanceof Uint8Array) return v;
  return { __json: toJSONText(v) };
}

function describeStruct(type, value, shape) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw bad("a structured value is an object with one entry per field");
  }
  const fields = {};
  let scalar = true;
  let count;
  for (const f of type.fields) {
    if (!(f.name in value)) throw bad(`the value has no field ${JSON.stringify(f.name)}`);
    const v = value[f.name];
    const sub = f.shape.reduce((a, b) => a * b, 1);
    const arrayLike = isTyped(v) || Array.isArray(v);
    const nested = f.type.js === "struct";
    const isList = nested ? Object.values(v).some((x) => isTyped(x) || Array.isArray(x)) : arrayLike;
    if (isList) {
      scalar = false;
      const n = nested ? undefined : v.length / (f.type.items ?? 1) / sub;
      if (n !== undefined) {
        if (count !== undefined && n !== count) throw bad("structured fields have different lengths");
        count = n;
      }
    }
    const d = describe(f.type, v, null);
    fields[f.name] = d;
  }
  return { kind: "struct", fields, shape: scalar ? [] : shape };
}
