// The values of the demo viewer's sample Icechunk repository
// (web/demo/gen/icechunk/history.icechunk), shared by the generator that
// writes them with the official package (gen.mjs, repository
// "history.icechunk") and the viewer's browser test, which checks the
// drawn pixels against them. Plain functions: no package is loaded here.

/** temperature's shape and chunk shape. */
export const historyShape = [48, 64];
export const historyChunks = [16, 16];

/**
 * The commits the generator makes, in order: where each goes and the
 * version of the values it writes ("survey", "spot", "recalibrated",
 * "cold-band"). The tag v1 names the second commit; the branch
 * experiment starts there.
 */
export const historyCommits = [
  { branch: "main", values: "survey", message: "first survey" },
  { branch: "main", values: "spot", message: "a warm spot appears" },
  { branch: "main", values: "recalibrated", message: "recalibrated: +5 everywhere" },
  { branch: "experiment", values: "cold-band", message: "experiment: a cold band across rows 30-37" },
];

/** temperature[i, j] at a version of the values (exact in float32: quarters). */
export function historyValue(values, i, j) {
  const survey = 20 + (i + j) / 4;
  if (values === "survey") return survey;
  const d2 = (i - 24) ** 2 + (j - 20) ** 2;
  const spot = survey + Math.round(120 * Math.exp(-d2 / 60)) / 4;
  if (values === "spot") return spot;
  if (values === "recalibrated") return spot + 5;
  if (values === "cold-band") return i >= 30 && i < 38 ? spot - 15 : spot;
  throw new Error(`no values named ${values}`);
}

/** The whole array (C order) at a version of the values. */
export function historyArray(values) {
  const [h, w] = historyShape;
  const out = new Float32Array(h * w);
  for (let i = 0; i < h; i++) for (let j = 0; j < w; j++) out[i * w + j] = historyValue(values, i, j);
  return out;
}
