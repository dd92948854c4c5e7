// An OME-Zarr image as the view shows it: its levels and description
// (ome.js), the channels of a composite with their colours and limits,
// physical axes for the scale bar, ticks and readouts, the default z and
// t, and its label images as overlays.
import { labelNames, imageLabelOf, multiscalesOf, openPyramid } from "./ome.js";
import { Layer } from "./layers.js";

/**
 * Opens the image a group describes: {levels, axes, name, image, labels},
 * labels being the names of its label images (none when it has no
 * "labels" group, or the store cannot tell).
 */
export async function openImage(group, ms) {
  const pyr = await openPyramid(group, ms);
  let labels = [];
  let labelsGroup = null;
  try {
    labelsGroup = await group.open("labels", { kind: "group" });
    labels = labelNames(labelsGroup.attrs);
  } catch {
    /* no labels */
  }
  // A composite is possible for an axis of channels or omero settings.
  pyr.image.channelsAvailable = pyr.image.channelAxis >= 0 || pyr.image.omero;
  return { ...pyr, labels, labelsGroup };
}

/**
 * The channels of a composite for the view: each with its colour, its
 * limits from the omero window (or auto: the percentiles of the data in
 * view), shown when omero says active. dim is the channel axis (-1: the
 * image is one channel that omero colours).
 */
export function compositeChannels(image) {
  return {
    dim: image.channelAxis,
    list: image.channels.map((c, i) => ({
      index: i,
      label: c.label,
      color: c.color.slice(),
      lo: c.window ? c.window.start : 0,
      hi: c.window ? c.window.end : 1,
      auto: !c.window,
      visible: c.active,
      inverted: c.inverted,
    })),
  };
}

/** Per dimension {scale, translation, unit} from the image's transforms, or null without them. */
export function physicalAxes(image) {
  if (!image?.scale) return null;
  return image.scale.map((s, d) => ({ scale: s, translation: image.translation?.[d] ?? 0, unit: image.axes?.[d]?.unit }));
}

/**
 * The starting index: omero's defaultZ and defaultT on the z and time
 * axes (clamped), 0 elsewhere.
 */
export function defaultIndex(image, shape) {
  const index = shape.map(() => 0);
  image?.axes?.forEach((a, d) => {
    const v = a.type === "time" || a.name === "t" ? image.defaultT : a.name === "z" ? image.defaultZ : undefined;
    if (v !== undefined) index[d] = Math.min(shape[d] - 1, v);
  });
  return index;
}

/**
 * Opens a label image of labelsGroup for the view: {layer, colors, name},
 * or null when it does not line up with the image's y and x axes.
 */
export async function openLabel(labelsGroup, name, imageArr, axes, slice) {
  const g = await labelsGroup.open(name, { kind: "group" });
  const ms = multiscalesOf(g);
  if (!ms) return null;
  const { levels } = await openPyramid(g, ms);
  const names = Array.isArray(ms.axes) ? ms.axes.map((a) => (typeof a === "string" ? a : a?.name)) : null;
  const imageNames = axes?.map((a) => a.name);
  if (!names || !imageNames) return null;
  const layer = Layer.matched(
    imageArr.shape,
    imageNames,
    levels.map((l) => l.arr),
    names,
    slice,
  );
  if (!layer) return null;
  return { layer, colors: imageLabelOf(g.attrs)?.colors ?? new Map(), name };
}
