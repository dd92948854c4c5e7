// The TypeScript declarations compile against a usage file (tsc --noEmit, strict).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as path from "node:path";
import { npmDir, repoRoot } from "./helpers.mjs";

test("index.d.ts and node.d.ts type-check the documented usage", async () => {
  const tsc = path.join(npmDir, "node_modules", ".bin", "tsc");
  const r = await new Promise((resolve) => {
    execFile(tsc, ["-p", path.join(repoRoot, "tests", "node", "types", "tsconfig.json")], { encoding: "utf8" }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, out: stdout + stderr }),
    );
  });
  assert.equal(r.code, 0, r.out);
});
