// zarr-wasm/node: a store over the local file system (Node only), plus
// everything the main entry exports.
import { promises as fs } from "node:fs";
import * as nodePath from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

export * from "./index.js";
import { ZarrError } from "./lib/errors.js";

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
 */
export class FileSystemStore {
  #realRoot = null;
  /**
   * @param {string | URL} root
   * @param {{allowOutsideSymlinks?: boolean}} [options]
   */
  constructor(root, options = {}) {
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

  async get(key) {
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

  async getRange(key, range) {
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
        if (bytesRead === 0) throw new Error(`${key}: unexpected end of file`);
        done += bytesRead;
      }
      return buf;
    } finally {
      await fh.close();
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

  async set(key, value) {
    const file = this.path(key);
    const dir = nodePath.dirname(file);
    await this.#contained(dir, key); // before creating directories through a link
    await fs.mkdir(dir, { recursive: true });
    await this.#contained(file, key);
    const tmp = nodePath.join(dir, `.${nodePath.basename(file)}.${randomBytes(6).toString("hex")}.partial`);
    try {
      await fs.writeFile(tmp, value);
      await fs.rename(tmp, file);
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw e;
    }
  }

  async delete(key) {
    try {
      const file = this.path(key);
      await this.#contained(nodePath.dirname(file), key);
      await fs.unlink(file);
      return true;
    } catch (e) {
      if (absent.has(e.code)) return false;
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
      if (e.name.endsWith(".partial") && e.name.startsWith(".")) continue;
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
