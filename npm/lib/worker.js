// A decode worker (lib/workers.js): it runs only the decoders module
// (lib/codecs.wasm, compiled by the main thread and handed over) — no
// engine — and decodes the chunks it is sent, writing each region into
// the read's result when that is shared memory, else handing the decoded
// chunk back. A chunk its decoder declines goes back undecoded: the main
// thread's engine decodes it and reports what is wrong. Works as a browser
// module worker and as a Node worker thread.
import { useCodecsModule, loadCodecs, decodeTo } from "./codecs.js";
import { scatter } from "./scatter.js";

/** Reads in progress, by id: {out (a view of the shared result, or null), full, itemSize}. */
const reads = new Map();

function serve(post, onMessage) {
  onMessage(async (m) => {
    switch (m.type) {
      case "init":
        useCodecsModule(m.codecs);
        if (await loadCodecs()) post({ type: "ready" });
        else post({ type: "failed", message: "the decoders' module did not load" });
        return;
      case "read":
        reads.set(m.read, { out: m.out ? new Uint8Array(m.out) : null, full: m.full, itemSize: m.itemSize });
        return;
      case "end":
        reads.delete(m.read);
        return;
      case "chunks":
        decodeList(m.list, post);
    }
  });
}

/** Decodes a list of chunks, reporting those written into shared results a few at a time. */
function decodeList(list, post) {
  let done = [];
  for (const job of list) {
    const r = reads.get(job.read);
    let data = null;
    const ok =
      !!r &&
      decodeTo(job.decode, job.bytes, job.size, true, (chunk) => {
        if (r.out) scatter(r.out, r.full, chunk, job.shape, job.in, job.out, r.itemSize);
        else data = chunk.slice();
      }) === job.size;
    if (!ok) {
      post({ type: "declined", id: job.id });
    } else if (data) {
      post({ type: "chunk", id: job.id, data }, [data.buffer]);
    } else {
      done.push(job.id);
      // (every 4: the main thread refills while this worker still has chunks)
      if (done.length >= 4) {
        post({ type: "done", ids: done });
        done = [];
      }
    }
  }
  if (done.length > 0) post({ type: "done", ids: done });
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
