// The command-line blocks of docs/object-stores.md, run with the package's
// zarr-wasm command (tests/node/readme.test.mjs runs the JavaScript blocks,
// tests/readme the Go ones). The bucket on the network becomes tests/s3's
// fake S3 server, holding zarr-python's v2 fixture as data.zarr; each
// replacement is listed below and must match.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as path from "node:path";
import { repoRoot, npmDir, codeBlocks, startS3Server } from "./helpers.mjs";

const run = promisify(execFile);

test("docs/object-stores.md's command lines run", async (t) => {
  const doc = "docs/object-stores.md";
  const blocks = codeBlocks(await fs.readFile(path.join(repoRoot, doc), "utf8")).filter((b) => b.lang === "sh");
  const s3 = await startS3Server(["-bucket", "my-bucket", "-load", `data.zarr/=${path.join(repoRoot, "tests", "fixtures", "v2", "data", "v2.zarr")}`]);
  try {
    const subs = [["AWS_REGION=eu-west-1 zarr-wasm", `AWS_ENDPOINT_URL=${s3.endpoint} zarr-wasm`, "the fake S3 server instead of AWS"]];
    const used = new Set();
    const env = { ...process.env, AWS_ACCESS_KEY_ID: "docs-test", AWS_SECRET_ACCESS_KEY: "docs-secret" };
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
      for (const line of code.trim().split("\n")) {
        const words = line.split(/\s+/);
        const i = words.indexOf("zarr-wasm");
        assert.ok(i >= 0, `${where}: not a zarr-wasm command: ${line}`);
        const vars = Object.fromEntries(words.slice(0, i).map((w) => w.split("=")));
        await t.test(where, async () => {
          const { stdout } = await run(process.execPath, [path.join(npmDir, "bin", "zarr-wasm.js"), ...words.slice(i + 1)], { env: { ...env, ...vars } }).catch((e) =>
            assert.fail(`${where}: ${e.stderr || e.message}`),
          );
          assert.match(stdout, /dtypes/, stdout);
          assert.ok(stdout.split("\n").length > 5, stdout);
        });
        ran++;
      }
    }
    assert.ok(ran >= 1, "no command line ran");
    for (const [old, , why] of subs) assert.ok(used.has(old), `the replacement ${JSON.stringify(old)} (${why}) matches no block`);
  } finally {
    await s3.stop();
  }
});
