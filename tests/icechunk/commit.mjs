// A writer for the consistency tests: commits new values of one array to
// a branch of a repository with the official package (its WASI build:
// NAPI_RS_FORCE_WASI=1), then reads them back through it. Prints JSON:
// {snapshot, sha256} (the new head, and the SHA-256 of the array's values
// as zarrita reads them through the package's store).
//
//   NAPI_RS_FORCE_WASI=1 node tests/icechunk/commit.mjs REPO_DIR BRANCH ARRAY SEED
import crypto from "node:crypto";
import * as zarr from "zarrita";
import { Repository, dirStorage, zarritaStore } from "./common.mjs";

const [dir, branch, path, seed] = process.argv.slice(2);
const repo = await Repository.open(dirStorage(dir));
const s = await repo.writableSession(branch);
const arr = await zarr.open(new zarr.Location(zarritaStore(s.store), `/${path}`), { kind: "array" });
const n = arr.shape.reduce((a, b) => a * b, 1);
const Ctor = arr.dtype === "int32" ? Int32Array : arr.dtype === "float64" ? Float64Array : null;
if (!Ctor) throw new Error(`commit.mjs writes int32 or float64 arrays, not ${arr.dtype}`);
const data = new Ctor(n).map((_, i) => (i * 31 + Number(seed)) % 1000);
const stride = arr.shape.map((_, d) => arr.shape.slice(d + 1).reduce((a, b) => a * b, 1));
await zarr.set(arr, null, { data, shape: arr.shape, stride });
const snapshot = await s.commit(`consistency commit ${seed}`);
const r = await repo.readonlySession({ branch });
const back = await zarr.get(await zarr.open(new zarr.Location(zarritaStore(r.store), `/${path}`), { kind: "array" }));
const sha256 = crypto.createHash("sha256").update(new Uint8Array(back.data.buffer, back.data.byteOffset, back.data.byteLength)).digest("hex");
process.stdout.write(JSON.stringify({ snapshot, sha256 }), () => process.exit(0));
