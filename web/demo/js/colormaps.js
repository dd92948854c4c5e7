// Colormaps as 256-entry RGB tables, built by linear interpolation between
// published anchor colours: for viridis, magma, inferno, plasma and cividis
// the ten evenly spaced samples (0, 1/9, …, 1) that R's viridisLite prints
// for n = 10; for RdBu the 11-class ColorBrewer scheme (reversed, so low
// values are blue); the rest are simple ramps.

const tenStops = (hexes) => hexes.map((h, i) => [i / (hexes.length - 1), h]);

/** Anchor colours per colormap: [[position 0..1, "#rrggbb"], ...]. */
export const anchors = {
  viridis: tenStops(["#440154", "#482878", "#3e4a89", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6dcd59", "#b4de2c", "#fde725"]),
  magma: tenStops(["#000004", "#180f3e", "#451077", "#721f81", "#9f2f7f", "#cd4071", "#f1605d", "#fd9567", "#fec98d", "#fcfdbf"]),
  inferno: tenStops(["#000004", "#1b0c42", "#4b0c6b", "#781c6d", "#a52c60", "#cf4446", "#ed6925", "#fb9a06", "#f7d03c", "#fcffa4"]),
  plasma: tenStops(["#0d0887", "#47039f", "#7301a8", "#9c179e", "#bd3786", "#d8576b", "#ed7953", "#fa9e3b", "#fdc926", "#f0f921"]),
  cividis: tenStops(["#00204d", "#00336f", "#39486b", "#575c6d", "#707173", "#8a8779", "#a69d75", "#c4b56c", "#e4cf5b", "#ffea46"]),
  gray: [[0, "#000000"], [1, "#ffffff"]],
  green: [[0, "#000000"], [1, "#00ff00"]],
  magenta: [[0, "#000000"], [1, "#ff00ff"]],
  hot: [[0, "#000000"], [0.375, "#ff0000"], [0.75, "#ffff00"], [1, "#ffffff"]],
  RdBu_r: tenStops(["#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b", "#67001f"]),
};

/** Names in the order the picker lists them, with labels. */
export const colormapList = [
  ["viridis", "viridis"],
  ["magma", "magma"],
  ["inferno", "inferno"],
  ["plasma", "plasma"],
  ["cividis", "cividis"],
  ["gray", "gray"],
  ["green", "green (fluorescence)"],
  ["magenta", "magenta (fluorescence)"],
  ["hot", "hot"],
  ["RdBu_r", "RdBu_r (diverging)"],
];

function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The colour of a colormap at t in [0, 1], interpolated from its anchors (floats). */
export function colorAt(name, t) {
  const a = anchors[name];
  if (!a) throw new Error(`no colormap ${name}`);
  t = Math.min(1, Math.max(0, t));
  for (let i = 1; i < a.length; i++) {
    const [p1, h1] = a[i];
    if (t <= p1 || i === a.length - 1) {
      const [p0, h0] = a[i - 1];
      const f = p1 > p0 ? (t - p0) / (p1 - p0) : 0;
      const c0 = rgb(h0);
      const c1 = rgb(h1);
      return [0, 1, 2].map((k) => c0[k] + (c1[k] - c0[k]) * f);
    }
  }
  return rgb(a[a.length - 1][1]);
}

const tables = new Map();

/**
 * The 256-entry table (Uint8Array of r, g, b triples). Entry i is the
 * colour at i/255; a value maps to entry round(t·255), t = (v-lo)/(hi-lo).
 */
export function table(name, reversed = false) {
  const key = `${name}${reversed ? ":r" : ""}`;
  let tab = tables.get(key);
  if (!tab) {
    tab = new Uint8Array(256 * 3);
    for (let i = 0; i < 256; i++) {
      const c = colorAt(name, reversed ? 1 - i / 255 : i / 255);
      for (let k = 0; k < 3; k++) tab[3 * i + k] = Math.round(c[k]);
    }
    tables.set(key, tab);
  }
  return tab;
}

/** A CSS linear-gradient for previews. */
export function cssGradient(name, reversed = false) {
  const tab = table(name, reversed);
  const stops = [];
  for (let i = 0; i <= 16; i++) {
    const j = Math.round((i / 16) * 255);
    stops.push(`rgb(${tab[3 * j]},${tab[3 * j + 1]},${tab[3 * j + 2]}) ${(i / 16) * 100}%`);
  }
  return `linear-gradient(to right, ${stops.join(", ")})`;
}
