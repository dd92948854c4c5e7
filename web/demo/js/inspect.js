// window.zarrDemo: what the browser test (tests/demo) and the console can
// look at. Read-only views of the state; nothing here changes it.
import * as zarr from "zarr-wasm";
import { app } from "./state.js";
import { $ } from "./dom.js";
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
      return { ...v.view, cw: v.cw, ch: v.ch, flip: !!v.flipY, level: v.L ?? 0, stride: 2 ** (v.L ?? 0), W: v.W, H: v.H, source: v.source() };
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
    /**
     * The grid view (a plate's wells, a well's fields): its cells as drawn
     * ({key, label, x, y, w, h, ny, nx, state}), and for a plate the
     * template (field, level path and shape), the acquisition, and the
     * first complete picture: ms from the plate's selection, and its
     * performance.now() (ms from the navigation's start).
     */
    get grid() {
      if (document.getElementById("grid-host").hidden) return null;
      const p = app.plate && app.selected === app.plate.tree ? app.plate : null;
      const lv = p?.template?.levels[p.level];
      return {
        rows: app.grid.rows.slice(),
        columns: app.grid.columns.slice(),
        cells: app.grid.layoutOf(),
        complete: !!app.grid.complete,
        plate: p && { acquisition: p.acquisition ?? null, field: p.template.fieldPath, level: lv.path, levelShape: lv.arr.shape.slice(), consolidated: p.consolidated, firstPictureMs: p.firstPicture ? p.firstPicture - p.started : null, firstPictureAt: p.firstPicture ?? null, reads: p.reader ? { ...p.reader.counts } : null },
      };
    },
    /** The map shown: {kind, crsSource, step (graticule degrees), coast (outline scale), labels: [{text, axis, value, x, y}]}, or null. */
    get map() {
      const o = app.mapOverlay;
      if (!app.map || !o.map) return null;
      return { kind: app.map.kind, crsSource: app.map.crsSource, step: o.step ?? null, coast: o.coast?.scale ?? null, labels: o.labels.map((l) => ({ ...l })) };
    },
    /** The 3D view: {level, shape [nx, ny, nz], bytes, extent, channels, dims, state, camera {pxPerWorld, cw, ch}, draws}, or null. */
    get volume() {
      return $("volume-host").hidden ? null : app.volume.describe();
    },
    /** Sets the 3D view's mode, yaw, pitch, zoom, crop or budget (as its bar and mouse do); resolves when read. */
    volumeSet(changes) {
      return app.volume.set(changes);
    },
    /** The colour bar's text, or null when hidden. */
    get colorbar() {
      const b = document.getElementById("colorbar");
      return b.hidden ? null : { title: b.querySelector("#colorbar-title").textContent, lo: b.querySelector("#colorbar-lo").textContent, hi: b.querySelector("#colorbar-hi").textContent };
    },
    get lastError() {
      return errorLog.last;
    },
    zarr,
  };
}
