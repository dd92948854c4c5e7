package zfp

import "math/bits"

// Integer coding of one block: the decorrelating transforms, the
// coefficient order, negabinary conversion and the embedded bit-plane coder.
// Every count is uint32 as in zfp (C's uint), so that out-of-range
// parameters wrap exactly as they do there.

type sint interface{ ~int32 | ~int64 }
type word interface{ ~uint32 | ~uint64 }

// withMaxBits reports whether the block may need more than maxbits bits, so
// that the rate-limited coder must be used.
func withMaxBits(maxbits, maxprec, size uint32) bool { return (maxprec+1)*size-1 > maxbits }

func decodeInts[U word](r *reader, maxbits, maxprec, intprec uint32, data []U) uint32 {
	for i := range data {
		data[i] = 0
	}
	size := uint32(len(data))
	kmin := uint32(0)
	if intprec > maxprec {
		kmin = intprec - maxprec
	}
	if withMaxBits(maxbits, maxprec, size) {
		if size <= 64 {
			return decodeFewInts(r, maxbits, kmin, intprec, data)
		}
		return decodeManyInts(r, maxbits, kmin, intprec, data)
	}
	start := r.tell()
	if size <= 64 {
		decodeFewIntsPrec(r, kmin, intprec, data)
	} else {
		decodeManyIntsPrec(r, kmin, intprec, data)
	}
	return uint32(r.tell() - start)
}

func decodeFewInts[U word](r *reader, maxbits, kmin, intprec uint32, data []U) uint32 {
	size := uint32(len(data))
	left := maxbits
	n := uint32(0)
	for k := intprec; left != 0 && k > kmin; {
		k--
		m := min(n, left)
		left -= m
		x := r.readBits(uint(m))
		for ; left != 0 && n < size; n++ {
			left--
			if r.readBit() == 0 {
				break
			}
			for ; left != 0 && n < size-1; n++ {
				left--
				if r.readBit() != 0 {
					break
				}
			}
			x += 1 << n
		}
		for i := 0; x != 0; i, x = i+1, x>>1 {
			data[i] += U(x&1) << k
		}
	}
	return maxbits - left
}

func decodeManyInts[U word](r *reader, maxbits, kmin, intprec uint32, data []U) uint32 {
	size := uint32(len(data))
	left := maxbits
	n := uint32(0)
	for k := intprec; left != 0 && k > kmin; {
		k--
		m := min(n, left)
		left -= m
		for i := uint32(0); i < m; i++ {
			data[i] += U(r.readBit()) << k
		}
		for ; left != 0 && n < size; n++ {
			left--
			if r.readBit() == 0 {
				break
			}
			for ; left != 0 && n < size-1; n++ {
				left--
				if r.readBit() != 0 {
					break
				}
			}
			data[n] += 1 << k
		}
	}
	return maxbits - left
}

func decodeFewIntsPrec[U word](r *reader, kmin, intprec uint32, data []U) {
	size := uint32(len(data))
	n := uint32(0)
	for k := intprec; k > kmin; {
		k--
		x := r.readBits(uint(n))
		for ; n < size && r.readBit() != 0; n++ {
			for ; n < size-1 && r.readBit() == 0; n++ {
			}
			x += 1 << n
		}
		for i := 0; x != 0; i, x = i+1, x>>1 {
			data[i] += U(x&1) << k
		}
	}
}

func decodeManyIntsPrec[U word](r *reader, kmin, intprec uint32, data []U) {
	size := uint32(len(data))
	n := uint32(0)
	for k := intprec; k > kmin; {
		k--
		for i := uint32(0); i < n; i++ {
			data[i] += U(r.readBit()) << k
		}
		for ; n < size && r.readBit() != 0; n++ {
			for ; n < size-1 && r.readBit() == 0; n++ {
			}
			data[n] += 1 << k
		}
	}
}

func encodeInts[U word](w *writer, maxbits, maxprec, intprec uint32, data []U) uint32 {
	size := uint32(len(data))
	kmin := uint32(0)
	if intprec > maxprec {
		kmin = intprec - maxprec
	}
	if withMaxBits(maxbits, maxprec, size) {
		if size <= 64 {
			return encodeFewInts(w, maxbits, kmin, intprec, data)
		}
		return encodeManyInts(w, maxbits, kmin, intprec, data)
	}
	start := w.tell()
	if size <= 64 {
		encodeFewIntsPrec(w, kmin, intprec, data)
	} else {
		encodeManyIntsPrec(w, kmin, intprec, data)
	}
	return uint32(w.tell() - start)
}

// plane returns bit k of every value, value i at bit i.
func plane[U word](data []U, k uint32) uint64 {
	var x uint64
	for i, v := range data {
		x += uint64((v>>k)&1) << i
	}
	return x
}

func nonzero(x uint64) uint64 {
	if x != 0 {
		return 1
	}
	return 0
}

func encodeFewInts[U word](w *writer, maxbits, kmin, intprec uint32, data []U) uint32 {
	size := uint32(len(data))
	left := maxbits
	n := uint32(0)
	for k := intprec; left != 0 && k > kmin; {
		k--
		x := plane(data, k)
		m := min(n, left)
		left -= m
		x = w.writeBits(x, uint(m))
		for ; left != 0 && n < size; x, n = x>>1, n+1 {
			left--
			if w.writeBit(nonzero(x)) == 0 {
				break
			}
			for ; left != 0 && n < size-1; x, n = x>>1, n+1 {
				left--
				if w.writeBit(x&1) != 0 {
					break
				}
			}
		}
	}
	return maxbits - left
}

func encodeManyInts[U word](w *writer, maxbits, kmin, intprec uint32, data []U) uint32 {
	size := uint32(len(data))
	left := maxbits
	n := uint32(0)
	for k := intprec; left != 0 && k > kmin; {
		k--
		m := min(n, left)
		left -= m
		for i := uint32(0); i < m; i++ {
			w.writeBit(uint64((data[i] >> k) & 1))
		}
		c := uint32(0)
		for i := m; i < size; i++ {
			c += uint32((data[i] >> k) & 1)
		}
		for ; left != 0 && n < size; n++ {
			left--
			if w.writeBit(nonzero(uint64(c))) == 0 {
				break
			}
			for c--; left != 0 && n < size-1; n++ {
				left--
				if w.writeBit(uint64((data[n]>>k)&1)) != 0 {
					break
				}
			}
		}
	}
	return maxbits - left
}

func encodeFewIntsPrec[U word](w *writer, kmin, intprec uint32, data []U) {
	size := uint32(len(data))
	n := uint32(0)
	for k := intprec; k > kmin; {
		k--
		x := plane(data, k)
		x = w.writeBits(x, uint(n))
		for ; n < size && w.writeBit(nonzero(x)) != 0; x, n = x>>1, n+1 {
			for ; n < size-1 && w.writeBit(x&1) == 0; x, n = x>>1, n+1 {
			}
		}
	}
}

func encodeManyIntsPrec[U word](w *writer, kmin, intprec uint32, data []U) {
	size := uint32(len(data))
	n := uint32(0)
	for k := intprec; k > kmin; {
		k--
		for i := uint32(0); i < n; i++ {
			w.writeBit(uint64((data[i] >> k) & 1))
		}
		c := uint32(0)
		for i := n; i < size; i++ {
			c += uint32((data[i] >> k) & 1)
		}
		for ; n < size && w.writeBit(nonzero(uint64(c))) != 0; n++ {
			for c--; n < size-1 && w.writeBit(uint64((data[n]>>k)&1)) == 0; n++ {
			}
		}
	}
}

// revPrecision is the number of bit planes a lossless coding of the block
// needs: the planes from the most significant down to the lowest set bit.
func revPrecision[U word](data []U, intprec uint32) uint32 {
	var m uint64
	for _, v := range data {
		m |= uint64(v)
	}
	if m == 0 {
		return 0
	}
	return intprec - uint32(bits.TrailingZeros64(m))
}

// Negabinary conversion: two's complement ↔ base −2 with the mask 0xaa…a.
func toNegabinary[I sint, U word](x I, mask U) U   { return (U(x) + mask) ^ mask }
func fromNegabinary[I sint, U word](x U, mask U) I { return I((x ^ mask) - mask) }

// The lifting steps along one line of 4 values at p[o], p[o+s], ...

func fwdLift[I sint](p []I, o, s int) {
	x, y, z, w := p[o], p[o+s], p[o+2*s], p[o+3*s]
	x += w
	x >>= 1
	w -= x
	z += y
	z >>= 1
	y -= z
	x += z
	x >>= 1
	z -= x
	w += y
	w >>= 1
	y -= w
	w += y >> 1
	y -= w >> 1
	p[o], p[o+s], p[o+2*s], p[o+3*s] = x, y, z, w
}

func invLift[I sint](p []I, o, s int) {
	x, y, z, w := p[o], p[o+s], p[o+2*s], p[o+3*s]
	y += w >> 1
	w -= y >> 1
	y += w
	w <<= 1
	w -= y
	z += x
	x <<= 1
	x -= z
	y += z
	z <<= 1
	z -= y
	w += x
	x <<= 1
	x -= w
	p[o], p[o+s], p[o+2*s], p[o+3*s] = x, y, z, w
}

func revFwdLift[I sint](p []I, o, s int) {
	x, y, z, w := p[o], p[o+s], p[o+2*s], p[o+3*s]
	w -= z
	z -= y
	y -= x
	w -= z
	z -= y
	w -= z
	p[o], p[o+s], p[o+2*s], p[o+3*s] = x, y, z, w
}

func revInvLift[I sint](p []I, o, s int) {
	x, y, z, w := p[o], p[o+s], p[o+2*s], p[o+3*s]
	w += z
	z += y
	w += z
	y += x
	z += y
	w += z
	p[o], p[o+s], p[o+2*s], p[o+3*s] = x, y, z, w
}

// forEachLine calls lift on every line of the block along axis (0 = x, the
// fastest) for a block of dims dimensions.
func forEachLine[I sint](p []I, dims, axis int, lift func([]I, int, int)) {
	stride := 1 << (2 * axis)
	lines := 1 << (2 * (dims - 1))
	for l := 0; l < lines; l++ {
		// Insert a zero digit (base 4) at position axis into l.
		low := l & (stride - 1)
		o := low + (l-low)*4
		lift(p, o, stride)
	}
}

// Forward transforms go along x, then y, z, w; inverse ones the other way.
func fwdXform[I sint](p []I, dims int, lift func([]I, int, int)) {
	for axis := 0; axis < dims; axis++ {
		forEachLine(p, dims, axis, lift)
	}
}

func invXform[I sint](p []I, dims int, lift func([]I, int, int)) {
	for axis := dims - 1; axis >= 0; axis-- {
		forEachLine(p, dims, axis, lift)
	}
}
