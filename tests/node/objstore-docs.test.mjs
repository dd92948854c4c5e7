// Every code block of docs/object-stores.md, run as written: JavaScript
// blocks as modules (where "zarr-wasm" is this package), the command-line
// block with the package's zarr-wasm command (tests/readme runs the Go
// block). A bucket on the network becomes tests/s3's fake S3 server,
// holding zarr-python's v2 fixture as data.zarr and tests/zip/gen.py's zip
// as data.zip; each replacement is listed below and must match.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import { spawn, execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import * as os from "node:os";
import * as path from "node:path";
import { repoRoot, npmDir, codeBlocks } from "./helpers.mjs";

const run = promisify(execFile);

test("docs/object-stores.md's blocks run", async (t) => {
  const doc = "docs/object-stores.md";
  const blocks = codeBlocks(await fs.readFile(path.join(repoRoot, doc), "utf8"));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "zarr-wasm-docs-"));
  const bin = path.join(dir, "s3serve");
  execFileSync("go", ["build", "-o", bin, "./tests/s3/serve"], { cwd: repoRoot, stdio: "inherit" });
  const server = spawn(
    bin,
    ["-bucket", "my-bucket", "-load", `data.zarr/=${path.join(repoRoot, "tests", "fixtures", "v2", "data", "v2.zarr")}`, "-load", `data.zip=${path.join(repoRoot, "zarr", "store", "testdata", "zip", "deflated.zip")}`],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  try {
    const { endpoint } = await new Promise((resolve, reject) => {
      let out = "";
      server.stdout.on("data", (d) => {
        out += d;
        if (out.includes("\n")) resolve(JSON.parse(out.slice(0, out.indexOf("\n"))));
      });
      server.on("exit", (c) => reject(new Error(`the S3 server exited (${c})`)));
    });
    const subs = [
      ['aws_region: "eu-west-1"', `endpoint: "${endpoint}"`, "the fake S3 server instead of AWS"],
      ['region: "eu-west-1"', `endpoint: "${endpoint}"`, "the fake S3 server instead of AWS"],
      ['endpoint: "http://127.0.0.1:9000"', `endpoint: "${endpoint}"`, "the fake S3 server instead of MinIO"],
      ["AWS_REGION=eu-west-1 zarr-wasm", `AWS_ENDPOINT_URL=${endpoint} zarr-wasm`, "the fake S3 server instead of AWS"],
    ];
    const used = new Set();
    const env = { ...process.env, AWS_ACCESS_KEY_ID: "docs-test", AWS_SECRET_ACCESS_KEY: "docs-secret" };
    await fs.mkdir(path.join(dir, "node_modules"), { recursive: true });
    await fs.symlink(npmDir, path.join(dir, "node_modules", "zarr-wasm"), "dir");
    let ran = 0;
    for (const b of blocks) {
      let code = b.code;
      for (const [old, now] of subs) {
        if (code.includes(old)) {
          code = code.replaceAll(old, now);
          used.add(old);
        }
      }
      const where = `${doc}:${b.line}`;
      if (b.lang === "js") {
        const file = path.join(dir, `block-${b.line}.mjs`);
        await fs.writeFile(file, code);
        await t.test(where, async () => {
          await run(process.execPath, [file], { cwd: dir, env }).catch((e) => assert.fail(`${where}: ${e.stderr || e.message}`));
        });
        ran++;
      } else if (b.lang === "sh") {
        for (const line of code.trim().split("\n")) {
          const words = line.split(/\s+/);
          const i = words.indexOf("zarr-wasm");
          assert.ok(i >= 0, `${where}: not a zarr-wasm command: ${line}`);
          const vars = Object.fromEntries(words.slice(0, i).map((w) => w.split("=")));
          await t.test(where, async () => {
            const { stdout } = await run(process.execPath, [path.join(npmDir, "bin", "zarr-wasm.js"), ...words.slice(i + 1)], { env: { ...env, ...vars } }).catch((e) => assert.fail(`${where}: ${e.stderr || e.message}`));
            assert.ok(stdout.split("\n").length > 5, stdout);
          });
          ran++;
        }
      } else if (b.lang !== "go") {
        assert.fail(`${where}: a ${b.lang} block that is not run`);
      }
    }
    assert.ok(ran >= 8, `only ${ran} blocks ran`);
    for (const [old, , why] of subs) assert.ok(used.has(old), `the replacement ${JSON.stringify(old)} (${why}) matches no block`);
  } finally {
    server.stdin.end();
    await fs.rm(dir, { recursive: true, force: true });
  }
});
