// The Icechunk test data every suite reads, made once and cached: the
// repositories gen.mjs writes with the official package, and the oracle's
// JSON (oracle.mjs) for each of them, for icechunk's own test
// repositories (upstream/) and for the committed virtual-chunk
// repositories (virtual/, their target served over HTTP on 127.0.0.1
// while the official package reads them). The cache is a directory under
// the system's temporary directory named by a hash of the scripts, the
// lockfile and the committed repositories, so a change to any of them
// makes a new one. Prints the directory.
//
//   node tests/icechunk/fixtures.mjs    (the official package runs with NAPI_RS_FORCE_WASI=1)
//
// Layout: <dir>/repos/<name> (features-v2, features-v1, split-v2, weather),
// <dir>/oracle/<name>.json, <dir>/oracle/upstream/<name>.json,
// <dir>/oracle/virtual/<name>.json.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { serveTarget, targetPrefix } from "./target-server.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const env = { ...process.env, NAPI_RS_FORCE_WASI: "1" };
const nodeArgs = ["--no-warnings"];

export const generated = ["features-v2", "features-v1", "split-v2", "weather"];

function listFiles(dir, base = dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) listFiles(p, base, out);
    else out.push(path.relative(base, p));
  }
  return out.sort();
}

function cacheKey() {
  const h = crypto.createHash("sha256");
  for (const f of ["gen.mjs", "oracle.mjs", "common.mjs", "fsbackend.mjs", "fixtures.mjs", "target-server.mjs", "package-lock.json"]) {
    h.update(f).update(fs.readFileSync(path.join(here, f)));
  }
  for (const d of ["upstream", "virtual"]) {
    for (const f of listFiles(path.join(here, d))) h.update(f).update(String(fs.statSync(path.join(here, d, f)).size));
  }
  return h.digest("hex").slice(0, 16);
}

/**
 * Runs the oracle on a repository. The WASI build cannot open two of
 * icechunk's own repositories (test-repo-v1: "error in config
 * deserialization", its config names virtual chunk stores the build lacks;
 * test-repo-v2-migrated: "error during metadata deserialization"); the
 * native build reads them, and does so here when a C compiler can build
 * virtual/shim.c (Debian 12's glibc lacks two names it links against).
 */
async function oracle(repoDir, outFile, extra, shim) {
  const args = [...nodeArgs, path.join(here, "oracle.mjs"), repoDir, ...extra];
  let stdout;
  try {
    ({ stdout } = await run(process.execPath, args, { env, maxBuffer: 1 << 30 }));
  } catch (e) {
    const so = await shim();
    if (!so) {
      // no C compiler: this repository has no oracle here (the tests say so)
      fs.mkdirSync(path.dirname(outFile), { recursive: true });
      fs.writeFileSync(outFile, JSON.stringify({ unavailable: `the WASI build cannot open it (${String(e.stderr ?? e.message).match(/Error: .*/)?.[0]}) and no C compiler builds virtual/shim.c for the native build` }));
      return;
    }
    const native = { ...process.env, LD_PRELOAD: so };
    delete native.NAPI_RS_FORCE_WASI;
    ({ stdout } = await run(process.execPath, args, { env: native, maxBuffer: 1 << 30 }));
    const o = JSON.parse(stdout);
    o.reader = "native";
    o.wasiError = String(e.stderr ?? e.message).match(/Error: .*/)?.[0] ?? String(e.message);
    stdout = JSON.stringify(o);
  }
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, stdout);
}

/** Builds virtual/shim.c into dir once; null when no compiler can. */
function shimBuilder(dir) {
  let built;
  return () =>
    (built ??= (async () => {
      const so = path.join(dir, "shim.so");
      for (const cc of ["cc", "gcc", "clang"]) {
        try {
          await run(cc, ["-shared", "-fPIC", "-O2", "-o", so, path.join(here, "virtual", "shim.c")]);
          return so;
        } catch {}
      }
      return null;
    })());
}

/** Runs jobs (functions returning promises) two at a time. */
async function pool(jobs, n = 2) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: n }, worker));
}

async function build(dir) {
  const repos = path.join(dir, "repos");
  await run(process.execPath, [...nodeArgs, path.join(here, "gen.mjs"), repos], { env, maxBuffer: 1 << 26 });
  const server = await serveTarget();
  const shim = shimBuilder(dir);
  try {
    const jobs = generated.map((name) => () => oracle(path.join(repos, name), path.join(dir, "oracle", `${name}.json`), [], shim));
    for (const name of fs.readdirSync(path.join(here, "upstream")).filter((n) => n !== "LICENSE" && n !== "README.md")) {
      jobs.push(() => oracle(path.join(here, "upstream", name), path.join(dir, "oracle", "upstream", `${name}.json`), [], shim));
    }
    for (const name of ["repo-v2", "repo-v1"]) {
      const map = ["--virtual", `${targetPrefix}=${server.url}`];
      jobs.push(() => oracle(path.join(here, "virtual", name), path.join(dir, "oracle", "virtual", `${name}.json`), map, shim));
    }
    await pool(jobs);
  } finally {
    await server.close();
  }
}

/** The cache directory, made if need be. */
export async function fixtures() {
  const dir = path.join(os.tmpdir(), `zarr-wasm-icechunk-${cacheKey()}`);
  if (fs.existsSync(path.join(dir, "done"))) return dir;
  const tmp = `${dir}.tmp-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
  fs.mkdirSync(tmp, { recursive: true });
  try {
    await build(tmp);
    fs.writeFileSync(path.join(tmp, "done"), "");
    try {
      fs.renameSync(tmp, dir);
    } catch (e) {
      // another process made it meanwhile
      if (!fs.existsSync(path.join(dir, "done"))) throw e;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write((await fixtures()) + "\n");
}
