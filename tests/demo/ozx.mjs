// A zipped OME-Zarr (.ozx, NGFF RFC-9) written by others: the image by
// zarrita.js (Zarr v3, OME-Zarr 0.5), the zip by Python's zipfile
// (tests/demo/ozx_zip.py). tests/demo/link.test.mjs opens it in the viewer.
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { here, python } from "./harness.mjs";
import { zarrita, ZarritaFileSystemStore } from "../../npm/dev/deps.mjs";

// The zipped image's values (channel, row, column), computed again by the test.
export const H = 192;
export const W = 256;
export const ozxValue = (c, y, x) => (c === 0 ? ((y * 5 + x * 3) % 2000) + 50 : (((y >> 4) + (x >> 4)) & 1) * 1500 + (y % 40) * 10);
export const ozxOmero = [
  { label: "ramp", color: "FF00FF", window: { start: 100, end: 1900 } },
  { label: "checks", color: "00FF00", window: { start: 0, end: 1800 } },
];

/**
 * Writes an OME-Zarr 0.5 image (Zarr v3, two levels of 2 × 192 × 256 uint16)
 * with zarrita.js into dir/img, and zips it as RFC-9 asks with Python's
 * zipfile into dir/img.ozx.
 */
export async function writeOzx(dir) {
  const src = path.join(dir, "img");
  const root = zarrita.root(new ZarritaFileSystemStore(src));
  const datasets = [0, 1].map((k) => ({ path: String(k), coordinateTransformations: [{ type: "scale", scale: [1, 0.5 * 2 ** k, 0.5 * 2 ** k] }] }));
  await zarrita.create(root, {
    attributes: {
      ome: {
        version: "0.5",
        multiscales: [{ name: "zipped", axes: [{ name: "c", type: "channel" }, { name: "y", type: "space", unit: "micrometer" }, { name: "x", type: "space", unit: "micrometer" }], datasets }],
        omero: { channels: ozxOmero.map((c) => ({ ...c, active: true })) },
      },
    },
  });
  for (const k of [0, 1]) {
    const s = 2 ** k;
    const [h, w] = [H / s, W / s];
    const arr = await zarrita.create(root.resolve(String(k)), { shape: [2, h, w], chunkShape: [1, 64, 64], dtype: "uint16", fillValue: 0, codecs: [{ name: "bytes", configuration: { endian: "little" } }], dimensionNames: ["c", "y", "x"] });
    const data = new Uint16Array(2 * h * w);
    for (let c = 0; c < 2; c++) for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data[(c * h + y) * w + x] = ozxValue(c, y * s, x * s);
    await zarrita.set(arr, null, { data, shape: [2, h, w], stride: [h * w, w, 1] });
  }
  execFileSync(python, [path.join(here, "ozx_zip.py"), src, path.join(dir, "img.ozx")], { stdio: ["ignore", "ignore", "pipe"] });
}
