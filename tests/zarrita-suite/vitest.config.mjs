// zarrita.js's own tests (packages/zarrita/__tests__, unmodified) run
// against zarr-wasm: their relative imports of zarrita's sources land on
// the shim modules in packages/zarrita/src, which re-export zarr-wasm; the
// package imports are aliased below. See README.md here.
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = path.dirname(fileURLToPath(import.meta.url));
const npm = path.resolve(here, "../../npm");

export default defineConfig({
  resolve: {
    alias: [
      { find: /^zarrita$/, replacement: path.join(npm, "index.js") },
      { find: /^zarr-wasm$/, replacement: path.join(npm, "index.js") },
      { find: /^zarr-wasm\/node$/, replacement: path.join(npm, "node.js") },
      { find: /^@zarrita\/storage\/fs$/, replacement: path.join(here, "shims/storage-fs.js") },
      { find: /^@zarrita\/storage$/, replacement: path.join(here, "shims/storage.js") },
      { find: /^tintype$/, replacement: path.join(here, "shims/tintype.js") },
    ],
  },
  server: { fs: { allow: [path.resolve(here, "../..")] } },
  test: {
    include: ["packages/zarrita/__tests__/**/*.test.ts"],
    pool: "forks",
  },
});
