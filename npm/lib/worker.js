// A decode worker: runs its own copy of the engine (the compiled module the
// main thread sends, and the decoders' module) and decompresses chunks for
// the pool in workers.js. Works as a browser module worker and as a Node
// worker thread.
import { init, callBridge } from "./runtime.js";
import { pooledMessage } from "./pooled-worker.js";

function serve(post, onMessage) {
  onMessage(async (msg) => {
    if (pooledMessage(msg, post)) return;
    if (msg.type === "init") {
      try {
        await init(msg.module, { engine: "full", codecs: msg.codecs ?? undefined });
        post({ type: "ready" });
      } catch (e) {
        post({ type: "failed", message: String(e?.message ?? e) });
      }
      return;
    }
    if (msg.type === "decode") {
      try {
        const out = await callBridge("decodeBytes", msg.name, msg.config, msg.bytes, msg.max);
        post({ type: "decoded", id: msg.id, bytes: out }, [out.buffer]);
      } catch (e) {
        // The main thread decodes it again and reports the engine's error.
        post({ type: "decoded", id: msg.id, bytes: null, message: String(e?.message ?? e) });
      }
    }
  });
}

if (typeof WorkerGlobalScope !== "undefined" && globalThis instanceof WorkerGlobalScope) {
  serve(
    (m, transfer) => globalThis.postMessage(m, transfer ?? []),
    (f) => globalThis.addEventListener("message", (e) => f(e.data)),
  );
} else {
  // (No top-level await: bundlers build workers as classic scripts by default.)
  const name = "node:worker_threads";
  import(/* @vite-ignore */ name).then(({ parentPort }) =>
    serve(
      (m, transfer) => parentPort.postMessage(m, transfer ?? []),
      (f) => parentPort.on("message", f),
    ),
  );
}
