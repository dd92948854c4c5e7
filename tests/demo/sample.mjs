// The demo's sample values, computed here the way web/demo/gen/main.go
// computes them (same operations in float64, same rounding), so the test
// knows what the viewer should draw without reading the store.

export const nTime = 12;
export const nLat = 180;
export const nLon = 360;
export const cellsSize = 2048;

const lat = (i) => 89.5 - i;
const lon = (j) => -179.5 + j;

/** Temperature (float32) at month t, row i, column j. */
export function temperature(t, i, j) {
  const la = (lat(i) * Math.PI) / 180;
  const lo = (lon(j) * Math.PI) / 180;
  const s = Math.sin(la);
  const season = Math.cos((2 * Math.PI * t) / 12);
  const v = 300 - 50 * s * s - 15 * s * season + 4 * Math.sin(3 * lo + 0.5 * t) * Math.cos(2 * la);
  return Math.fround(Math.round(v * 64) / 64);
}

/** Every value of the month-t slice, row-major. */
export function temperatureSlice(t) {
  const out = new Float64Array(nLat * nLon);
  for (let i = 0; i < nLat; i++) for (let j = 0; j < nLon; j++) out[i * nLon + j] = temperature(t, i, j);
  return out;
}

export function hash(i, j) {
  let h = (Math.imul(i, 0x9e3779b1) ^ Math.imul(j, 0x85ebca77)) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x2c1b3c6d) >>> 0;
  h = (h ^ (h >>> 12)) >>> 0;
  h = Math.imul(h, 0x297a2d39) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  return h;
}

function bump(u) {
  if (u <= -1 || u >= 1) return 0;
  const w = 1 - u * u;
  return w * w;
}

/** The centre of the cell in grid square (ci, cj). */
export function cellCentre(ci, cj) {
  const g = 128;
  const h = hash(ci, cj);
  return {
    y: ci * g + g / 2 + ((h & 0xff) / 255) * 60 - 30,
    x: cj * g + g / 2 + (((h >>> 8) & 0xff) / 255) * 60 - 30,
  };
}

/** The cells image (uint16) at row y, column x. */
export function cells(y, x) {
  const g = 128;
  const ry = y / cellsSize - 0.5;
  const rx = x / cellsSize - 0.5;
  let v = 180 + 400 * (1 - 2 * (ry * ry + rx * rx));
  const gy = Math.floor(y / g);
  const gx = Math.floor(x / g);
  for (let di = -1; di <= 1; di++) {
    for (let dj = -1; dj <= 1; dj++) {
      const ci = gy + di;
      const cj = gx + dj;
      if (ci < 0 || cj < 0 || ci >= cellsSize / g || cj >= cellsSize / g) continue;
      const h = hash(ci, cj);
      const cy = ci * g + g / 2 + ((h & 0xff) / 255) * 60 - 30;
      const cx = cj * g + g / 2 + (((h >>> 8) & 0xff) / 255) * 60 - 30;
      const r = 10 + (((h >>> 16) & 0xff) / 255) * 14;
      const b = 1500 + (h >>> 24) * 40;
      const dy = y - cy;
      const dx = x - cx;
      const d = Math.sqrt(dy * dy + dx * dx);
      v += b * bump(d / r) + 0.6 * b * bump((d - 1.3 * r) / 3);
    }
  }
  v = 16 * roundHalfAway(v / 16);
  return Math.min(v, 65535);
}

/** Go's math.Round (half away from zero). */
function roundHalfAway(x) {
  return Math.sign(x) * Math.round(Math.abs(x));
}

/** Nearest-rank percentile as the viewer defines it: sorted[round(p·(n-1))]. */
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))];
}

// The movie (t, z, y, x): cells drifting on a flat background.
export const movieT = 20;
export const movieZ = 10;
export const movieSize = 1024;
const movieGrid = 128;
const movieBackground = 128;

function movieCell(ci, cj, t, z) {
  const h = hash(ci + 1000, cj + 2000);
  if ((h & 3) === 0) return null;
  const phase = (((h >>> 2) & 0xff) / 256) * 2 * Math.PI;
  const angle = (2 * Math.PI * t) / movieT + phase;
  const cy = ci * movieGrid + movieGrid / 2 + (((h >>> 10) & 0xff) / 255) * 40 - 20 + 10 * Math.sin(angle);
  const cx = cj * movieGrid + movieGrid / 2 + (((h >>> 18) & 0xff) / 255) * 40 - 20 + 10 * Math.cos(angle);
  const focus = 1.5 + (((h >>> 26) & 0x3f) / 63) * 6;
  const dz = (z - focus) / 2.5;
  const r = (8 + (((h >>> 4) & 0x3f) / 63) * 8) * (1 + 0.1 * Math.abs(z - focus));
  const b = (3000 + ((h >>> 12) & 0xff) * 30) / (1 + dz * dz);
  return { cy, cx, r, b };
}

/** The movie's value at time t, depth z, row y, column x. */
export function movie(t, z, y, x) {
  let v = movieBackground;
  const gy = Math.floor(y / movieGrid);
  const gx = Math.floor(x / movieGrid);
  for (let ci = gy - 1; ci <= gy + 1; ci++) {
    for (let cj = gx - 1; cj <= gx + 1; cj++) {
      if (ci < 0 || cj < 0 || ci >= movieSize / movieGrid || cj >= movieSize / movieGrid) continue;
      const c = movieCell(ci, cj, t, z);
      if (!c) continue;
      const dy = y - c.cy;
      const dx = x - c.cx;
      v += c.b * bump(Math.sqrt(dy * dy + dx * dx) / c.r);
    }
  }
  return 64 * roundHalfAway(v / 64);
}
