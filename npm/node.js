// zarr-wasm/node: a store over the local file system (Node only), plus
// everything the main entry exports.
import { promises as fs } from "node:fs";
import * as nodePath from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

export * from "./index.js";

const absent = new Set(["ENOENT", "ENOTDIR", "EISDIR"]);

/**
 * A read/write store over a directory. Keys map to files below the root;
 * writes go to a temporary file in the same directory and are renamed into
 * place, so readers never see half a value.
 */
export class FileSystemStore {
  /** @param {string | URL} root */
  constructor(root) {
    this.root = nodePath.resolve(root instanceof URL || String(root).startsWith("file:") ? fileURLToPath(root) : String(root));
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

  async get(key) {
    try {
      const b = await fs.readFile(this.path(key));
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      if (absent.has(e.code)) return undefined;
      throw e;
    }
  }

  async getRange(key, range) {
    let fh;
    try {
      fh = await fs.open(this.path(key), "r");
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
      return (await fs.stat(this.path(key))).isFile();
    } catch {
      return false;
    }
  }

  async set(key, value) {
    const file = this.path(key);
    const dir = nodePath.dirname(file);
    await fs.mkdir(dir, { recursive: true });
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
      await fs.unlink(this.path(key));
      return true;
    } catch (e) {
      if (absent.has(e.code)) return false;
      throw e;
    }
  }

  /** Names directly under prefix; sub-directories end in "/". */
  async list(prefix = "/") {
    let entries;
    try {
      entries = await fs.readdir(this.path(prefix), { withFileTypes: true });
    } catch (e) {
      if (absent.has(e.code)) return [];
      throw e;
    }
    const out = [];
    for (const e of entries) {
      if (e.name.endsWith(".partial") && e.name.startsWith(".")) continue;
      out.push(e.isDirectory() ? `${e.name}/` : e.name);
    }
    return out.sort();
  }
}
