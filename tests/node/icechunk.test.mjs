// IcechunkStore: repositories the official package (@earthmover/icechunk
// 2.2.2, WASI build) writes, read over FileSystemStore and over HTTP (Range
// requests on 127.0.0.1, no COOP/COEP), compared with what the official
// package reads (tests/icechunk/oracle.mjs): every branch, tag and
// snapshot, every key's bytes, every array's values, ancestry and refs;
// virtual chunks from an allowed prefix (and refused, or CONFLICT, when not
// allowed or changed); a reader keeping its snapshot while the official
// package commits, refresh seeing the new head.
import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as zarr from "../../npm/index.js";
import { FileSystemStore } from "../../npm/node.js";
import { repoRoot, startServer, peersRequired } from "./helpers.mjs";

const icDir = path.join(repoRoot, "tests", "icechunk");
const installed = fs.existsSync(path.join(icDir, "node_modules", "@earthmover", "icechunk-wasm32-wasi"));
const sha = (b) => crypto.createHash("sha256").update(b).digest("hex");
const bytesOf = (data) => new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

let fixturesDir;
async function fixtures(t) {
  if (!installed) {
    if (peersRequired) assert.fail("tests/icechunk/node_modules is missing (make npm-deps)");
    t.skip("the official Icechunk package is not installed (cd tests/icechunk && npm ci)");
    return null;
  }
  fixturesDir ??= (await import("../icechunk/fixtures.mjs")).fixtures();
  return fixturesDir;
}

const oracle = (dir, ...p) => JSON.parse(fs.readFileSync(path.join(dir, "oracle", ...p), "utf8"));

function versionOption(v) {
  return v.kind === "branch" ? { branch: v.name } : v.kind === "tag" ? { tag: v.name } : { snapshot: v.name };
}

/** Compares every version the oracle read with IcechunkStore's reading through source. */
async function compare(source, o, extra = {}, { listRefs = true } = {}) {
  const byId = new Map(o.versions.filter((v) => !v.same).map((v) => [v.snapshot, v]));
  // (the official package reads everything of these repositories: a failure on both sides would pass unnoticed)
  for (const v of byId.values()) {
    for (const [k, w] of [...Object.entries(v.keys), ...Object.entries(v.arrays)]) assert.ok(!w.error, `the official package failed on ${k}: ${w.error}`);
  }
  let arrays = 0;
  for (const entry of o.versions) {
    const name = `${entry.kind} ${entry.name}`;
    const ic = await zarr.IcechunkStore.open(source, { ...versionOption(entry), ...extra });
    assert.equal(ic.snapshotId, entry.snapshot, name);
    assert.equal(ic.specVersion, o.spec, name);
    const v = entry.same ? byId.get(entry.snapshot) : entry;
    const anc = await ic.ancestry();
    assert.deepEqual(
      anc.map((a) => ({ id: a.id, parent: a.parent ?? "", message: a.message })),
      v.ancestry,
      `${name}: ancestry`,
    );
    assert.ok(anc.every((a) => a.time instanceof Date && a.time.getFullYear() >= 2024), `${name}: times`);
    for (const [key, want] of Object.entries(v.keys)) {
      if (want.error) {
        await assert.rejects(ic.get(`/${key}`), `${name}: ${key} read, the official package failed`);
        continue;
      }
      const got = await ic.get(`/${key}`);
      assert.ok(got, `${name}: ${key} absent`);
      assert.equal(sha(got), want.sha256, `${name}: ${key}`);
    }
    for (const [p, want] of Object.entries(v.arrays)) {
      const arr = await zarr.open(ic, { path: p, kind: "array" });
      if (want.error) {
        await assert.rejects(arr.get(null), `${name}: ${p} read, the official package failed`);
        continue;
      }
      if (arr.dtype === "float16") continue; // (read as Float32Array: the Go tests compare its bits)
      const { data, shape } = await arr.get(null);
      assert.deepEqual(shape, want.shape, `${name}: ${p}`);
      assert.equal(sha(bytesOf(data)), want.sha256, `${name}: ${p} values`);
      arrays++;
    }
  }
  if (listRefs) {
    const ic = await zarr.IcechunkStore.open(source, extra);
    const refs = (list) => Object.fromEntries(list.map((r) => [r.name, r.snapshot]));
    assert.deepEqual(refs(await ic.branches()), o.branches);
    assert.deepEqual(refs(await ic.tags()), o.tags);
  }
  return arrays;
}

test("IcechunkStore reads what the official package wrote, over FileSystemStore", async (t) => {
  const dir = await fixtures(t);
  if (!dir) return;
  for (const [name, min] of [["features-v2", 100], ["features-v1", 100], ["split-v2", 6]]) {
    const n = await compare(new FileSystemStore(path.join(dir, "repos", name)), oracle(dir, `${name}.json`));
    assert.ok(n >= min, `${name}: ${n} arrays compared`);
  }
  // IcechunkStore.open came first: it started the Icechunk build
  // (zarr-icechunk.wasm) and the core build was never loaded
  const { engines } = await import("../../npm/lib/runtime.js");
  assert.equal(engines().icechunk, true);
  assert.equal(engines().core, false);
});

test("IcechunkStore reads over HTTP with Range requests (FetchStore and a URL)", async (t) => {
  const dir = await fixtures(t);
  if (!dir) return;
  const { url, stats, close } = await startServer(path.join(dir, "repos"));
  try {
    const o = oracle(dir, "features-v2.json");
    await compare(`${url}/features-v2`, o);
    // spec 1 over plain HTTP: branches are files, listing them needs a listing server
    const o1 = oracle(dir, "features-v1.json");
    await compare(new zarr.FetchStore(`${url}/features-v1`), o1, {}, { listRefs: false });
    const ic = await zarr.IcechunkStore.open(new zarr.FetchStore(`${url}/features-v1`), { branch: "dev" });
    await assert.rejects(ic.branches(), (e) => e.code === "UNSUPPORTED" && /list/.test(e.message));
    // split manifests: a read of a few chunks fetches the manifests that hold them, not all
    const before = stats.requests;
    const split = await zarr.IcechunkStore.open(`${url}/split-v2`);
    const many = await zarr.open(split, { path: "many", kind: "array" });
    const { data } = await many.get([zarr.slice(0, 3), zarr.slice(0, 3)]);
    assert.equal(data.length, 9);
    const manifests = stats.paths.slice(before).filter((p) => p.includes("/manifests/")).length;
    assert.equal(manifests, 1, "one manifest for a 3x3 window of a 50x50 grid split in 10x10 regions");
    const chunkReads = stats.log.slice(before).filter((r) => r.path.includes("/chunks/"));
    assert.ok(chunkReads.every((r) => r.range !== null), "chunk objects are read by ranges");
  } finally {
    await close();
  }
});

test("IcechunkStore reads virtual chunks from allowed prefixes only, and notices a changed file", async (t) => {
  const dir = await fixtures(t);
  if (!dir) return;
  const { serveTarget, targetPrefix } = await import("../icechunk/target-server.mjs");
  const target = await serveTarget();
  const { url, close } = await startServer(path.join(icDir, "virtual"));
  try {
    const allow = { virtualChunks: { [targetPrefix]: target.url } };
    for (const name of ["repo-v2", "repo-v1"]) {
      const n = await compare(`${url}/${name}`, oracle(dir, "virtual", `${name}.json`), allow, { listRefs: name === "repo-v2" });
      assert.ok(n >= 5, `${name}: ${n} arrays`);
      // nothing allowed: a typed error naming the location, nothing fetched
      const before = target.requests;
      const ic = await zarr.IcechunkStore.open(`${url}/${name}`);
      const arr = await zarr.open(ic, { path: "virt/plain", kind: "array" });
      await assert.rejects(arr.get(null), (e) => e.code === "STORE" && e.message.includes(`${targetPrefix}target.bin`) && /outside the prefixes/.test(e.message));
      assert.equal(target.requests, before, "no request for a chunk outside the allowed prefixes");
      // allowed as is (true): the location itself is fetched (an unknown host here)
      const asIs = await zarr.IcechunkStore.open(`${url}/${name}`, { virtualChunks: { [targetPrefix]: true }, retries: 0, timeout: 2000 });
      await assert.rejects(zarr.open(asIs, { path: "virt/plain", kind: "array" }).then((a) => a.get(null)), (e) => e.code === "STORE" && e.message.includes("zarr-wasm-test.example"));
      // the file changed
      target.state.etag = '"target-v2"';
      target.state.lastModified = "Wed, 03 Jan 2024 00:00:00 GMT";
      const changed = await zarr.IcechunkStore.open(`${url}/${name}`, allow);
      for (const p of ["virt/etag", "virt/mtime"]) {
        const a = await zarr.open(changed, { path: p, kind: "array" });
        await assert.rejects(a.get(null), (e) => e.code === "CONFLICT" && e.message.includes("changed"), p);
      }
      const plain = await zarr.open(changed, { path: "virt/plain", kind: "array" });
      assert.equal((await plain.get(null)).data.length, 64, "a chunk without a checksum still reads");
      target.state.etag = '"target-v1"';
      target.state.lastModified = "Mon, 01 Jan 2024 00:00:00 GMT";
    }
    // virt/many's 1,200 locations are compressed with a zstd dictionary
    // (compare read them above): the Icechunk build decodes them with the
    // package's libzstd, without moving to the full build
    const { buildOfHandle } = await import("../../npm/lib/runtime.js");
    const many = await zarr.open(await zarr.IcechunkStore.open(`${url}/repo-v2`, allow), { path: "virt/many", kind: "array" });
    assert.ok((await many.get(null)).data.length > 0);
    assert.equal(buildOfHandle(many._info.id), "icechunk");
  } finally {
    await close();
    await target.close();
  }
});

test("IcechunkStore reads run the read plan: the executor fetches chunk objects and virtual files, ranges of one file merged", async (t) => {
  const dir = await fixtures(t);
  if (!dir) return;
  const { readStats } = await import("../../npm/lib/read.js");
  const { serveTarget, targetPrefix } = await import("../icechunk/target-server.mjs");
  const target = await serveTarget();
  const repos = await startServer(path.join(dir, "repos"));
  const virtual = await startServer(path.join(icDir, "virtual"));
  try {
    // native and inline chunks: ranges of objects under chunks/, fetched by the executor
    const o = oracle(dir, "features-v2.json");
    const head = o.versions.find((v) => v.kind === "branch" && v.name === "main");
    const ic = await zarr.IcechunkStore.open(`${repos.url}/features-v2`);
    let through = 0;
    for (const [p, want] of Object.entries(head.arrays)) {
      const arr = await zarr.open(ic, { path: p, kind: "array" });
      if (arr.dtype === "float16" || arr.dtype === "string") continue;
      const before = { ...readStats, decoded: undefined };
      const at = repos.stats.requests;
      const { data } = await arr.get(null);
      assert.equal(sha(bytesOf(data)), want.sha256, `${p} values`);
      if (readStats.finished > before.finished) {
        through++;
        assert.equal(readStats.engineReads, before.engineReads, `${p}: not the engine's read`);
        const chunkReads = repos.stats.log.slice(at).filter((r) => r.path.includes("/chunks/"));
        assert.ok(chunkReads.every((r) => r.range !== null), `${p}: chunk objects read by ranges`);
      }
    }
    assert.ok(through >= 15, `${through} arrays read by the executor`); // (of 21: sharded arrays are the engine's)
    // virtual chunks: the chunks of virt/plain lie in one 4 KiB file, one request
    const vic = await zarr.IcechunkStore.open(`${virtual.url}/repo-v2`, { virtualChunks: { [targetPrefix]: target.url } });
    const plain = await zarr.open(vic, { path: "virt/plain", kind: "array" });
    assert.ok(plain.shape.reduce((a, b) => a * b) / plain.chunks.reduce((a, b) => a * b) > 1, "virt/plain has several chunks");
    const [finished, located, requests] = [readStats.finished, readStats.located, target.requests];
    const { data } = await plain.get(null);
    assert.equal(sha(bytesOf(data)), oracle(dir, "virtual", "repo-v2.json").versions[0].arrays["virt/plain"].sha256);
    assert.equal(readStats.finished, finished + 1, "the executor ran the read");
    assert.ok(readStats.located > located);
    assert.equal(target.requests, requests + 1, "one request for the chunks of one file");
  } finally {
    await repos.close();
    await virtual.close();
    await target.close();
  }
});

test("IcechunkStore keeps its snapshot while the official package commits; refresh sees the new head", async (t) => {
  const dir = await fixtures(t);
  if (!dir) return;
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), "zarr-wasm-ic-"));
  try {
    fs.cpSync(path.join(dir, "repos", "features-v2"), repo, { recursive: true });
    const o = oracle(dir, "features-v2.json");
    const main = o.versions.find((v) => v.kind === "branch" && v.name === "main");
    const p = "dtypes/int32";
    const ic = await zarr.IcechunkStore.open(new FileSystemStore(repo));
    const tagged = await zarr.IcechunkStore.open(new FileSystemStore(repo), { tag: "v2" });
    const arr = await zarr.open(ic, { path: p, kind: "array" });
    const read = async (a) => sha(bytesOf((await a.get(null)).data));
    assert.equal(await read(arr), main.arrays[p].sha256);
    // reads while the official package commits: all the opened snapshot
    let stop = false;
    let reads = 0;
    const reader = (async () => {
      while (!stop) {
        const a = await zarr.open(ic, { path: p, kind: "array" });
        assert.equal(await read(a), main.arrays[p].sha256, "a read during the commit");
        reads++;
      }
    })();
    const { stdout } = await promisify(execFile)(process.execPath, ["--no-warnings", path.join(icDir, "commit.mjs"), repo, "main", p, "11"], {
      env: { ...process.env, NAPI_RS_FORCE_WASI: "1" },
    });
    stop = true;
    await reader;
    assert.ok(reads > 0);
    const commit = JSON.parse(stdout);
    assert.equal(ic.snapshotId, main.snapshot);
    assert.equal(await read(arr), main.arrays[p].sha256);
    assert.equal(await ic.refresh(), ic);
    assert.equal(ic.snapshotId, commit.snapshot);
    assert.equal(await read(arr), main.arrays[p].sha256, "an array opened before refresh keeps its snapshot");
    assert.equal(await read(await zarr.open(ic, { path: p, kind: "array" })), commit.sha256, "opened after refresh: the new head, as the official package reads it");
    const anc = await ic.ancestry();
    assert.equal(anc[0].id, commit.snapshot);
    assert.equal(anc[0].parent, main.snapshot);
    assert.equal(anc[0].message, "consistency commit 11");
    assert.equal((await ic.branches()).find((b) => b.name === "main").snapshot, commit.snapshot);
    // a tag stays where it was
    await tagged.refresh();
    assert.equal(tagged.snapshotId, o.tags.v2);
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
});

test("IcechunkStore bad input: typed errors, near names", async (t) => {
  const dir = await fixtures(t);
  if (!dir) return;
  const src = new FileSystemStore(path.join(dir, "repos", "features-v2"));
  await assert.rejects(zarr.IcechunkStore.open(src, { branch: "mian" }), (e) => e instanceof zarr.ZarrError && e.code === "NOT_FOUND" && /did you mean "main"/.test(e.message));
  await assert.rejects(zarr.IcechunkStore.open(src, { tag: "v3" }), (e) => e.code === "NOT_FOUND" && /did you mean "v[12]"/.test(e.message));
  await assert.rejects(zarr.IcechunkStore.open(src, { tag: "doomed" }), (e) => e.code === "NOT_FOUND" && /deleted/.test(e.message));
  const o = oracle(dir, "features-v2.json");
  const id = o.branches.main;
  const typo = id.slice(0, 4) + (id[4] === "0" ? "1" : "0") + id.slice(5);
  await assert.rejects(zarr.IcechunkStore.open(src, { snapshot: typo }), (e) => e.code === "NOT_FOUND" && e.message.includes(`did you mean "${id}"`));
  await assert.rejects(zarr.IcechunkStore.open(src, { branch: "main", tag: "v1" }), (e) => e.code === "INVALID_ARGUMENT");
  await assert.rejects(zarr.IcechunkStore.open(src, { virtualChunks: 5 }), (e) => e.code === "INVALID_ARGUMENT");
  await assert.rejects(zarr.IcechunkStore.open(src, { virtualChunks: { "s3://b/": 5 } }), (e) => e.code === "INVALID_ARGUMENT");
  await assert.rejects(zarr.IcechunkStore.open(new FileSystemStore(os.tmpdir() + "/no-such-repo")), (e) => e.code === "NOT_FOUND" && /no Icechunk repository/.test(e.message));
  await assert.rejects(zarr.IcechunkStore.open(42), (e) => e.code === "STORE");
  const ic = await zarr.IcechunkStore.open(src);
  await assert.rejects(zarr.open(ic, { path: "dtypes/int3", kind: "array" }), (e) => e.code === "NOT_FOUND");
  assert.equal(await ic.get("/nope/zarr.json"), undefined);
});
