// One trigger of tests/node/memory.test.mjs, run in its own process:
// `node trigger.mjs NAME` prints one JSON line {code, message, ms, after}
// where code/message are what the trigger gave (null code: it succeeded),
// ms how long it took, and after the outcome of a normal read done next in
// the same process ("ok" or the error).
import { gzipSync } from "node:zlib";
import * as zarr from "../../../npm/index.js";
import { engineLog } from "../../../npm/lib/runtime.js";
import { bridge } from "../../../npm/lib/runtime.js";

const name = process.argv[2];

/** A normal read: a small array written and read in a fresh store. */
async function normal() {
  const s = new zarr.MemoryStore();
  const a = await zarr.create(s, { path: "ok", shape: [10], chunks: [5], dtype: "int32" });
  await a.set([3], 7);
  const r = await a.get([3]);
  if (r.data[0] !== 7) throw new Error(`read ${r.data[0]}, wrote 7`);
  return "ok";
}

const triggers = {
  // selections over what 32-bit memory can hold
  async selection4GiB() {
    const a = await zarr.create(new zarr.MemoryStore(), { path: "a", shape: [2 ** 30 + 1], chunks: [2 ** 24], dtype: "float32" });
    return a.get();
  },
  async selection3_9GiB() {
    const a = await zarr.create(new zarr.MemoryStore(), { path: "a", shape: [1000, 1000, 1050], chunks: [100, 100, 1050], dtype: "float32" });
    return a.get();
  },
  // a one-element write into a chunk of 2 GiB - 1 bytes
  async write2GiBChunk() {
    const a = await zarr.create(new zarr.MemoryStore(), { path: "a", shape: [2 ** 31 - 1], chunks: [2 ** 31 - 1], dtype: "|u1", zarrFormat: 2 });
    return a.set([5], 1);
  },
  // a one-element write into a shard declaring 2^26 inner chunks
  async writeHugeShard() {
    const a = await zarr.create(new zarr.MemoryStore(), { path: "a", shape: [2 ** 26], chunks: [1], shardShape: [2 ** 26], dtype: "uint8" });
    return a.set([5], 1);
  },
  // a gzip-bombed reference file: 24 gzip members of 64 MiB of zeros
  // (1.5 GiB of JSON from 1.6 MB)
  async gzipBomb() {
    const head = gzipSync(Buffer.from('{"version": 1, "refs": {"a": "'));
    const zeros = gzipSync(Buffer.alloc(64 << 20, 0x20), { level: 9 });
    const tail = gzipSync(Buffer.from('"}}'));
    const bomb = Buffer.concat([head, ...Array(24).fill(zeros), tail]);
    return zarr.ReferenceStore.fromJSON(new Uint8Array(bomb));
  },
  // a zstd-bombed reference file: frames claiming 16 GiB
  async zstdBomb() {
    // one zstd frame: 1 GiB of spaces as 8192 RLE blocks of 128 KiB
    const hdr = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00]; // magic, no content size, window 1 KiB
    const blocks = [];
    for (let i = 0; i < 8192; i++) {
      const last = i === 8191 ? 1 : 0;
      const v = (128 << 10) * 8 + (1 << 1) + last; // size << 3 | RLE << 1 | last
      blocks.push(v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, 0x20);
    }
    const frame = Uint8Array.from([...hdr, ...blocks]);
    const bomb = new Uint8Array(frame.length * 16);
    for (let i = 0; i < 16; i++) bomb.set(frame, i * frame.length);
    return zarr.ReferenceStore.fromJSON(bomb);
  },
  // the engine itself stops: a panic no call recovers, the Go heap
  // outgrowing memory, an exit; with a call in flight each time
  async panic() {
    return crash("panic");
  },
  async oom() {
    return crash("oom");
  },
  async exit() {
    return crash("exit");
  },
};

/** Starts a read that waits on a store, stops the engine, and returns that read's outcome. */
async function crash(kind) {
  let release;
  const gate = new Promise((r) => (release = r));
  const base = new zarr.MemoryStore();
  const a = await zarr.create(base, { path: "a", shape: [4], chunks: [2], dtype: "int32" });
  await a.set(null, 1);
  const slow = { get: async (key) => (key.includes("/c/") ? (await gate, base.get(key)) : base.get(key)) };
  const arr = await zarr.open(slow, { path: "a" });
  const pending = arr.get();
  (await bridge())._crash(kind);
  setTimeout(release, 2000); // the store answers after the engine stopped
  try {
    await pending;
    throw new Error("the read in flight settled normally");
  } finally {
    // a handle of the stopped engine fails clearly
    await arr.get().then(
      () => {
        throw new Error("a handle of the stopped engine still read");
      },
      (e) => {
        if (e.code !== "ENGINE_EXITED") throw new Error(`old handle: ${e.code} ${e.message}`);
      },
    );
  }
}

const t0 = performance.now();
let code = null;
let message = null;
try {
  await triggers[name]();
} catch (e) {
  code = e.code ?? e.name;
  message = e.message;
}
const ms = Math.round(performance.now() - t0);
let after;
try {
  after = await normal();
} catch (e) {
  after = `${e.code}: ${e.message}`;
}
console.log(JSON.stringify({ code, message, ms, after, engines: engineLog.starts, stops: engineLog.stops }));
process.exit(0);
