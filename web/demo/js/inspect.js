// window.zarrDemo: what the browser test (tests/demo) and the console can
// look at. Read-only views of the state; nothing here changes it.
import * as zarr from "zarr-wasm";
import { app } from "./state.js";
import { errorLog } from "./banner.js";

export function exposeState() {
  window.zarrDemo = {
    /** The decode worker pool's counts, once it runs. */
    get workers() {
      return app.workers ? { size: app.workers.size, ...app.workers.stats() } : null;
    },
    get status() {
      return app.status;
    },
    get renders() {
      return app.renders;
    },
    get path() {
      return app.selected?.path ?? null;
    },
    get slice() {
      return app.slice && { ...app.slice, index: app.slice.index.slice() };
    },
    get display() {
      return { ...app.display };
    },
    get viewState() {
      const v = app.view;
      return { ...v.view, cw: v.cw, ch: v.ch, level: v.L ?? 0, stride: 2 ** (v.L ?? 0), W: v.W, H: v.H, source: v.source() };
    },
    get stats() {
      return app.stats && { ...app.stats, bins: Array.from(app.stats.bins ?? []) };
    },
    /** The open store's counts (the package's): {requests, bytes, kind}. */
    get requests() {
      const c = app.source?.counted;
      if (!c) return null;
      const kind = c instanceof zarr.ReferenceStore ? "references" : c instanceof zarr.ZipStore ? "zip" : c.constructor?.name;
      return { requests: c.requests ?? null, bytes: c.bytes ?? null, kind };
    },
    get lastError() {
      return errorLog.last;
    },
    zarr,
  };
}
