// TensorStore specs through the npm package: the cases of
// tests/tsspec/cases.json (which the Go suite runs too), a store object as
// the kvstore, an http kvstore served locally, and the typed errors.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zarr from "../../npm/index.js";
import { repoRoot, startServer } from "./helpers.mjs";
import { zarrita } from "../../npm/dev/deps.mjs";

const file = JSON.parse(await fs.readFile(path.join(repoRoot, "tests", "tsspec", "cases.json"), "utf8"));
let run = 0;

function flat(v, out = []) {
  if (Array.isArray(v)) for (const x of v) flat(x, out);
  else out.push(v);
  return out;
}

function shapeOf(v) {
  const s = [];
  while (Array.isArray(v)) {
    s.push(v.length);
    v = v[0];
  }
  return s;
}

/** JSON-normalises a value (BigInt as number) for member-by-member comparison. */
function norm(v) {
  return JSON.parse(JSON.stringify(v ?? null, (_k, x) => (typeof x === "bigint" ? Number(x) : x)));
}

async function listFiles(dir, prefix = "") {
  const out = [];
  for (const e of await fs.readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(dir, rel)));
    else out.push(rel);
  }
  return out.sort();
}

function bytesOf(content) {
  if (content && typeof content === "object" && typeof content.hex === "string") return Buffer.from(content.hex, "hex");
  return Buffer.from(JSON.stringify(content));
}

async function runCase(c) {
  const dir = (await fs.mkdtemp(path.join(os.tmpdir(), "tsspec-"))).replaceAll("\\", "/");
  const id = `node-${process.pid}-${Date.now()}-${run++}`;
  const subst = (v) => JSON.parse(JSON.stringify(v).replaceAll("$DIR", dir).replaceAll("$ID", id));
  try {
    for (const [name, content] of Object.entries(c.files ?? {})) {
      await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await fs.writeFile(path.join(dir, name), bytesOf(content));
    }
    let arr = null;
    for (const [i, raw] of c.steps.entries()) {
      const st = subst(raw);
      const where = `step ${i} (${st.op})`;
      const expect = st.expect && !Array.isArray(st.expect) && typeof st.expect === "object" ? st.expect : null;
      let err = null;
      try {
        switch (st.op) {
          case "open": {
            const a = await zarr.openSpec(st.spec);
            arr = a;
            if (expect && !expect.error) checkOpened(where, a, expect);
            break;
          }
          case "read": {
            const res = await arr.get(st.selection);
            if (!expect) {
              assert.deepEqual(res.shape, shapeOf(st.expect), `${where}: shape`);
              const got = Array.from(res.data, Number);
              assert.deepEqual(got, flat(st.expect).map(Number), `${where}: values`);
            }
            break;
          }
          case "write": {
            const v = st.value;
            await arr.set(st.selection, Array.isArray(v) ? { data: flat(v), shape: shapeOf(v) } : v);
            break;
          }
          case "resize":
            await arr.resize(st.shape.map((n) => (n < 0 ? null : n)), st.options ?? {});
            if (expect?.shape) assert.deepEqual(arr.shape, expect.shape, `${where}: shape`);
            break;
          case "files": {
            const names = await listFiles(dir);
            if (st.exact) assert.deepEqual(names, Object.keys(st.expect).sort(), `${where}: files`);
            for (const [name, want] of Object.entries(st.expect)) {
              const data = await fs.readFile(path.join(dir, name));
              if (want === null) continue;
              if (typeof want.hex === "string") assert.equal(data.toString("hex"), want.hex, `${where}: ${name}`);
              else assert.deepEqual(JSON.parse(data.toString("utf8")), want, `${where}: ${name}`);
            }
            break;
          }
          default:
            throw new Error(`${where}: unknown op`);
        }
      } catch (e) {
        if (!(e instanceof zarr.ZarrError)) throw e;
        err = e;
      }
      if (expect?.error) {
        assert.ok(err, `${where}: no error, want ${expect.error}`);
        assert.equal(err.code, expect.error, `${where}: ${err.message}`);
        assert.ok(err.message.includes(expect.message), `${where}: ${JSON.stringify(err.message)} does not contain ${JSON.stringify(expect.message)}`);
      } else if (err) {
        throw err;
      }
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function checkOpened(where, a, expect) {
  const schema = norm(a.schema);
  const spec = norm(a.spec());
  for (const [k, want] of Object.entries(expect)) {
    switch (k) {
      case "schema":
        assert.deepEqual(schema, want, `${where}: schema`);
        break;
      case "chunk_layout":
      case "codec":
      case "domain":
      case "dtype":
      case "fill_value":
      case "rank":
      case "dimension_units":
        assert.deepEqual(schema[k] ?? null, want, `${where}: schema.${k}`);
        break;
      case "shape":
        assert.deepEqual(a.shape, want, `${where}: shape`);
        break;
      case "dimensionNames":
        assert.deepEqual(a.dimensionNames, want, `${where}: dimensionNames`);
        break;
      case "spec":
        for (const [m, w] of Object.entries(want)) assert.deepEqual(spec[m] ?? null, w, `${where}: spec.${m}`);
        break;
      default:
        throw new Error(`${where}: unknown expectation ${k}`);
    }
  }
}

describe("TensorStore spec cases (tests/tsspec/cases.json)", () => {
  assert.ok(file.cases.length >= 30);
  for (const c of file.cases) test(c.name, () => runCase(c));
});

describe("openSpec in JS", () => {
  test("a store object as the kvstore, with the spec's path inside it", async () => {
    const store = new zarr.MemoryStore();
    const a = await zarr.openSpec({ driver: "zarr2", kvstore: store, path: "x/y", create: true, dtype: "int16", schema: { domain: { shape: [4] } } });
    await a.set(null, [1, 2, 3, 4]);
    const zarray = JSON.parse(new TextDecoder().decode(await store.get("/x/y/.zarray")));
    assert.equal(zarray.dtype, "<i2");
    assert.deepEqual(zarray.compressor, { id: "blosc", cname: "lz4", clevel: 5, shuffle: -1, blocksize: 0 });
    assert.equal(await store.get("/x/.zgroup"), undefined, "no parent group is written, as TensorStore");
    const again = await zarr.openSpec({ driver: "zarr", kvstore: store, path: "x/y" });
    assert.deepEqual(Array.from((await again.get()).data), [1, 2, 3, 4]);
    assert.equal(again.spec().kvstore, undefined, "a store object has no spec form");
    // The same array through the ordinary API.
    const plain = await zarr.open(store, { path: "x/y", kind: "array" });
    assert.deepEqual(norm(plain.schema).domain, { inclusive_min: [0], exclusive_max: [[4]] });
  });

  test("an http kvstore by URL reads through FetchStore, only the chunks asked for", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tsspec-http-"));
    try {
      const w = await zarr.openSpec({ driver: "zarr", kvstore: `file://${dir}/data.zarr/`, create: true, dtype: "uint8", metadata: { compressor: null }, schema: { domain: { shape: [6] }, chunk_layout: { chunk: { shape: [4] } } } });
      await w.set(null, [1, 2, 3, 4, 5, 6]);
      const srv = await startServer(dir);
      try {
        const a = await zarr.openSpec(`${srv.url}/data.zarr/|zarr2:`);
        srv.reset();
        assert.deepEqual(Array.from((await a.get("4:6")).data), [5, 6]);
        assert.ok(srv.stats.paths.some((p) => p.endsWith("/data.zarr/1")), `chunk 1 fetched: ${srv.stats.paths}`);
        assert.ok(!srv.stats.paths.some((p) => p.endsWith("/data.zarr/0")), "chunk 0 not fetched");
        assert.deepEqual(norm(a.spec().kvstore), { driver: "http", base_url: srv.url, path: "/data.zarr/" });
        await assert.rejects(a.set("0", 9), (e) => e instanceof zarr.ZarrError && e.code === "READ_ONLY");
      } finally {
        await srv.close();
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test("zarrita.js reads zarr3 arrays created by spec (transpose, sharding)", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tsspec-z3-"));
    try {
      const specs = {
        // A transpose codec from inner_order; TensorStore's default bytes codec.
        t: { driver: "zarr3", kvstore: `file://${dir}/t.zarr/`, create: true, dtype: "int32", schema: { domain: { shape: [5, 7] }, chunk_layout: { inner_order: [1, 0], chunk: { shape: [2, 3] } }, fill_value: -1 } },
        // Sharding given in the metadata, a transpose inside it. (zarrita
        // reads no transpose before sharding: it divides the shard shape by
        // the inner chunk shape without the transpose.)
        s: { driver: "zarr3", kvstore: `file://${dir}/s.zarr/`, create: true, metadata: { data_type: "uint16", shape: [6, 8], chunk_grid: { name: "regular", configuration: { chunk_shape: [6, 4] } },
          codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [2, 2], codecs: [{ name: "transpose", configuration: { order: [1, 0] } }, { name: "bytes", configuration: { endian: "little" } }], index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }] } }] } },
      };
      for (const [name, spec] of Object.entries(specs)) {
        const a = await zarr.openSpec(spec);
        const n = a.shape[0] * a.shape[1];
        const values = Array.from({ length: n - 3 }, (_, i) => (i * 7) % 1000);
        await a.set(`0:${a.shape[0] - 1}`, { data: values.slice(0, (a.shape[0] - 1) * a.shape[1]), shape: [a.shape[0] - 1, a.shape[1]] });
        const ours = Array.from((await a.get()).data, Number);
        const root = path.join(dir, `${name}.zarr`);
        const read = (key) => fs.readFile(path.join(root, key)).then((b) => new Uint8Array(b), () => undefined);
        const files = {
          get: read,
          async getRange(key, r) {
            const b = await read(key);
            if (!b) return undefined;
            return "suffixLength" in r ? b.subarray(b.length - r.suffixLength) : b.subarray(r.offset, r.offset + r.length);
          },
        };
        const zarr3 = await zarrita.open(zarrita.root(files), { kind: "array" });
        // zarrita may answer in another memory order: follow its strides.
        const z = await zarrita.get(zarr3, null);
        const theirs = [];
        for (let i = 0; i < z.shape[0]; i++) for (let j = 0; j < z.shape[1]; j++) theirs.push(Number(z.data[i * z.stride[0] + j * z.stride[1]]));
        assert.deepEqual(theirs, ours, name);
        assert.equal(ours[n - 1], name === "t" ? -1 : 0, "the last row is the fill value");
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test("the memory kvstore is one store per engine", async () => {
    const id = `mem-${process.pid}-${Date.now()}`;
    await zarr.openSpec(`memory://${id}|zarr2:`).then(
      () => assert.fail("nothing there yet"),
      (e) => assert.equal(e.code, "NOT_FOUND"),
    );
    const a = await zarr.openSpec({ driver: "zarr", kvstore: { driver: "memory", path: id }, create: true, dtype: "float32", schema: { domain: { shape: [2] } } });
    await a.set(null, [0.5, 1.5]);
    const mem = await zarr.memoryKvStore();
    const zarray = JSON.parse(new TextDecoder().decode(await mem.get(`/${id}/.zarray`)));
    assert.equal(zarray.dtype, "<f4");
    assert.deepEqual(Array.from((await (await zarr.openSpec(`memory://${id}|zarr2:`)).get()).data), [0.5, 1.5]);
  });

  test("bad specs are typed errors", async () => {
    await assert.rejects(zarr.openSpec(42), (e) => e.code === "INVALID_METADATA");
    await assert.rejects(zarr.openSpec({ driver: "zarr", kvstore: { driver: "azure", path: "x" } }), (e) => e.code === "UNSUPPORTED" && /azure/.test(e.message));
    await assert.rejects(zarr.openSpec({ driver: "zarr", kvstore: { driver: "s3", path: "x" } }), (e) => e.code === "INVALID_METADATA" && /bucket/.test(e.message));
    const ac = new AbortController();
    ac.abort(new Error("stop"));
    await assert.rejects(zarr.openSpec("memory://|zarr2:x", { signal: ac.signal }), (e) => e.code === "ABORTED");
  });
});
