// Playback of a non-displayed axis (time, z, channel …): one step per
// frame interval at the chosen rate, never faster than frames are drawn
// (a frame not drawn yet is waited for, not skipped), reading the next
// frames ahead while the current one is shown.

const AHEAD = 3; // frames read ahead

export class Player {
  /**
   * @param {{getIndex: () => number[], shape: () => number[], step: (dim: number, value: number) => void,
   *   rendered: () => boolean, prefetch: (indices: number[][]) => void, onState?: (state) => void}} host
   */
  constructor(host) {
    this.host = host;
    this.dim = null;
    this.fps = 5;
    this.timer = 0;
    this.shown = 0;
    this.started = 0;
  }

  get playing() {
    return this.dim !== null;
  }

  /** Plays dim at fps frames a second, from the current index, looping. */
  play(dim, fps = this.fps) {
    this.stop();
    this.dim = dim;
    this.fps = fps;
    this.shown = 0;
    this.started = performance.now();
    this.last = this.started;
    this.#ahead();
    this.#schedule();
    this.host.onState?.(this.state());
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = 0;
    const was = this.dim;
    this.dim = null;
    this.host.prefetch([]);
    if (was !== null) this.host.onState?.(this.state());
  }

  toggle(dim) {
    if (this.dim === dim) this.stop();
    else this.play(dim, this.fps);
  }

  setRate(fps) {
    this.fps = fps;
    if (this.playing) this.host.onState?.(this.state());
  }

  /** {dim, fps, achieved (frames a second since play), shown} */
  state() {
    const secs = (performance.now() - this.started) / 1000;
    return { dim: this.dim, fps: this.fps, shown: this.shown, achieved: this.playing && secs > 0.5 ? this.shown / secs : null };
  }

  #next(v, k = 1) {
    const n = this.host.shape()[this.dim];
    return (v + k) % n;
  }

  /** Asks the view to read the next frames. */
  #ahead() {
    const index = this.host.getIndex();
    const n = this.host.shape()[this.dim];
    const out = [];
    for (let k = 1; k <= Math.min(AHEAD, n - 1); k++) {
      const at = index.slice();
      at[this.dim] = this.#next(index[this.dim], k);
      out.push(at);
    }
    this.host.prefetch(out);
  }

  #schedule() {
    const wait = Math.max(0, this.last + 1000 / this.fps - performance.now());
    this.timer = setTimeout(() => this.#tick(), wait);
  }

  #tick() {
    if (!this.playing) return;
    if (!this.host.rendered()) {
      // The frame shown is not drawn yet: look again next frame.
      this.timer = setTimeout(() => this.#tick(), 16);
      return;
    }
    this.last = performance.now();
    const index = this.host.getIndex();
    this.host.step(this.dim, this.#next(index[this.dim]));
    this.shown++;
    this.#ahead();
    this.host.onState?.(this.state());
    this.#schedule();
  }
}
