// Every JavaScript block of README.md and docs/*.md, run as written
// (tests/readme runs the Go ones): each block is a module in a directory
// where "zarr-wasm" is this package (node_modules/zarr-wasm → npm/), run in
// a fresh copy of the data it opens, so no block sees what another wrote.
// What a test cannot have is replaced, each entry listed below and
// required to match: hosts on the network become a local server, and names
// a block uses without defining (a signal, a URL of the reader's) get a
// definition. The data behind the URLs is written by zarr-python 2.13
// where a block reads what another program wrote (a zip, a v2 array). A
// bucket (docs/object-stores.md) is tests/s3's fake S3 server holding
// zarr-python's v2 fixture as data.zarr and a zip as data.zip, the blocks
// given credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as os from "node:os";
import * as path from "node:path";
import { repoRoot, npmDir, startServer, startS3Server, peersRequired } from "./helpers.mjs";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";

const run = promisify(execFile);
const python = "/usr/bin/python3";

/** A document's fenced blocks: {file, lang, line (of the first line of code), code}. */
function blocks(file, text) {
  const lines = text.split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("```")) continue;
    const b = { file, lang: lines[i].slice(3).trim(), line: i + 2, code: [] };
    for (i++; i < lines.length && !lines[i].startsWith("```"); i++) b.code.push(lines[i]);
    out.push({ ...b, code: `${b.code.join("\n")}\n` });
  }
  return out;
}

/** zarr-python 2.13 writes the served data: a v2 array (data.zarr) and a zip with "temperature". */
const writeServed = `
import sys, numpy as np, zarr
d = sys.argv[1]
a = zarr.open_array(d + "/data.zarr", mode="w", shape=(6,), chunks=(3,), dtype="<u2")
a[:] = np.arange(6)
zs = zarr.ZipStore(d + "/data.zarr.zip", mode="w")
g = zarr.group(store=zs)
g.create_dataset("temperature", data=np.arange(8, dtype="<f4"), chunks=(4,))
zs.close()
`;

/** Documents whose blocks other tests run, with the data they need (as tests/readme's elsewhere). */
const elsewhere = {
  "docs/icechunk.md": "its blocks read repositories the official Icechunk package writes at test time: tests/node/docs-icechunk.test.mjs runs them",
};

/** README.md, then docs/*.md (as tests/readme walks them), but those run elsewhere. */
async function docFiles() {
  const pages = (await fs.readdir(path.join(repoRoot, "docs"))).filter((f) => f.endsWith(".md")).sort();
  return ["README.md", ...pages.map((p) => `docs/${p}`)].filter((f) => !elsewhere[f]);
}

test("the JavaScript blocks of README.md and docs/*.md run", async (t) => {
  const js = [];
  for (const file of await docFiles()) {
    const text = await fs.readFile(path.join(repoRoot, file), "utf8");
    js.push(...blocks(file, text).filter((b) => b.lang === "js" || b.lang === "ts"));
  }
  assert.ok(js.length >= 15, `only ${js.length} JavaScript blocks`);

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-readme-"));
  const served = path.join(dir, "served");
  await fs.mkdir(path.join(dir, "node_modules"), { recursive: true });
  await fs.mkdir(served);
  await fs.symlink(npmDir, path.join(dir, "node_modules", "zarr-wasm"), "dir");
  try {
    await run(python, ["-c", writeServed, served]);
  } catch (e) {
    if (peersRequired) throw e;
    t.skip(`zarr-python 2.13 (${python}) is needed to write the served data: ${e.message}`);
    return;
  }
  // The local data (each block runs in a fresh copy of it, work): data.zarr, a group with a 3-d array a/b.
  const pristine = path.join(dir, "pristine");
  const work = path.join(dir, "work");
  const local = new FileSystemStore(path.join(pristine, "data.zarr"));
  await zarr.createGroup(local, {});
  await zarr.create(local, { path: "a/b", shape: [20, 5, 4], chunks: [10, 5, 4], dtype: "float32" });
  // A reference set with a "temperature" array (inline chunk).
  const chunk = Buffer.from(new Float32Array([0.5, 1.5, 2.5, 3.5]).buffer).toString("base64");
  const refsJSON = JSON.stringify({
    version: 1,
    refs: {
      ".zgroup": JSON.stringify({ zarr_format: 2 }),
      "temperature/.zarray": JSON.stringify({ zarr_format: 2, shape: [4], chunks: [4], dtype: "<f4", compressor: null, fill_value: 0, filters: null, order: "C" }),
      "temperature/0": `base64:${chunk}`,
    },
  });
  await fs.writeFile(path.join(served, "refs.json"), refsJSON);

  const server = await startServer(served, { mounts: { "/data/refs.parq": path.join(repoRoot, "tests", "refs", "data", "pq", "hyp_old"), "/data": served } });
  const base = server.url;
  const s3 = await startS3Server([
    "-bucket", "my-bucket",
    "-load", `data.zarr/=${path.join(repoRoot, "tests", "fixtures", "v2", "data", "v2.zarr")}`,
    "-load", `data.zip=${path.join(repoRoot, "zarr", "store", "testdata", "zip", "deflated.zip")}`,
  ]);
  const env = { ...process.env, AWS_ACCESS_KEY_ID: "docs-test", AWS_SECRET_ACCESS_KEY: "docs-secret" };
  const substitutions = [
    { old: 'aws_region: "eu-west-1"', new: `endpoint: "${s3.endpoint}"`, why: "the fake S3 server instead of AWS (before region: it contains it)" },
    { old: 'region: "eu-west-1"', new: `endpoint: "${s3.endpoint}"`, why: "the fake S3 server instead of AWS" },
    { old: 'endpoint: "http://127.0.0.1:9000"', new: `endpoint: "${s3.endpoint}"`, why: "the fake S3 server instead of MinIO" },
    { old: '"https://host/data/"', new: JSON.stringify(`${base}/data/`), why: "a local server instead of a host on the network" },
    { old: '"https://host/data.zarr/"', new: JSON.stringify(`${base}/data/data.zarr/`), why: "a local server (zarr-python's v2 array)" },
    { old: '"https://host/data/refs.json"', new: JSON.stringify(`${base}/data/refs.json`), why: "a local server" },
    { old: '"https://host/data/refs.parq/"', new: JSON.stringify(`${base}/data/refs.parq/`), why: "a local server (a Parquet reference set of tests/refs)" },
    { old: '"http://127.0.0.1:8080/data.zarr/|zarr2:"', new: JSON.stringify(`${base}/data/data.zarr/|zarr2:`), why: "the local server's port" },
  ];
  // Names a block uses without defining: what a reader would have.
  const definitions = [
    { name: "signal", code: "const signal = new AbortController().signal;" },
    { name: "objectOrText", code: `const objectOrText = ${JSON.stringify(refsJSON)};` },
    { name: "url", code: `const url = ${JSON.stringify(`${base}/data/refs.json`)};` },
    { name: "signedUrl", code: "const signedUrl = (u) => u;" },
  ];
  const used = new Set();
  try {
    for (const b of js) {
      const where = `${b.file}:${b.line}`;
      await t.test(where, async () => {
        let code = b.code;
        for (const s of substitutions) {
          if (code.includes(s.old)) {
            code = code.replaceAll(s.old, s.new);
            used.add(s.old);
          }
        }
        const prelude = [];
        if (!/from "zarr-wasm"/.test(code)) prelude.push('import * as zarr from "zarr-wasm";');
        for (const d of definitions) {
          if (new RegExp(`\\b${d.name}\\b`).test(code) && !new RegExp(`\\b(const|let|var|function)\\s+${d.name}\\b`).test(code)) {
            prelude.push(d.code);
            used.add(d.name);
          }
        }
        // The prelude goes on the block's first line, so line numbers match the document's.
        const file = path.join(dir, `block-${b.file.replaceAll("/", "-")}-${b.line}.mjs`);
        await fs.writeFile(file, `${prelude.join(" ")}${code}`);
        await fs.rm(work, { recursive: true, force: true });
        await fs.cp(pristine, work, { recursive: true });
        try {
          await run(process.execPath, [file], { cwd: work, env });
        } catch (e) {
          assert.fail(`${where} failed (line N of the block is line ${b.line}+N-1 of ${b.file}):\n${e.stderr || e.message}`);
        }
      });
    }
  } finally {
    await server.close();
    await s3.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
  for (const s of substitutions) assert.ok(used.has(s.old), `substitution ${s.old} (${s.why}) matches no block`);
  for (const d of definitions) assert.ok(used.has(d.name), `definition of ${d.name} is used by no block`);
});
