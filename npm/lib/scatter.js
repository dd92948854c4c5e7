// Copies the region of a decoded chunk a read needs into the read's result:
// the one strided copy of the package (the executor, the decode workers and
// the engine's own reads all place chunks with it). Both arrays are C
// order; runs that are contiguous on both sides go as one TypedArray.set,
// and trailing dimensions that span both arrays whole merge into one run.

/**
 * @param {Uint8Array} dst the result's bytes (shape full)
 * @param {ArrayLike<number>} full the result's shape
 * @param {Uint8Array} src the decoded chunk's bytes (shape shape)
 * @param {ArrayLike<number>} shape the chunk's shape
 * @param {ArrayLike<number>} inR per dimension start, step, count of the region read from the chunk
 * @param {ArrayLike<number>} outR per dimension start, step of where it lands in the result
 * @param {number} itemSize bytes per element
 */
export function scatter(dst, full, src, shape, inR, outR, itemSize) {
  const ndim = full.length;
  if (ndim === 0) {
    dst.set(src.subarray(0, itemSize), 0);
    return;
  }
  // Byte strides of the chunk and of the result.
  const cs = new Array(ndim);
  const os = new Array(ndim);
  let c = itemSize;
  let o = itemSize;
  for (let d = ndim - 1; d >= 0; d--) {
    cs[d] = c;
    os[d] = o;
    c *= shape[d];
    o *= full[d];
  }
  let srcBase = 0;
  let dstBase = 0;
  const inStep = new Array(ndim);
  const outStep = new Array(ndim);
  const count = new Array(ndim);
  for (let d = 0; d < ndim; d++) {
    srcBase += inR[3 * d] * cs[d];
    dstBase += outR[2 * d] * os[d];
    inStep[d] = inR[3 * d + 1] * cs[d];
    outStep[d] = outR[2 * d + 1] * os[d];
    count[d] = inR[3 * d + 2];
    if (count[d] === 0) return;
  }
  // The innermost run: contiguous on both sides, merged with outer
  // dimensions while they continue it on both sides.
  let last = ndim - 1;
  let run = 0; // bytes, when contiguous
  if ((inStep[last] === itemSize || count[last] === 1) && (outStep[last] === itemSize || count[last] === 1)) {
    run = count[last] * itemSize;
    while (last > 0 && inStep[last - 1] === run && outStep[last - 1] === run) {
      last--;
      run *= count[last];
    }
  }
  const outer = run ? last : ndim - 1; // dimensions walked one by one
  const idx = new Array(outer).fill(0);
  let s = srcBase;
  let t = dstBase;
  const words = itemSize % 4 === 0 && (src.byteOffset & 3) === 0 && (dst.byteOffset & 3) === 0;
  const s32 = !run && words ? new Uint32Array(src.buffer, src.byteOffset, src.byteLength >> 2) : null;
  const d32 = !run && words ? new Uint32Array(dst.buffer, dst.byteOffset, dst.byteLength >> 2) : null;
  for (;;) {
    if (run) {
      dst.set(src.subarray(s, s + run), t);
    } else if (s32) {
      const n = count[ndim - 1];
      const w = itemSize >> 2;
      const si = inStep[ndim - 1] >> 2;
      const ti = outStep[ndim - 1] >> 2;
      let a = s >> 2;
      let b = t >> 2;
      if (w === 1) {
        for (let i = 0; i < n; i++, a += si, b += ti) d32[b] = s32[a];
      } else {
        for (let i = 0; i < n; i++, a += si, b += ti) for (let k = 0; k < w; k++) d32[b + k] = s32[a + k];
      }
    } else {
      const n = count[ndim - 1];
      const si = inStep[ndim - 1];
      const ti = outStep[ndim - 1];
      let a = s;
      let b = t;
      for (let i = 0; i < n; i++, a += si, b += ti) for (let k = 0; k < itemSize; k++) dst[b + k] = src[a + k];
    }
    // Next position of the outer dimensions (an odometer).
    let d = outer - 1;
    for (; d >= 0; d--) {
      idx[d]++;
      s += inStep[d];
      t += outStep[d];
      if (idx[d] < count[d]) break;
      s -= inStep[d] * count[d];
      t -= outStep[d] * count[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

/** Fills bytes with copies of one element's bytes. */
export function fillWith(bytes, element) {
  const n = element.length;
  if (bytes.length === 0 || n === 0) return;
  bytes.set(element.subarray(0, Math.min(n, bytes.length)), 0);
  for (let have = n; have < bytes.length; have *= 2) bytes.copyWithin(have, 0, Math.min(have, bytes.length - have));
}
