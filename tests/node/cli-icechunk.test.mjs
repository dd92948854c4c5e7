// Both commands (zarr-wasm, npm/bin; zarr, cmd/zarr) on Icechunk
// repositories the official package (@earthmover/icechunk 2.2.2) wrote:
// `info` and `cat` with --branch, --tag and --snapshot (and without: the
// branch main), `log`; local and over HTTP. The same arguments give the
// same output from both; the values and the ancestry are what the official
// package reads (tests/icechunk/oracle.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { execFile } from "node:child_process";
import { existsSync, readFileSync, promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { npmDir, repoRoot, startServer, peersRequired } from "./helpers.mjs";

const icDir = path.join(repoRoot, "tests", "icechunk");
const installed = existsSync(path.join(icDir, "node_modules", "@earthmover", "icechunk-wasm32-wasi"));
if (!installed && peersRequired) throw new Error("tests/icechunk/node_modules is missing (make npm-deps)");
const skip = installed ? false : "the official Icechunk package is not installed";

const exec = (file, args) =>
  new Promise((resolve) => execFile(file, args, { encoding: "utf8", maxBuffer: 1 << 26 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr })));

let dir, goBin, server, repos;
before(async () => {
  if (skip) return;
  const { fixtures } = await import("../icechunk/fixtures.mjs");
  dir = await fixtures();
  repos = path.join(dir, "repos");
  goBin = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "zarr-cli-ic-")), "zarr");
  const built = await exec("go", ["build", "-o", goBin, path.join(repoRoot, "cmd", "zarr")]);
  assert.equal(built.code, 0, built.stderr);
  server = await startServer(repos);
});
after(async () => {
  await server?.close();
  if (goBin) await fs.rm(path.dirname(goBin), { recursive: true, force: true });
});

/** Runs both commands; asserts the same output; returns the npm one's. */
async function both(...args) {
  const js = await exec(process.execPath, [path.join(npmDir, "bin", "zarr-wasm.js"), ...args]);
  const go = await exec(goBin, args);
  assert.equal(go.stdout, js.stdout, `stdout of ${args.join(" ")}`);
  assert.equal(go.code, js.code, `exit status of ${args.join(" ")}`);
  assert.equal(go.stderr.replaceAll("zarr-wasm", "zarr"), js.stderr.replaceAll("zarr-wasm", "zarr"), `stderr of ${args.join(" ")}`);
  return js;
}

/** The SHA-256 of float32 values printed by cat. */
function catSha(stdout) {
  const nums = stdout.split("\n").slice(1).join(" ").match(/-?[\d.]+(e[+-]\d+)?/g).map(Number);
  return crypto.createHash("sha256").update(new Uint8Array(new Float32Array(nums).buffer)).digest("hex");
}

test("info, cat and log of an Icechunk repository, at every version, local and over HTTP", { skip }, async () => {
  const o = JSON.parse(readFileSync(path.join(dir, "oracle", "weather.json"), "utf8"));
  const byId = new Map(o.versions.filter((v) => !v.same).map((v) => [v.snapshot, v]));
  for (const base of [path.join(repos, "weather"), `${server.url}/weather`]) {
    const info = await both("info", base);
    assert.equal(info.code, 0, info.stderr);
    assert.match(info.stdout, /temperature {2}array v3 {2}shape \(4, 6\) {2}dtype float32/);
    for (const v of o.versions) {
      const flag = v.kind === "branch" ? ["--branch", v.name] : v.kind === "tag" ? [`--tag=${v.name}`] : ["--snapshot", v.name];
      const want = (v.same ? byId.get(v.snapshot) : v) ?? v;
      const cat = await both("cat", `${base}/weather/temperature`, ...flag);
      if (!want.arrays?.["weather/temperature"]) {
        assert.equal(cat.code, 1); // (the first snapshot holds no node)
        assert.match(cat.stderr, /NOT_FOUND/);
        continue;
      }
      assert.equal(cat.code, 0, cat.stderr);
      assert.equal(catSha(cat.stdout), want.arrays["weather/temperature"].sha256, `${v.kind} ${v.name}: values`);
      const log = await both("log", base, ...flag);
      const lines = log.stdout.trimEnd().split("\n").map((l) => /^([0-9A-Z]{20}) {2}(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) {2}(.*)$/.exec(l));
      assert.ok(lines.every(Boolean), log.stdout);
      assert.deepEqual(lines.map((m) => [m[1], m[3]]), want.ancestry.map((a) => [a.id, a.message]), `${v.kind} ${v.name}: log`);
    }
    // the main branch without a flag; a node's path as info's argument
    const plain = await both("cat", `${base}/weather/temperature`, "1, 0:3");
    assert.match(plain.stdout, /^shape \(3,\) {2}dtype float32\n\[113 113\.5 114\]\n$/);
    // mistyped names: the near one
    const typo = await both("cat", `${base}/weather/temprature`);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /did you mean "weather\/temperature"/);
    const branch = await both("log", base, "--branch", "forcast");
    assert.equal(branch.code, 1);
    assert.match(branch.stderr, /NOT_FOUND: .*no branch "forcast" in the repository \(did you mean "forecast"\?\)/);
  }
  // a spec-1 repository, a node inside it
  const v1 = await both("info", path.join(repos, "features-v1"), "nested", "--branch=dev");
  assert.match(v1.stdout, /^nested\/ {2}group v3 {2}attrs \{"level":1\}\n└── deeper\//);
  // usage errors
  assert.equal((await both("log", path.join(repos, "weather"), "--tag")).code, 2);
});
