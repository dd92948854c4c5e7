// Runs zarrita.js's own tests against zarr-wasm (vitest, vitest.config.mjs)
// and compares every test's outcome with expected.tsv: a test that fails
// without being listed, or is listed and now passes, fails this run.
// Prints the counts docs/from-zarrita.md reports.
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "zarrita-suite-")), "results.json");
const vitest = path.join(here, "node_modules", "vitest", "vitest.mjs");
// The expected failures' traces would drown the output: vitest's own output
// is shown only when it wrote no results.
const run = spawnSync(process.execPath, [vitest, "run", "--reporter=json", `--outputFile=${out}`], {
  cwd: here,
  encoding: "utf8",
  maxBuffer: 1 << 28,
});
let results;
try {
  results = JSON.parse(await fs.readFile(out, "utf8"));
} catch (e) {
  console.error(`${run.stdout ?? ""}${run.stderr ?? ""}\nzarrita suite: vitest wrote no results (exit ${run.status}): ${e.message}`);
  process.exit(1);
} finally {
  await fs.rm(path.dirname(out), { recursive: true, force: true });
}

// Outcomes by "status\tfile\tname", counted (some names repeat).
const key = (status, file, name) => `${status}\t${file}\t${name}`;
const got = new Map();
let total = 0;
let passed = 0;
for (const f of results.testResults) {
  const file = path.relative(path.join(here, "packages", "zarrita", "__tests__"), f.name);
  if (f.assertionResults.length === 0 && f.status === "failed") {
    console.error(`zarrita suite: ${file} did not load: ${f.message}`);
    process.exit(1);
  }
  for (const t of f.assertionResults) {
    total++;
    if (t.status === "passed") passed++;
    const k = key(t.status === "failed" ? "fail" : t.status === "passed" ? "pass" : t.status, file, t.fullName);
    got.set(k, { n: (got.get(k)?.n ?? 0) + 1, message: t.failureMessages?.[0]?.split("\n")[0] });
  }
}

const listed = new Map();
const categories = new Map();
let notOurs = 0;
for (const line of (await fs.readFile(path.join(here, "expected.tsv"), "utf8")).split("\n")) {
  if (line === "" || line.startsWith("#")) continue;
  const [status, category, file, name] = line.split("\t");
  const k = key(status, file, name);
  listed.set(k, (listed.get(k) ?? 0) + 1);
  categories.set(`${status} ${category}`, (categories.get(`${status} ${category}`) ?? 0) + 1);
  if (status === "pass") notOurs++;
}

const problems = [];
for (const [k, want] of listed) {
  const n = got.get(k)?.n ?? 0;
  if (n !== want) problems.push(`listed ${want}×, happened ${n}×: ${k.replaceAll("\t", " | ")}`);
}
for (const [k, { n, message }] of got) {
  if (k.startsWith("pass\t") || listed.has(k)) continue;
  problems.push(`not listed (${n}×): ${k.replaceAll("\t", " | ")}${message ? `\n    ${message}` : ""}`);
}

console.log(`zarrita suite: ${total} tests, ${passed} pass (${passed - notOurs} on zarr-wasm's code; ${notOurs} test zarrita's own range() helper)`);
for (const [c, n] of [...categories].sort()) console.log(`  ${c}: ${n}`);
if (problems.length) {
  console.error(`zarrita suite: outcomes differ from expected.tsv:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
