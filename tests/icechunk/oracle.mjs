// The oracle: what the official package, @earthmover/icechunk 2.2.2 (run
// with NAPI_RS_FORCE_WASI=1 for its WASI build), reads from a repository.
// Prints JSON: the spec version, branches, tags, and for every branch, tag
// and snapshot in their ancestries: the snapshot id, the ancestry (id,
// parent, message), every key the session's store lists with the SHA-256
// of its bytes (or the error reading it), and every array's values as
// zarrita decodes them through that store (SHA-256 of the little-endian
// element bytes, C order; bool as 0/1 bytes).
//
//   NAPI_RS_FORCE_WASI=1 node tests/icechunk/oracle.mjs REPO_DIR [--virtual PREFIX=URL_PREFIX ...]
//
// --virtual authorises virtual chunks under PREFIX and reads them over
// HTTP from URL_PREFIX instead (the package's setHttpVirtualChunkFetcher
// with fetch), checking ETag and Last-Modified as the package does.
import crypto from "node:crypto";
import * as zarr from "zarrita";
import { Repository, dirStorage, zarritaStore } from "./common.mjs";

const sha = (b) => crypto.createHash("sha256").update(b).digest("hex");

const args = process.argv.slice(2);
const dir = args.shift();
const virtual = [];
while (args.length) {
  const a = args.shift();
  if (a === "--virtual") {
    const [from, to] = args.shift().split("=");
    virtual.push({ from, to });
  } else throw new Error(`unknown argument ${a}`);
}

const storage = dirStorage(dir, { readOnly: true });
let repo;
if (virtual.length) {
  const containers = {};
  const creds = {};
  for (const { from } of virtual) {
    containers[from] = { urlPrefix: from, store: { type: "Http", field0: { opts: {}, headers: {} } } };
    creds[from] = { type: "HttpAccess" };
  }
  repo = await Repository.open(storage, { virtualChunkContainers: containers }, creds);
  // (at most 8 requests at once, each tried up to 5 times: the package
  // asks for a manifest's 1,200 chunks together, and on a loaded machine
  // some of as many connections to the local server fail)
  let inFlight = 0;
  const waiting = [];
  const slot = () => (inFlight < 8 ? (inFlight++, Promise.resolve()) : new Promise((r) => waiting.push(r)));
  const release = () => (waiting.length ? waiting.shift()() : inFlight--);
  await repo.setHttpVirtualChunkFetcher(async (_err, req) => {
    let url = req.url;
    for (const { from, to } of virtual) if (url.startsWith(from)) url = to + url.slice(from.length);
    let res;
    await slot();
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          res = await fetch(url, { headers: { Range: `bytes=${req.rangeStart}-${req.rangeEnd - 1}` } });
          break;
        } catch (e) {
          if (attempt === 4) throw e;
          await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
        }
      }
    } finally {
      release();
    }
    if (res.status !== 206) throw new Error(`HTTP ${res.status} for ${url}`);
    const lm = res.headers.get("Last-Modified");
    return {
      data: new Uint8Array(await res.arrayBuffer()),
      etag: res.headers.get("ETag") ?? undefined,
      lastModified: lm ? Math.floor(Date.parse(lm) / 1000) : undefined,
    };
  });
} else {
  repo = await Repository.open(storage);
}

const out = { spec: repo.specVersion, branches: {}, tags: {}, versions: [] };
for (const b of (await repo.listBranches()).sort()) out.branches[b] = await repo.lookupBranch(b);
for (const t of (await repo.listTags()).sort()) out.tags[t] = await repo.lookupTag(t);

function elementBytes(data) {
  if (Array.isArray(data)) throw new Error("not a numeric array");
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

async function readVersion(kind, name, opts) {
  const session = await repo.readonlySession(opts);
  const st = session.store;
  const v = { kind, name, snapshot: session.snapshotId, ancestry: [], keys: {}, arrays: {} };
  for (const s of await repo.ancestry(opts)) v.ancestry.push({ id: s.id, parent: s.parentId ?? "", message: s.message });
  const keys = (await st.list()).sort();
  const readKey = async (k) => {
    try {
      const b = await st.get(k);
      v.keys[k] = b === null ? { absent: true } : { sha256: sha(b), size: b.length };
    } catch (e) {
      v.keys[k] = { error: String(e.message ?? e).split("\n")[0] };
    }
  };
  for (const k of keys) await readKey(k);
  const zs = zarritaStore(st);
  for (const k of keys) {
    if (!k.endsWith("zarr.json") || v.keys[k].error) continue;
    const meta = JSON.parse(new TextDecoder().decode(await st.get(k)));
    if (meta.node_type !== "array") continue;
    const path = k === "zarr.json" ? "" : k.slice(0, -"/zarr.json".length);
    const rec = { shape: meta.shape, dtype: meta.data_type };
    try {
      const arr = await zarr.open(new zarr.Location(zs, path ? `/${path}` : "/"), { kind: "array" });
      const got = await zarr.get(arr);
      rec.sha256 = sha(elementBytes(got.data));
      rec.via = "zarrita";
    } catch (e) {
      // zarrita 0.7.5 reads no float16 in Node 20 and no complex: an array
      // of one chunk stored as plain little-endian bytes is its chunk
      const chunks = meta.chunk_grid?.configuration?.chunk_shape;
      const plain = meta.codecs?.length === 1 && meta.codecs[0].name === "bytes";
      const ck = meta.shape.length ? `${path ? path + "/" : ""}c/${meta.shape.map(() => 0).join("/")}` : `${path ? path + "/" : ""}c`;
      if (plain && JSON.stringify(chunks) === JSON.stringify(meta.shape) && v.keys[ck]?.sha256) {
        rec.sha256 = v.keys[ck].sha256;
        rec.via = "chunk";
      } else {
        rec.error = String(e.message ?? e).split("\n")[0];
      }
    }
    v.arrays[path] = rec;
  }
  return v;
}

const snapshots = new Set();
for (const [b, id] of Object.entries(out.branches)) {
  const v = await readVersion("branch", b, { branch: b });
  out.versions.push(v);
  for (const a of v.ancestry) snapshots.add(a.id);
  snapshots.add(id);
}
for (const [t, id] of Object.entries(out.tags)) {
  out.versions.push(await readVersion("tag", t, { tag: t }));
  snapshots.add(id);
}
// (a snapshot a branch or tag points at was read already: the same data)
const read = new Set(out.versions.map((v) => v.snapshot));
for (const id of [...snapshots].sort()) {
  if (read.has(id)) out.versions.push({ kind: "snapshot", name: id, snapshot: id, same: true });
  else out.versions.push(await readVersion("snapshot", id, { snapshotId: id }));
}

// (exit once written: the WASI build's worker threads keep the process
// alive, and a pipe is written asynchronously)
process.stdout.write(JSON.stringify(out, null, 1), () => process.exit(0));
