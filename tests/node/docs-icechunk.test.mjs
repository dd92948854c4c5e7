// docs/icechunk.md's JavaScript and command-line blocks, run as written
// (tests/readme runs its Go blocks): each JavaScript block is a module in a directory where "zarr-wasm"
// is this package, against the repositories the official Icechunk package
// writes (tests/icechunk: "weather"; the committed virtual-chunk one) on a
// local server. What a test cannot have is replaced, each entry required
// to match: hosts on the network become the local servers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs, existsSync } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as os from "node:os";
import * as path from "node:path";
import { repoRoot, npmDir, startServer, peersRequired, codeBlocks } from "./helpers.mjs";

const run = promisify(execFile);
const icDir = path.join(repoRoot, "tests", "icechunk");

test("docs/icechunk.md's JavaScript and command-line blocks run", async (t) => {
  if (!existsSync(path.join(icDir, "node_modules", "@earthmover", "icechunk-wasm32-wasi"))) {
    if (peersRequired) assert.fail("tests/icechunk/node_modules is missing (make npm-deps)");
    t.skip("the official Icechunk package is not installed");
    return;
  }
  const { fixtures } = await import("../icechunk/fixtures.mjs");
  const { serveTarget } = await import("../icechunk/target-server.mjs");
  const repos = path.join(await fixtures(), "repos");
  const text = await fs.readFile(path.join(repoRoot, "docs", "icechunk.md"), "utf8");
  const js = codeBlocks(text).filter((b) => b.lang === "js");
  assert.ok(js.length >= 5, `only ${js.length} JavaScript blocks`);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-docs-ic-"));
  await fs.mkdir(path.join(dir, "node_modules"));
  await fs.symlink(npmDir, path.join(dir, "node_modules", "zarr-wasm"), "dir");
  await fs.cp(path.join(repos, "weather"), path.join(dir, "weather.icechunk"), { recursive: true });
  const server = await startServer(repos, { mounts: { "/virtual.icechunk": path.join(icDir, "virtual", "repo-v2") } });
  const target = await serveTarget();
  const substitutions = [
    { old: '"https://data.example.com/weather.icechunk"', new: JSON.stringify(`${server.url}/weather`), why: "a local server" },
    { old: '"https://data.example.com/virtual.icechunk"', new: JSON.stringify(`${server.url}/virtual.icechunk`), why: "a local server (tests/icechunk/virtual/repo-v2)" },
    { old: '"https://data.example.com/files/"', new: JSON.stringify(target.url), why: "the virtual chunks' file on a local server" },
  ];
  // the command line: zarr-wasm is the package's bin
  await fs.mkdir(path.join(dir, "bin"));
  await fs.writeFile(path.join(dir, "bin", "zarr-wasm"), `#!/bin/sh\nexec "${process.execPath}" "${path.join(npmDir, "bin", "zarr-wasm.js")}" "$@"\n`, { mode: 0o755 });
  const sh = codeBlocks(text).filter((b) => b.lang === "sh");
  assert.ok(sh.length >= 1, "no command-line block");
  const used = new Set();
  try {
    for (const b of sh) {
      await t.test(`docs/icechunk.md:${b.line}`, async () => {
        const { stdout } = await run("bash", ["-e", "-c", b.code], { cwd: dir, env: { ...process.env, PATH: `${path.join(dir, "bin")}:${process.env.PATH}` } });
        assert.match(stdout, /temperature {2}array v3/);
        assert.match(stdout, /^\[110 110\.5 111 111\.5 112 112\.5\]$/m); // (the branch forecast's first row)
        assert.match(stdout, /^[0-9A-Z]{20} {2}\S+ {2}Repository initialized$/m);
      });
    }
    for (const b of js) {
      await t.test(`docs/icechunk.md:${b.line}`, async () => {
        let code = b.code;
        for (const s of substitutions) {
          if (code.includes(s.old)) {
            code = code.replaceAll(s.old, s.new);
            used.add(s.old);
          }
        }
        const file = path.join(dir, `block-${b.line}.mjs`);
        await fs.writeFile(file, code);
        try {
          await run(process.execPath, [file], { cwd: dir });
        } catch (e) {
          assert.fail(`docs/icechunk.md:${b.line} failed (line N of the block is line ${b.line}+N-1):\n${e.stderr || e.message}`);
        }
      });
    }
  } finally {
    await server.close();
    await target.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
  for (const s of substitutions) assert.ok(used.has(s.old), `substitution ${s.old} (${s.why}) matches no block`);
});
