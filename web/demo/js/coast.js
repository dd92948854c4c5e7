// Coastlines: Natural Earth's land outlines (public domain), as the npm
// package world-atlas (ISC) distributes them in TopoJSON, served with the
// page (web/demo/node_modules; nothing is fetched from elsewhere). The
// 1:110m outlines load first (18 KB brotli); the 1:50m ones (150 KB) only
// when a map is zoomed in to less than 60° across.

const FILES = { "110m": "node_modules/world-atlas/land-110m.json", "50m": "node_modules/world-atlas/land-50m.json" };
const loaded = new Map(); // scale → Promise<Float64Array[]>

/**
 * The land outlines at a scale ("110m" or "50m"): a promise of polylines,
 * each a Float64Array of [lon, lat, lon, lat, …] in degrees.
 */
export function coastlines(scale = "110m") {
  if (!loaded.has(scale)) {
    loaded.set(
      scale,
      fetch(new URL(`../${FILES[scale]}`, import.meta.url))
        .then((r) => {
          if (!r.ok) throw new Error(`${FILES[scale]}: HTTP ${r.status} (run make demo-deps)`);
          return r.json();
        })
        .then(decodeLand),
    );
  }
  return loaded.get(scale);
}

/**
 * The arcs of a TopoJSON topology's "land" object as polylines of degrees
 * (quantized positions are delta-encoded; the transform scales them).
 */
export function decodeLand(topo) {
  const used = new Set();
  const walk = (a) => {
    if (typeof a === "number") used.add(a < 0 ? ~a : a);
    else if (Array.isArray(a)) a.forEach(walk);
  };
  for (const g of topo.objects.land.geometries ?? [topo.objects.land]) walk(g.arcs);
  const [sx, sy] = topo.transform?.scale ?? [1, 1];
  const [tx, ty] = topo.transform?.translate ?? [0, 0];
  const out = [];
  for (const i of [...used].sort((a, b) => a - b)) {
    const arc = topo.arcs[i];
    const line = new Float64Array(arc.length * 2);
    let x = 0;
    let y = 0;
    arc.forEach(([dx, dy], k) => {
      if (topo.transform) {
        x += dx;
        y += dy;
      } else {
        x = dx;
        y = dy;
      }
      line[2 * k] = x * sx + tx;
      line[2 * k + 1] = y * sy + ty;
    });
    out.push(line);
  }
  return out;
}
