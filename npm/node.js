// zarr-wasm/node: a store over the local file system (Node only), plus
// everything the main entry exports.
import { promises as fs } from "node:fs";
import * as nodePath from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

export * from "./index.js";
import { ZarrError } from "./lib/errors.js";
import { writeAllowed } from "./lib/stores.js";
import { checkOptions } from "./lib/options.js";

const absent = new Set(["ENOENT", "ENOTDIR", "EISDIR"]);

/**
 * A read/write store over a directory. Keys map to files below the root;
 * writes go to a temporary file in the same directory and are renamed into
 * place, so readers never see half a value.
 *
 * Every read and write stays inside the root: a symbolic link below it
 * that resolves outside makes the key an error (ZarrError STORE), unless
 * `allowOutsideSymlinks` is set. Node has no way to open a path relative to
 * a directory without following links, so the check resolves the path
 * (realpath) just before it is used: a link swapped in between the check
 * and the use by another process is not caught.
 *
 * Versions: a file's generation is its device, inode, size and
 * modification time (ns) — the same string Go's directory store makes. A
 * versioned read (`{versioned: true}`) reads through one open file and
 * stats it before and after. A conditional set or delete (`ifMatch`,
 * `ifNoneMatch: "*"`) compares and renames while holding the key's lock
 * file, `.<name>.lock` beside it, as Go's directory store does, so Go and
 * Node processes writing one directory exclude each other.
 */
export class FileSystemStore {
  #realRoot = null;
  /**
   * @param {string | URL} root
   * @param {{allowOutsideSymlinks?: boolean}} [options]
   */
  constructor(root, options = {}) {
    options = checkOptions("FileSystemStore", options);
    this.root = nodePath.resolve(root instanceof URL || String(root).startsWith("file:") ? fileURLToPath(root) : String(root));
    /** Lets symbolic links below the root lead outside it (off by default). */
    this.allowOutsideSymlinks = !!options.allowOutsideSymlinks;
  }

  /** The file of a key; keys are absolute ("/a/b/.zarray"). */
  path(key) {
    if (typeof key !== "string" || !key.startsWith("/")) {
      throw new TypeError(`store keys are absolute paths starting with "/", got ${JSON.stringify(key)}`);
    }
    const parts = key.split("/").filter((s) => s !== "");
    for (const p of parts) {
      if (p === "." || p === ".." || p.includes("\\") || p.includes("\0")) {
        throw new TypeError(`bad store key ${JSON.stringify(key)}`);
      }
    }
    return nodePath.join(this.root, ...parts);
  }

  /**
   * Checks that file (or, where it does not exist, its nearest existing
   * ancestor) resolves inside the root. Returns false when nothing of the
   * path exists inside the root yet.
   */
  async #contained(file, key) {
    if (this.allowOutsideSymlinks) return true;
    if (this.#realRoot === null) {
      try {
        this.#realRoot = await fs.realpath(this.root);
      } catch (e) {
        if (absent.has(e.code)) return false;
        throw e;
      }
    }
    const root = this.#realRoot;
    for (let p = file; ; p = nodePath.dirname(p)) {
      let real;
      try {
        real = await fs.realpath(p);
      } catch (e) {
        if (!absent.has(e.code) && e.code !== "ELOOP") throw e;
        if (p === this.root || p === nodePath.dirname(p)) return false;
        continue;
      }
      if (real !== root && !real.startsWith(root.endsWith(nodePath.sep) ? root : root + nodePath.sep)) {
        throw new ZarrError(
          "STORE",
          `${JSON.stringify(key)}: a symbolic link leads outside the store's root ${this.root} (to ${real}); new FileSystemStore(root, { allowOutsideSymlinks: true }) allows that`,
          { where: key },
        );
      }
      return true;
    }
  }

  async get(key, options) {
    if (options?.versioned) return this.#readVersion(key, null, options);
    const file = this.path(key);
    try {
      await this.#contained(file, key);
      const b = await fs.readFile(file);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      if (absent.has(e.code)) return undefined;
      throw e;
    }
  }

  async getRange(key, range, options) {
    if (options?.versioned) return this.#readVersion(key, range, options);
    const file = this.path(key);
    let fh;
    try {
      await this.#contained(file, key);
      fh = await fs.open(file, "r");
    } catch (e) {
      if (absent.has(e.code)) return undefined;
      throw e;
    }
    try {
      const { size } = await fh.stat();
      return await readRange(fh, key, range, size);
    } finally {
      await fh.close();
    }
  }

  /** A versioned read (see the class comment); a file changed in place while read is read again. */
  async #readVersion(key, range, options) {
    const file = this.path(key);
    for (let attempt = 0; ; attempt++) {
      let fh;
      try {
        await this.#contained(file, key);
        fh = await fs.open(file, "r");
      } catch (e) {
        if (!absent.has(e.code)) throw e;
        return options.ifMatch !== undefined ? { changed: true } : { data: undefined, generation: null };
      }
      try {
        const st = await fh.stat({ bigint: true });
        if (st.isDirectory()) return options.ifMatch !== undefined ? { changed: true } : { data: undefined, generation: null };
        const generation = fileGeneration(st);
        if (options.ifMatch !== undefined && options.ifMatch !== generation) return { changed: true };
        if (options.ifNoneMatch === generation) return { notModified: true, generation };
        let data;
        try {
          data = range ? await readRange(fh, key, range, Number(st.size)) : await readRange(fh, key, { offset: 0 }, Number(st.size));
        } catch (e) {
          if (!(e instanceof ShortRead)) throw e;
        }
        if (data !== undefined && fileGeneration(await fh.stat({ bigint: true })) === generation) return { data, generation };
      } finally {
        await fh.close();
      }
      if (attempt === 3) throw new ZarrError("CONFLICT", `${JSON.stringify(key)}: the file kept changing while it was read`, { where: key });
    }
  }

  async has(key) {
    try {
      const file = this.path(key);
      return (await this.#contained(file, key)) && (await fs.stat(file)).isFile();
    } catch {
      return false;
    }
  }

  async set(key, value, options) {
    const file = this.path(key);
    const dir = nodePath.dirname(file);
    await this.#contained(dir, key); // before creating directories through a link
    await fs.mkdir(dir, { recursive: true });
    await this.#contained(file, key);
    const tmp = nodePath.join(dir, `.${nodePath.basename(file)}.${randomBytes(6).toString("hex")}.partial`);
    try {
      await fs.writeFile(tmp, value);
      const done = await underLock(file, key, options, async () => {
        await fs.rename(tmp, file);
        return { generation: fileGeneration(await fs.stat(file, { bigint: true })) };
      });
      if (done.changed) await fs.rm(tmp, { force: true });
      return options?.versioned ? done : undefined;
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw e;
    }
  }

  async delete(key, options) {
    try {
      const file = this.path(key);
      await this.#contained(nodePath.dirname(file), key);
      const done = await underLock(file, key, options, async () => {
        await fs.unlink(file);
        return { generation: null };
      });
      return options?.versioned ? done : !done.changed;
    } catch (e) {
      if (absent.has(e.code)) return options?.versioned ? { generation: null } : false;
      throw e;
    }
  }

  /** Names directly under prefix; sub-directories end in "/". */
  async list(prefix = "/") {
    let entries;
    const dir = this.path(prefix);
    try {
      await this.#contained(dir, prefix);
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (absent.has(e.code)) return [];
      throw e;
    }
    const out = [];
    for (const e of entries) {
      if (e.name.startsWith(".") && (e.name.endsWith(".partial") || e.name.endsWith(lockSuffix))) continue;
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) {
        // a link to a directory lists as a sub-prefix (where it may be followed)
        const target = nodePath.join(dir, e.name);
        try {
          isDir = (await this.#contained(target, prefix + e.name)) && (await fs.stat(target)).isDirectory();
        } catch {
          isDir = false;
        }
      }
      out.push(isDir ? `${e.name}/` : e.name);
    }
    return out.sort();
  }
}

/** A file's generation: device, inode, size, modification time (ns), base 36 — as Go's directory store. */
function fileGeneration(st) {
  return [st.dev, st.ino, st.size, st.mtimeNs].map((n) => BigInt(n).toString(36)).join(".");
}

class ShortRead extends Error {}

/** Reads range ({offset, length?} | {suffixLength}) of an open file of size bytes. */
async function readRange(fh, key, range, size) {
  let offset;
  let length;
  if (range.suffixLength !== undefined) {
    length = Number(range.suffixLength);
    offset = size - length;
  } else {
    offset = Number(range.offset ?? 0);
    length = range.length === undefined ? size - offset : Number(range.length);
  }
  if (offset < 0 || length < 0 || offset + length > size) {
    throw new RangeError(`${key}: range ${JSON.stringify(range)} of a ${size}-byte file`);
  }
  const buf = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, offset + done);
    if (bytesRead === 0) throw new ShortRead(`${key}: unexpected end of file`);
    done += bytesRead;
  }
  return buf;
}

// The lock file protocol of Go's store.Directory (zarr/store/lockfile.go):
// ".<name>.lock" beside the file, created exclusively, held only while a
// conditional write compares and renames; older than staleLock, it was left
// by a writer that died.
const lockSuffix = ".lock";
const staleLock = 10_000;
const lockWait = 30_000;

/**
 * Runs change() (→ {generation}) at once when options carry no condition,
 * else under the file's lock once its generation allows it; {changed: true}
 * when it does not.
 */
async function underLock(file, key, options, change) {
  if (options?.ifMatch === undefined && options?.ifNoneMatch !== "*") return change();
  const lock = nodePath.join(nodePath.dirname(file), `.${nodePath.basename(file)}${lockSuffix}`);
  const deadline = Date.now() + lockWait;
  let pause = 0.1;
  for (;;) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: "wx" });
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
    }
    try {
      const st = await fs.stat(lock);
      if (Date.now() - st.mtimeMs > staleLock) {
        await fs.rm(lock, { force: true }); // its writer died while holding it
        continue;
      }
    } catch {
      continue; // released meanwhile
    }
    if (Date.now() > deadline) throw new ZarrError("CONFLICT", `${JSON.stringify(key)}: another writer holds ${lock}`, { where: key });
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 20);
  }
  try {
    let current = null;
    try {
      const st = await fs.stat(file, { bigint: true });
      if (!st.isDirectory()) current = fileGeneration(st);
    } catch (e) {
      if (!absent.has(e.code)) throw e;
    }
    if (!writeAllowed(current, options)) return { changed: true };
    return await change();
  } finally {
    await fs.rm(lock, { force: true });
  }
}
