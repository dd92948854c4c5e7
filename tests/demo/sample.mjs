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

/** The cell of grid square (ci, cj): centre, radius, brightness. */
export function cellOf(ci, cj) {
  const g = 128;
  const h = hash(ci, cj);
  return {
    y: ci * g + g / 2 + ((h & 0xff) / 255) * 60 - 30,
    x: cj * g + g / 2 + (((h >>> 8) & 0xff) / 255) * 60 - 30,
    r: 10 + (((h >>> 16) & 0xff) / 255) * 14,
    b: 1500 + (h >>> 24) * 40,
  };
}

/** The centre of the cell in grid square (ci, cj). */
export function cellCentre(ci, cj) {
  const { y, x } = cellOf(ci, cj);
  return { y, x };
}

/** Calls f(ci, cj) for the cells that can reach (y, x), row-major. */
function eachCell(y, x, f) {
  const g = 128;
  const gy = Math.floor(y / g);
  const gx = Math.floor(x / g);
  for (let ci = gy - 1; ci <= gy + 1; ci++) {
    for (let cj = gx - 1; cj <= gx + 1; cj++) {
      if (ci >= 0 && cj >= 0 && ci < cellsSize / g && cj < cellsSize / g) f(ci, cj);
    }
  }
}

function quantize16(v) {
  return Math.min(16 * roundHalfAway(v / 16), 65535);
}

/** The cells image (uint16) at row y, column x. */
export function cells(y, x) {
  const ry = y / cellsSize - 0.5;
  const rx = x / cellsSize - 0.5;
  let v = 180 + 400 * (1 - 2 * (ry * ry + rx * rx));
  eachCell(y, x, (ci, cj) => {
    const c = cellOf(ci, cj);
    const dy = y - c.y;
    const dx = x - c.x;
    const d = Math.sqrt(dy * dy + dx * dx);
    v += c.b * bump(d / c.r) + 0.6 * c.b * bump((d - 1.3 * c.r) / 3);
  });
  return quantize16(v);
}

/** sample-ome.zarr's second channel: nuclei at the cells' centres. */
export function nuclei(y, x) {
  let v = 96;
  eachCell(y, x, (ci, cj) => {
    const c = cellOf(ci, cj);
    const dy = y - c.y;
    const dx = x - c.x;
    v += (800 + ((hash(ci, cj) >>> 20) & 0xff) * 12) * bump(Math.sqrt(dy * dy + dx * dx) / (0.45 * c.r));
  });
  return quantize16(v);
}

/** sample-ome.zarr's label image: 1 + the cell's number inside its disk, else 0. */
export function cellLabel(y, x) {
  let out = 0;
  eachCell(y, x, (ci, cj) => {
    const c = cellOf(ci, cj);
    const dy = y - c.y;
    const dx = x - c.x;
    if (out === 0 && Math.sqrt(dy * dy + dx * dx) < c.r) out = ci * (cellsSize / 128) + cj + 1;
  });
  return out;
}

/** The rgba image-label lists for an odd label value (even ones: none). */
export function labelRGBA(v) {
  if (v % 2 === 0) return null;
  const h = hash(v, 7);
  return [(h & 0xff) | 0x40, ((h >>> 8) & 0xff) | 0x40, ((h >>> 16) & 0xff) | 0x40, 255];
}

/** The plate's value in well (row, col), field f, channel c, at (y, x). */
export function plateValue(row, col, f, c, y, x) {
  const well = row * 3 + col;
  return 1000 * (c + 1) + 100 * well + 50 * f + 40 * ((Math.floor(y / 16) + Math.floor(x / 16)) % 2);
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
