// A file-backed storage backend for the official Icechunk package's
// Storage.newCustom (its WASI build has no local-filesystem storage): every
// object is a file under root, its version a content hash (conditional
// writes compare it), listing walks the directory. The package calls each
// callback as (err, args); a missing object is an Error whose message
// starts with "ObjectNotFound".
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";

function etagOf(data) {
  return crypto.createHash("sha256").update(data).digest("hex").slice(0, 32);
}

function walk(dir, base, out) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, base, out);
    else out.push(path.relative(base, p).split(path.sep).join("/"));
  }
  return out;
}

/** The backend object for Storage.newCustom over the directory root. */
export function fileBackend(root, { readOnly = false } = {}) {
  const file = (p) => path.join(root, ...p.split("/"));
  const read = (p) => {
    try {
      return fs.readFileSync(file(p));
    } catch (e) {
      if (e.code === "ENOENT") throw new Error(`ObjectNotFound: ${p}`);
      throw e;
    }
  };
  const current = (p) => {
    try {
      return etagOf(fs.readFileSync(file(p)));
    } catch {
      return undefined;
    }
  };
  const write = (p, data) => {
    fs.mkdirSync(path.dirname(file(p)), { recursive: true });
    const tmp = `${file(p)}.tmp-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file(p));
  };
  return {
    canWrite: async () => !readOnly,
    getObjectRange: async (_err, { path: p, rangeStart, rangeEnd }) => {
      const data = read(p);
      const start = rangeStart ?? 0;
      const end = rangeEnd ?? data.length;
      return { data: Buffer.from(data.subarray(start, end)), version: { etag: etagOf(data) } };
    },
    putObject: async (_err, { path: p, data, previousVersion }) => {
      if (readOnly) throw new Error("read-only storage");
      const now = current(p);
      if (previousVersion !== undefined && previousVersion !== null) {
        const want = previousVersion.etag;
        if (want === undefined || want === null ? now !== undefined : want !== now) return { kind: "not_on_latest_version" };
      }
      const bytes = Buffer.from(data); // (copy: the caller may reuse its buffer)
      write(p, bytes);
      return { kind: "updated", newVersion: { etag: etagOf(bytes) } };
    },
    copyObject: async (_err, { from, to, version }) => {
      if (readOnly) throw new Error("read-only storage");
      const data = read(from);
      if (version?.etag && version.etag !== etagOf(data)) return { kind: "not_on_latest_version" };
      write(to, data);
      return { kind: "updated", newVersion: { etag: etagOf(data) } };
    },
    listObjects: async (_err, prefix) => {
      const dir = file(prefix.replace(/\/+$/, ""));
      return walk(dir, dir, []).map((id) => {
        const st = fs.statSync(path.join(dir, ...id.split("/")));
        return { id, createdAt: st.mtime, sizeBytes: st.size };
      });
    },
    deleteBatch: async (_err, { prefix, batch }) => {
      let deletedObjects = 0;
      let deletedBytes = 0;
      for (const { id, size } of batch) {
        try {
          fs.unlinkSync(file(prefix.replace(/\/*$/, "/") + id));
          deletedObjects++;
          deletedBytes += size;
        } catch {}
      }
      return { deletedObjects, deletedBytes };
    },
    getObjectLastModified: async (_err, p) => {
      try {
        return fs.statSync(file(p)).mtime;
      } catch {
        throw new Error(`ObjectNotFound: ${p}`);
      }
    },
    getObjectConditional: async (_err, { path: p, previousVersion }) => {
      const data = read(p);
      const etag = etagOf(data);
      if (previousVersion?.etag === etag) return { kind: "on_latest_version" };
      return { kind: "modified", data: Buffer.from(data), newVersion: { etag } };
    },
  };
}
