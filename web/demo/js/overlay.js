// Drawn over the slice view: a scale bar in physical units (OME-Zarr
// coordinateTransformations and axes[].unit) and axis ticks along the top
// and left edges, in array indices or physical coordinates.
import { niceLength, unitInfo } from "./ome.js";
import { formatNumber } from "./format.js";

const FONT = "11px system-ui, sans-serif";

/**
 * Draws a scale bar for the x axis (bottom right) when its physical scale
 * is known: physical = {scale: number, unit?: string} per pixel of level 0.
 * Returns what it drew: {px, value, text, x0, x1, y} (CSS pixels) or null.
 */
export function drawScaleBar(ctx, view, physical) {
  if (!physical || !(physical.scale > 0)) return null;
  const z = view.view.z;
  const nice = niceLength((120 / z) * physical.scale, physical.unit);
  if (!nice) return null;
  const px = (nice.value / physical.scale) * z;
  const x1 = Math.round(view.cw - 18);
  const x0 = Math.round(x1 - px);
  const y = Math.round(view.ch - 22);
  ctx.save();
  ctx.font = FONT;
  const tw = ctx.measureText(nice.text).width;
  ctx.fillStyle = "rgba(0, 0, 0, 0.45)";
  ctx.fillRect(Math.min(x0, x1 - tw) - 8, y - 20, Math.max(px, tw) + 16, 32);
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(x0, y, x1 - x0, 4);
  ctx.textAlign = "right";
  ctx.textBaseline = "bottom";
  ctx.fillText(nice.text, x1, y - 3);
  ctx.restore();
  return { px: x1 - x0, exact: px, value: nice.value, text: nice.text, x0, x1, y };
}

/** 1, 2, 2.5 or 5 × 10^k ticks at least minPx apart for a scale of pxPerUnit. */
function tickStep(pxPerUnit, minPx, integer) {
  const raw = minPx / pxPerUnit;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  if (integer) step = Math.max(1, Math.round(step));
  return step;
}

/**
 * Ticks along the top (columns) and left (rows) edges. mode "index" labels
 * array indices; "physical" labels physical coordinates where the axis
 * has a scale (index · scale + translation), in its unit.
 * axes: {y: {scale, translation, unit}, x: {…}} (null members: indices).
 */
export function drawTicks(ctx, view, mode, axes) {
  if (mode === "off") return;
  ctx.save();
  ctx.font = FONT;
  ctx.fillStyle = "rgba(22, 24, 29, 0.7)";
  ctx.fillRect(0, 0, view.cw, 18);
  ctx.fillRect(0, 18, 44, view.ch - 18);
  ctx.fillStyle = "#d7dce3";
  ctx.strokeStyle = "#d7dce3";
  ctx.lineWidth = 1;
  const a = view.toData(0, 0);
  const b = view.toData(view.cw, view.ch);
  for (const which of ["x", "y"]) {
    const phys = mode === "physical" && axes?.[which]?.scale > 0 ? axes[which] : null;
    const scale = phys ? phys.scale : 1;
    const shift = phys ? phys.translation ?? 0 : 0;
    const lo = Math.min(which === "x" ? a.x : a.y, which === "x" ? b.x : b.y);
    const hi = Math.max(which === "x" ? a.x : a.y, which === "x" ? b.x : b.y);
    // Coordinates u = index · scale + shift; screen from the index.
    const step = tickStep(view.view.z / scale, which === "x" ? 80 : 50, !phys);
    const u0 = Math.ceil((lo * scale + shift) / step) * step;
    const unit = phys ? unitInfo(phys.unit)?.symbol ?? "" : "";
    for (let u = u0; u <= hi * scale + shift + 1e-9 * step; u += step) {
      const idx = (u - shift) / scale;
      // Pixel i covers [i, i + 1) in the view; its coordinate is its centre.
      const p = view.toScreen(which === "x" ? idx + 0.5 : 0, which === "y" ? idx + 0.5 : 0);
      const label = formatNumber(Number(u.toPrecision(10)));
      if (which === "x") {
        if (p.px < 48 || p.px > view.cw - 4) continue;
        ctx.beginPath();
        ctx.moveTo(Math.round(p.px) + 0.5, 12);
        ctx.lineTo(Math.round(p.px) + 0.5, 18);
        ctx.stroke();
        ctx.textAlign = "center";
        ctx.textBaseline = "top";
        ctx.fillText(label, p.px, 1);
      } else {
        if (p.py < 24 || p.py > view.ch - 4) continue;
        ctx.beginPath();
        ctx.moveTo(38, Math.round(p.py) + 0.5);
        ctx.lineTo(44, Math.round(p.py) + 0.5);
        ctx.stroke();
        ctx.textAlign = "right";
        ctx.textBaseline = "middle";
        ctx.fillText(label, 36, p.py);
      }
    }
    if (unit) {
      ctx.textAlign = "left";
      ctx.textBaseline = "top";
      ctx.fillText(which === "x" ? unit : "", 4, 1);
    }
  }
  ctx.restore();
}
