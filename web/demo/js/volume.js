// The 3D view: an array with three spatial axes (an OME-Zarr image's z, y
// and x, or any third dimension the user picks as depth) drawn as a volume
// by volume-gl.js. The pyramid level is the finest whose channels fit the
// GPU-memory budget (4 bytes a voxel a channel) and the GPU's largest 3-D
// texture; it is read whole, one read per channel, at the slice's other
// indices. Drag rotates, the wheel zooms; the crop box and the mode (MIP
// or alpha compositing) are set in the bar over the view. Channels keep
// their colours and limits from the colour panel (a single array its
// colormap and limits), and the picture follows them as they change. The
// view's state (mode, rotation, zoom, crop, depth, budget and level) goes
// into the address (address.js), and open() takes it back.
import { $, el } from "./dom.js";
import { app, setStatus } from "./state.js";
import { table } from "./colormaps.js";
import { formatBytes } from "./format.js";
import { MAX_CHANNELS, VolumeRenderer } from "./volume-gl.js";

export const BUDGETS_MIB = [1, 4, 16, 64, 256, 1024];

/** The slice's candidate depth dimensions: neither shown, nor channels, more than one sample. */
export function depthCandidates(shape, slice, channelAxis = -1) {
  return shape.map((n, d) => d).filter((d) => d !== slice.ydim && d !== slice.xdim && d !== channelAxis && shape[d] > 1);
}

/** The default depth: an OME-Zarr image's third space axis (z), else the last candidate. */
export function defaultDepth(shape, slice, axes, channelAxis = -1) {
  const cands = depthCandidates(shape, slice, channelAxis);
  const z = cands.find((d) => axes?.[d]?.type === "space" || axes?.[d]?.name === "z");
  return z ?? cands.at(-1) ?? -1;
}

/**
 * The finest level whose volume fits: levels [{arr, factors}] (level 0
 * first), dims {x, y, z}, channels to upload, budget in bytes, the GPU's
 * largest 3-D texture side. Returns {index, shape: [nx, ny, nz], bytes} or
 * null when none fits.
 */
export function chooseLevel(levels, dims, channels, budget, max3D) {
  for (let k = 0; k < levels.length; k++) {
    const s = levels[k].arr.shape;
    const shape = [s[dims.x], s[dims.y], s[dims.z]];
    const bytes = shape[0] * shape[1] * shape[2] * 4 * channels;
    if (bytes <= budget && shape.every((n) => n <= max3D)) return { index: k, shape, bytes };
  }
  return null;
}

/** 4×4 row-major product. */
function mul(a, b) {
  const o = new Array(16).fill(0);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) for (let k = 0; k < 4; k++) o[4 * i + j] += a[4 * i + k] * b[4 * k + j];
  return o;
}

export class VolumeView {
  constructor(host) {
    this.host = host;
    this.canvas = el("canvas", { class: "volume-canvas" });
    this.bar = el("div", { class: "volume-bar" });
    host.append(this.canvas, this.bar);
    this.renderer = null;
    // level: the level shown (null: the finest the budget allows)
    this.state = { mode: "mip", budgetMiB: 256, level: null, yaw: 0, pitch: 0, zoom: 1, density: 0.15, crop: { lo: [0, 0, 0], hi: [1, 1, 1] } };
    this.onChange = null; // called when the state changes (the address follows)
    this.volume = null; // {level, shape, bytes, extent, channels, useLut}
    this.loads = 0;
    this.draws = 0;
    this.#wireMouse();
    new ResizeObserver(() => this.visible && this.#requestDraw()).observe(host);
    // The colour panel changes app.display and app.channels, the sliders
    // the other dimensions' positions: follow them.
    this.shown = "";
    setInterval(() => {
      if (!this.visible || !this.volume) return;
      if (this.#position() !== this.volume.position) return void this.load();
      const now = JSON.stringify([app.display, app.channels?.map((c) => [c.color, c.lo, c.hi, c.visible])]);
      if (now !== this.shown) this.#requestDraw();
    }, 200);
  }

  get visible() {
    return !this.host.hidden;
  }

  #wireMouse() {
    let drag = null;
    this.canvas.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, yaw: this.state.yaw, pitch: this.state.pitch };
      this.canvas.setPointerCapture(e.pointerId);
    });
    this.canvas.addEventListener("pointermove", (e) => {
      if (!drag) return;
      this.state.yaw = drag.yaw + (e.clientX - drag.x) * 0.01;
      this.state.pitch = Math.max(-Math.PI / 2, Math.min(Math.PI / 2, drag.pitch + (e.clientY - drag.y) * 0.01));
      this.#requestDraw();
      this.onChange?.();
    });
    const end = () => (drag = null);
    this.canvas.addEventListener("pointerup", end);
    this.canvas.addEventListener("pointercancel", end);
    this.canvas.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        this.state.zoom = Math.max(0.1, Math.min(50, this.state.zoom * Math.exp(-e.deltaY * 0.002)));
        this.#requestDraw();
        this.onChange?.();
      },
      { passive: false },
    );
    this.canvas.addEventListener("dblclick", () => this.set({ yaw: 0, pitch: 0, zoom: 1 }));
  }

  /**
   * Changes view settings ({mode, yaw, pitch, zoom, density, crop,
   * budgetMiB, level, depth}) and redraws (re-reads for budget, level or
   * depth; a new budget shows the finest level it allows).
   */
  set(changes) {
    if ("budgetMiB" in changes && changes.budgetMiB !== this.state.budgetMiB && !("level" in changes)) changes = { ...changes, level: null };
    const reload = ["budgetMiB", "level", "depth"].some((k) => k in changes && changes[k] !== this.state[k]);
    Object.assign(this.state, changes);
    this.#syncBar();
    this.onChange?.();
    if (reload) return this.load();
    this.#requestDraw();
    return Promise.resolve();
  }

  /** Builds the bar's controls: mode, depth, budget, crop ranges, and what is shown. */
  #buildBar() {
    const s = this.state;
    const select = (id, label, options, value, onchange) =>
      el("label", {}, `${label} `, el("select", { id, onchange: (e) => onchange(e.target.value) }, options.map(([v, t]) => el("option", { value: v, selected: String(v) === String(value), text: t }))));
    const crop = ["x", "y", "z"].map((axis, k) =>
      el(
        "span",
        { class: "volume-crop" },
        `${axis} `,
        ["lo", "hi"].map((end) =>
          el("input", {
            type: "range", min: 0, max: 1, step: 0.01, value: s.crop[end][k], id: `vol-crop-${axis}-${end}`, title: `crop ${axis} ${end === "lo" ? "from" : "to"}`,
            oninput: (e) => {
              const v = Number(e.target.value);
              const c = { lo: s.crop.lo.slice(), hi: s.crop.hi.slice() };
              c[end][k] = v;
              if (c.lo[k] > c.hi[k] - 0.01) c[end][k] = end === "lo" ? c.hi[k] - 0.01 : c.lo[k] + 0.01;
              this.set({ crop: c });
            },
          }),
        ),
      ),
    );
    this.bar.replaceChildren(
      select("vol-mode", "Mode", [["mip", "maximum intensity"], ["alpha", "alpha compositing"]], s.mode, (v) => this.set({ mode: v })),
      select("vol-depth", "Depth", (this.depths ?? []).map((d) => [d, app.dimNames[d]]), s.depth, (v) => this.set({ depth: Number(v) })),
      select("vol-budget", "GPU memory", BUDGETS_MIB.map((m) => [m, `${m} MiB`]), s.budgetMiB, (v) => this.set({ budgetMiB: Number(v) })),
      el("span", { class: "volume-crops" }, "Crop ", crop),
      el("button", { type: "button", id: "vol-reset", text: "Reset view", onclick: () => this.set({ yaw: 0, pitch: 0, zoom: 1, crop: { lo: [0, 0, 0], hi: [1, 1, 1] } }) }),
      el("span", { id: "vol-info", class: "volume-info" }),
    );
  }

  #syncBar() {
    const s = this.state;
    const set = (id, v) => {
      const e = this.bar.querySelector(`#${id}`);
      if (e) e.value = String(v);
    };
    set("vol-mode", s.mode);
    set("vol-budget", s.budgetMiB);
    set("vol-depth", s.depth);
    ["x", "y", "z"].forEach((a, k) => {
      set(`vol-crop-${a}-lo`, s.crop.lo[k]);
      set(`vol-crop-${a}-hi`, s.crop.hi[k]);
    });
  }

  /**
   * Opens the current array (app.arr, its pyramid, the slice) as a volume;
   * initial: a state to start from (a link's: address.js), else the view
   * keeps its mode, rotation, zoom and budget, with the default depth and
   * no crop.
   */
  async open(initial = null) {
    const a = app.arr;
    const chAxis = app.channels ? app.image.channelAxis : -1;
    this.depths = depthCandidates(a.shape, app.slice, chAxis);
    this.state.depth = this.depths.includes(initial?.depth) ? initial.depth : defaultDepth(a.shape, app.slice, app.image?.axes, chAxis);
    this.state.crop = { lo: [0, 0, 0], hi: [1, 1, 1] };
    this.state.level = null;
    if (initial) {
      for (const k of ["mode", "yaw", "pitch", "zoom", "level", "crop"]) if (initial[k] !== undefined) this.state[k] = initial[k];
      if (BUDGETS_MIB.includes(initial.budgetMiB)) this.state.budgetMiB = initial.budgetMiB;
    }
    this.#buildBar();
    return this.load();
  }

  /** Reads the level that fits the budget and uploads it. */
  async load() {
    const a = app.arr;
    const token = ++this.loads;
    const info = this.bar.querySelector("#vol-info");
    try {
      if (!this.renderer) this.renderer = new VolumeRenderer(this.canvas);
      const dims = { x: app.slice.xdim, y: app.slice.ydim, z: this.state.depth };
      const position = JSON.stringify(app.slice.index.filter((_, k) => k !== dims.x && k !== dims.y && k !== dims.z));
      if (this.volume) Object.assign(this.volume, { position, dims }); // (no second load while this one reads)
      if (dims.z < 0) throw new Error("This array has no third dimension to show as depth.");
      const chAxis = app.channels ? app.image.channelAxis : -1;
      // A channel axis: each channel a texture (up to four); omero colours on a single image: one.
      const chans = app.channels ? (chAxis >= 0 ? app.channels.slice(0, MAX_CHANNELS) : app.channels.slice(0, 1)) : [null];
      const levels = [{ arr: a, factors: a.shape.map(() => 1) }, ...app.pyramid];
      const budget = this.state.budgetMiB * 2 ** 20;
      // The level asked for (a link's), when it fits; else the budget's.
      const k = this.state.level;
      const asked = Number.isInteger(k) && k >= 0 && k < levels.length ? chooseLevel([levels[k]], dims, chans.length, budget, this.renderer.max3D) : null;
      const lv = asked ? { ...asked, index: k } : chooseLevel(levels, dims, chans.length, budget, this.renderer.max3D);
      if (!lv) throw new Error(`Even the coarsest level does not fit ${this.state.budgetMiB} MiB of GPU memory (or a ${this.renderer.max3D}-voxel texture); choose a larger budget.`);
      const level = levels[lv.index];
      setStatus("loading");
      if (info) info.textContent = `reading level ${lv.index} (${lv.shape.join(" × ")})…`;
      const sel = (c) =>
        level.arr.shape.map((n, d) => {
          if (d === dims.x || d === dims.y || d === dims.z) return null;
          if (d === chAxis) return c;
          return Math.min(n - 1, Math.floor(app.slice.index[d] / (level.factors[d] ?? 1)));
        });
      const results = await Promise.all(chans.map((c) => level.arr.get(sel(c?.index ?? 0))));
      if (token !== this.loads) return;
      const data = results.map((r) => this.#toXYZ(r, level.arr.shape, dims));
      this.renderer.setVolume(data, lv.shape);
      // The physical extent (level 0's shape × its scale), largest side 1.
      const phys = app.physical;
      const ext = [dims.x, dims.y, dims.z].map((d) => a.shape[d] * (phys?.[d]?.scale ?? 1));
      const m = Math.max(...ext);
      this.volume = { position, level: lv.index, path: level.path ?? null, shape: lv.shape, bytes: lv.bytes, extent: ext.map((e) => e / m), channels: chans.length, dims };
      this.onChange?.();
      if (info) info.textContent = `level ${lv.index} · ${lv.shape.join(" × ")} voxels · ${chans.length} channel${chans.length > 1 ? "s" : ""} · ${formatBytes(lv.bytes)} of ${this.state.budgetMiB} MiB`;
      this.#requestDraw();
    } catch (e) {
      if (token !== this.loads) return;
      this.volume = null;
      if (info) info.textContent = "";
      this.error = e;
      this.onError?.(e);
      setStatus("rendered");
    }
  }

  /** The slice's positions along the dimensions the volume does not show, as text. */
  #position() {
    const d = this.volume?.dims ?? { x: app.slice.xdim, y: app.slice.ydim, z: this.state.depth };
    return JSON.stringify(app.slice.index.filter((_, k) => k !== d.x && k !== d.y && k !== d.z));
  }

  /**
   * The read result (the level's dimensions, the depth, rows and columns
   * among them in array order) as a Float32Array with x fastest, then y,
   * then z.
   */
  #toXYZ(r, shape, dims) {
    const kept = shape.map((_, d) => d).filter((d) => d === dims.x || d === dims.y || d === dims.z);
    const n = kept.map((d) => shape[d]);
    const stride = new Array(kept.length);
    let s = 1;
    for (let k = kept.length - 1; k >= 0; k--) {
      stride[k] = s;
      s *= n[k];
    }
    const sx = stride[kept.indexOf(dims.x)];
    const sy = stride[kept.indexOf(dims.y)];
    const sz = stride[kept.indexOf(dims.z)];
    const [nx, ny, nz] = [shape[dims.x], shape[dims.y], shape[dims.z]];
    const src = r.data;
    const big = typeof src[0] === "bigint";
    const out = new Float32Array(nx * ny * nz);
    let o = 0;
    for (let z = 0; z < nz; z++)
      for (let y = 0; y < ny; y++) {
        let i = z * sz + y * sy;
        for (let x = 0; x < nx; x++, i += sx) out[o++] = big ? Number(src[i]) : src[i];
      }
    return out;
  }

  /** The camera: pixels per world unit, and the matrix from (css x, css y, depth) to texture coordinates. */
  camera() {
    const { cw, ch } = this.size();
    const [ex, ey, ez] = this.volume.extent;
    const s = this.state;
    const k = s.zoom * 0.9 * Math.min(cw / ex, ch / ey);
    const A = [1 / k, 0, 0, -cw / (2 * k), 0, -1 / k, 0, ch / (2 * k), 0, 0, 1, 0, 0, 0, 0, 1];
    const [cy, sy] = [Math.cos(s.yaw), Math.sin(s.yaw)];
    const [cp, sp] = [Math.cos(s.pitch), Math.sin(s.pitch)];
    // R = Rx(pitch)·Ry(yaw) takes world to view; its transpose takes view back.
    const R = [cy, 0, sy, sp * sy, cp, -sp * cy, -cp * sy, sp, cp * cy];
    const B = [R[0], R[3], R[6], 0, R[1], R[4], R[7], 0, R[2], R[5], R[8], 0, 0, 0, 0, 1];
    const C = [1 / ex, 0, 0, 0.5, 0, -1 / ey, 0, 0.5, 0, 0, -1 / ez, 0.5, 0, 0, 0, 1];
    const M = mul(C, mul(B, A));
    // Column-major for WebGL.
    const cm = new Float32Array(16);
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) cm[4 * j + i] = M[4 * i + j];
    return { pxPerWorld: k, pixToTex: cm };
  }

  size() {
    return { cw: this.host.clientWidth, ch: this.host.clientHeight };
  }

  #requestDraw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.draw();
    });
  }

  draw() {
    if (!this.renderer || !this.volume || !this.visible) return;
    const { cw, ch } = this.size();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(cw * dpr));
    const h = Math.max(1, Math.round(ch * dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.canvas.style.width = `${cw}px`;
      this.canvas.style.height = `${ch}px`;
    }
    const single = !app.channels;
    const channels = single
      ? [{ color: [255, 255, 255], lo: app.display.lo, hi: app.display.hi, visible: true }]
      : app.channels.slice(0, this.volume.channels).map((c) => ({ color: c.color, lo: c.lo, hi: c.hi, visible: c.visible }));
    if (single) this.renderer.setLut(table(app.display.cmap, app.display.reversed));
    this.shown = JSON.stringify([app.display, app.channels?.map((c) => [c.color, c.lo, c.hi, c.visible])]);
    const cam = this.camera();
    this.renderer.draw({ pixToTex: cam.pixToTex, crop: this.state.crop, channels, useLut: single, alpha: this.state.mode === "alpha", density: this.state.density, cssHeight: ch, dpr });
    this.draws++;
    this.lastCamera = { pxPerWorld: cam.pxPerWorld, cw, ch };
    setStatus("rendered");
    app.renders++;
  }

  /** What the view shows, for tests and the inspector. */
  describe() {
    const v = this.volume;
    return v && { ...v, extent: v.extent.slice(), shape: v.shape.slice(), state: { ...this.state, crop: { lo: this.state.crop.lo.slice(), hi: this.state.crop.hi.slice() } }, camera: this.lastCamera ?? null, draws: this.draws, max3D: this.renderer?.max3D };
  }
}
