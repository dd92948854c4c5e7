// window.zarrDemo: what the browser test (tests/demo) and the console can
// look at. Read-only views of the state; nothing here changes it.
import * as zarr from "zarr-wasm";
import { app } from "./state.js";
import { errorLog } from "./banner.js";

export function exposeState() {
  window.zarrDemo = {
    /** The decode worker pool's counts, once it runs (the package starts it on a read worth it). */
    get workers() {
      const pool = zarr.workerPool();
      return pool.size > 0 ? { size: pool.size, ...pool.stats() } : null;
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
    /** A composite's channels: [{index, label, color, lo, hi, visible}], or null. */
    get channels() {
      return app.channels && app.channels.map((c) => ({ index: c.index, label: c.label, color: c.color.slice(), lo: c.lo, hi: c.hi, visible: c.visible, auto: c.auto }));
    },
    get channelStats() {
      return Object.fromEntries([...(app.channelStats ?? new Map())].map(([k, st]) => [k, st && { ...st, bins: Array.from(st.bins ?? []) }]));
    },
    /** The label image shown and its opacity. */
    get labels() {
      return { names: app.labelNames.slice(), shown: app.labelName, opacity: app.labelOpacity, ready: !!app.view.labels };
    },
    /** Per dimension {scale, translation, unit}, or null. */
    get physical() {
      return app.physical;
    },
    /** The scale bar last drawn: {px, exact, value, text, x0, x1, y} (CSS px), or null. */
    get scaleBar() {
      return app.view.scaleBar;
    },
    get playback() {
      return app.player ? { ...app.player.state(), playDim: app.playDim ?? null } : null;
    },
    /** Tiles in the view's cache by state (prefetched ones counted apart). */
    get tiles() {
      const out = { ready: 0, loading: 0, prefetched: 0 };
      for (const t of app.view.tiles.values()) {
        if (t.prefetch) out.prefetched++;
        else if (t.state === "ready") out.ready++;
        else if (t.state === "loading") out.loading++;
      }
      return out;
    },
    /** The open store's counts (the package's): {requests, bytes, kind}. */
    get requests() {
      const c = app.source?.counted;
      if (!c) return null;
      const kind = c instanceof zarr.ReferenceStore ? "references" : c instanceof zarr.ZipStore ? "zip" : c.constructor?.name;
      return { requests: c.requests ?? null, bytes: c.bytes ?? null, kind };
    },
    /** The engine's cache counters for the array shown: a promise of {hits, revalidated, misses, …}. */
    cacheStats() {
      return app.arr ? zarr.cacheStats(app.arr) : Promise.resolve(null);
    },
    /** Empties the engine's cache for the array shown (the next read fetches and decodes again). */
    clearCache() {
      return app.arr ? zarr.clearCache(app.arr) : Promise.resolve();
    },
    get lastError() {
      return errorLog.last;
    },
    zarr,
  };
}
