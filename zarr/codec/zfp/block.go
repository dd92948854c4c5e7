package zfp

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// coder codes the blocks of one field. I and U are the signed and unsigned
// integers of the value size (int32/uint32 for int32 and float32 values).
type coder[I sint, U word] struct {
	typ     Type
	p       Params
	dims    int
	shape   [4]int // nx, ny, nz, nw (1 beyond dims)
	perm    []uint8
	intprec uint32
	ebits   uint // exponent bits of a float type
	ebias   int  // exponent bias of a float type
	pbits   uint // bits of a reversible block's precision
	mask    U    // negabinary mask
	iblock  []I
	ublock  []U
	values  []U // the block's values as bits
}

func newCoder[I sint, U word](f Field, p Params) *coder[I, U] {
	c := &coder[I, U]{typ: f.Type, p: p, dims: len(f.Shape), shape: [4]int{1, 1, 1, 1}}
	for i, d := range f.Shape {
		c.shape[len(f.Shape)-1-i] = d
	}
	size := 1 << (2 * c.dims)
	c.perm = perms[c.dims]
	c.intprec = uint32(bits.OnesCount64(uint64(^U(0))))
	nega := uint64(0xaaaaaaaaaaaaaaaa)
	c.mask = U(nega) // the low half for 32-bit values
	if c.intprec == 32 {
		c.pbits, c.ebits, c.ebias = 5, 8, 127
	} else {
		c.pbits, c.ebits, c.ebias = 6, 11, 1023
	}
	c.iblock = make([]I, size)
	c.ublock = make([]U, size)
	c.values = make([]U, size)
	return c
}

func (c *coder[I, U]) isFloat() bool { return c.typ == Float || c.typ == Double }

// precision is the number of bit planes to code for a float block whose
// largest exponent is emax.
func (c *coder[I, U]) precision(emax int) uint32 {
	return min(c.p.MaxPrec, uint32(max(0, emax-int(c.p.MinExp)+2*c.dims+2)))
}

// blocks calls fn for every block with its origin and extent (partial
// blocks at the high edges), in zfp's order (x fastest).
func (c *coder[I, U]) blocks(fn func(origin, count [4]int) bool) bool {
	s := c.shape
	for w := 0; w < s[3]; w += 4 {
		for z := 0; z < s[2]; z += 4 {
			for y := 0; y < s[1]; y += 4 {
				for x := 0; x < s[0]; x += 4 {
					o := [4]int{x, y, z, w}
					var n [4]int
					for d := 0; d < 4; d++ {
						n[d] = 1
						if d < c.dims {
							n[d] = min(4, s[d]-o[d])
						}
					}
					if !fn(o, n) {
						return false
					}
				}
			}
		}
	}
	return true
}

// ---- decoding ----------------------------------------------------------

func (c *coder[I, U]) decode(r *reader, dst []byte) bool {
	return c.blocks(func(o, n [4]int) bool {
		c.decodeBlock(r)
		if r.overrun() {
			return false
		}
		c.lines(o, n, func(q []U, p int) {
			for x := 0; x < n[0]; x++ {
				if c.intprec == 32 {
					binary.LittleEndian.PutUint32(dst[4*(p+x):], uint32(q[x]))
				} else {
					binary.LittleEndian.PutUint64(dst[8*(p+x):], uint64(q[x]))
				}
			}
		})
		return true
	})
}

// lines calls fn for each x-line of the block at o of extent n inside the
// array: q is the line in c.values, p the index of its first element in
// the array.
func (c *coder[I, U]) lines(o, n [4]int, fn func(q []U, p int)) {
	sy, sz := c.shape[0], c.shape[0]*c.shape[1]
	sw := sz * c.shape[2]
	base := o[0] + o[1]*sy + o[2]*sz + o[3]*sw
	for w := 0; w < n[3]; w++ {
		for z := 0; z < n[2]; z++ {
			for y := 0; y < n[1]; y++ {
				fn(c.values[64*w+16*z+4*y:], base+w*sw+z*sz+y*sy)
			}
		}
	}
}

// decodeBlock decodes one block into c.values.
func (c *coder[I, U]) decodeBlock(r *reader) {
	p := c.p
	if !c.isFloat() {
		if p.reversible() {
			c.revDecodeInts(r, p.MinBits, p.MaxBits)
		} else {
			c.decodeIntBlock(r, p.MinBits, p.MaxBits, p.MaxPrec)
		}
		for i, v := range c.iblock {
			c.values[i] = U(v)
		}
		return
	}
	if p.reversible() {
		c.revDecodeFloats(r)
		return
	}
	used := uint32(1)
	if r.readBit() == 0 {
		clear(c.values)
		if p.MinBits > used {
			r.skip(uint64(p.MinBits - used))
		}
		return
	}
	used += uint32(c.ebits)
	emax := int(r.readBits(c.ebits)) - c.ebias
	c.decodeIntBlock(r, p.MinBits-min(used, p.MinBits), p.MaxBits-used, c.precision(emax))
	c.invCast(emax)
}

func (c *coder[I, U]) decodeIntBlock(r *reader, minbits, maxbits, maxprec uint32) {
	used := decodeInts(r, maxbits, maxprec, c.intprec, c.ublock)
	if used < minbits {
		r.skip(uint64(minbits - used))
	}
	for i, v := range c.ublock {
		c.iblock[c.perm[i]] = fromNegabinary[I](v, c.mask)
	}
	invXform(c.iblock, c.dims, invLift[I])
}

func (c *coder[I, U]) revDecodeInts(r *reader, minbits, maxbits uint32) {
	used := uint32(c.pbits)
	prec := uint32(r.readBits(c.pbits)) + 1
	used += decodeInts(r, maxbits-used, prec, c.intprec, c.ublock)
	if used < minbits {
		r.skip(uint64(minbits - used))
	}
	for i, v := range c.ublock {
		c.iblock[c.perm[i]] = fromNegabinary[I](v, c.mask)
	}
	invXform(c.iblock, c.dims, revInvLift[I])
}

func (c *coder[I, U]) revDecodeFloats(r *reader) {
	p := c.p
	used := uint32(1)
	if r.readBit() == 0 {
		clear(c.values)
		if p.MinBits > used {
			r.skip(uint64(p.MinBits - used))
		}
		return
	}
	used++
	if r.readBit() != 0 {
		// The values themselves, as integers.
		c.revDecodeInts(r, p.MinBits-min(used, p.MinBits), p.MaxBits-used)
		tc := U(^U(0) >> 1)
		for i, v := range c.iblock {
			u := U(v)
			if v < 0 {
				u ^= tc
			}
			c.values[i] = u
		}
		return
	}
	used += uint32(c.ebits)
	emax := int(r.readBits(c.ebits)) - c.ebias
	c.revDecodeInts(r, p.MinBits-min(used, p.MinBits), p.MaxBits-used)
	if emax == -c.ebias {
		clear(c.values)
		return
	}
	c.invCast(emax)
}

// invCast turns the block's integers into floats scaled by 2^emax.
func (c *coder[I, U]) invCast(emax int) {
	if c.typ == Float {
		s := pow2f32(emax - 30)
		for i, v := range c.iblock {
			c.values[i] = U(math.Float32bits(s * float32(int32(v))))
		}
		return
	}
	s := pow2f64(emax - 62)
	for i, v := range c.iblock {
		c.values[i] = U(math.Float64bits(s * float64(int64(v))))
	}
}

// ---- encoding ----------------------------------------------------------

func (c *coder[I, U]) encode(w *writer, src []byte) {
	c.blocks(func(o, n [4]int) bool {
		c.lines(o, n, func(q []U, p int) {
			for x := 0; x < n[0]; x++ {
				if c.intprec == 32 {
					q[x] = U(binary.LittleEndian.Uint32(src[4*(p+x):]))
				} else {
					q[x] = U(binary.LittleEndian.Uint64(src[8*(p+x):]))
				}
			}
			padLine(q, n[0], 1)
		})
		c.pad(n)
		c.encodeBlock(w)
		return true
	})
}

// pad fills the rest of a partial block of extent n along y, z and w (x is
// padded line by line as it is gathered), each axis from the values the
// previous ones left.
func (c *coder[I, U]) pad(n [4]int) {
	for wi := 0; wi < n[3]; wi++ {
		if c.dims >= 2 {
			for z := 0; z < n[2]; z++ {
				for x := 0; x < 4; x++ {
					padLine(c.values[64*wi+16*z+x:], n[1], 4)
				}
			}
		}
		if c.dims >= 3 {
			for i := 0; i < 16; i++ {
				padLine(c.values[64*wi+i:], n[2], 16)
			}
		}
	}
	if c.dims >= 4 {
		for i := 0; i < 64; i++ {
			padLine(c.values[i:], n[3], 64)
		}
	}
}

// padLine fills a partial line of n < 4 values as zfp does: the missing
// values repeat the last one, and the fourth the first.
func padLine[U word](q []U, n, s int) {
	switch n {
	case 1:
		q[s] = q[0]
		fallthrough
	case 2:
		q[2*s] = q[s]
		fallthrough
	case 3:
		q[3*s] = q[0]
	}
}

// encodeBlock encodes the block in c.values.
func (c *coder[I, U]) encodeBlock(w *writer) {
	p := c.p
	if !c.isFloat() {
		for i, v := range c.values {
			c.iblock[i] = I(v)
		}
		if p.reversible() {
			c.revEncodeInts(w, p.MinBits, p.MaxBits, p.MaxPrec)
		} else {
			c.encodeIntBlock(w, p.MinBits, p.MaxBits, p.MaxPrec)
		}
		return
	}
	emax := c.exponentBlock()
	if p.reversible() {
		c.revEncodeFloats(w, emax)
		return
	}
	used := uint32(1)
	maxprec := c.precision(emax)
	e := 0
	if maxprec != 0 {
		e = emax + c.ebias
	}
	if e == 0 {
		w.writeBit(0)
		if p.MinBits > used {
			w.pad(uint64(p.MinBits - used))
		}
		return
	}
	used += uint32(c.ebits)
	w.writeBits(uint64(2*e+1), uint(used))
	c.fwdCast(emax)
	c.encodeIntBlock(w, p.MinBits-min(used, p.MinBits), p.MaxBits-used, maxprec)
}

func (c *coder[I, U]) encodeIntBlock(w *writer, minbits, maxbits, maxprec uint32) uint32 {
	fwdXform(c.iblock, c.dims, fwdLift[I])
	for i := range c.ublock {
		c.ublock[i] = toNegabinary(c.iblock[c.perm[i]], c.mask)
	}
	used := encodeInts(w, maxbits, maxprec, c.intprec, c.ublock)
	if used < minbits {
		w.pad(uint64(minbits - used))
		used = minbits
	}
	return used
}

func (c *coder[I, U]) revEncodeInts(w *writer, minbits, maxbits, maxprec uint32) uint32 {
	used := uint32(c.pbits)
	fwdXform(c.iblock, c.dims, revFwdLift[I])
	for i := range c.ublock {
		c.ublock[i] = toNegabinary(c.iblock[c.perm[i]], c.mask)
	}
	prec := max(min(revPrecision(c.ublock, c.intprec), maxprec), 1)
	w.writeBits(uint64(prec-1), c.pbits)
	used += encodeInts(w, maxbits-used, prec, c.intprec, c.ublock)
	if used < minbits {
		w.pad(uint64(minbits - used))
		used = minbits
	}
	return used
}

func (c *coder[I, U]) revEncodeFloats(w *writer, emax int) {
	p := c.p
	used := uint32(0)
	if emax != -c.ebias {
		c.fwdCast(emax)
	} else {
		clear(c.iblock)
	}
	if c.castIsExact(emax) {
		e := emax + c.ebias
		if e == 0 {
			w.writeBit(0)
			return
		}
		used += 2
		w.writeBits(1, 2)
		used += uint32(c.ebits)
		w.writeBits(uint64(e), c.ebits)
	} else {
		// Code the values' bits as integers (sign-magnitude to two's
		// complement).
		tc := U(^U(0) >> 1)
		for i, v := range c.values {
			x := I(v)
			if x < 0 {
				x = I(v ^ tc)
			}
			c.iblock[i] = x
		}
		used += 2
		w.writeBits(3, 2)
	}
	c.revEncodeInts(w, p.MinBits-min(used, p.MinBits), p.MaxBits-used, p.MaxPrec)
}

// castIsExact reports whether the block's integers give back exactly the
// block's values (bit for bit).
func (c *coder[I, U]) castIsExact(emax int) bool {
	if emax == -c.ebias {
		for _, v := range c.values {
			if v != 0 {
				return false
			}
		}
		return true
	}
	if c.typ == Float {
		s := pow2f32(emax - 30)
		for i, v := range c.iblock {
			if U(math.Float32bits(s*float32(int32(v)))) != c.values[i] {
				return false
			}
		}
		return true
	}
	s := pow2f64(emax - 62)
	for i, v := range c.iblock {
		if U(math.Float64bits(s*float64(int64(v)))) != c.values[i] {
			return false
		}
	}
	return true
}

// exponentBlock is the largest exponent of the block's values (zfp's
// exponent_block: -bias for an all-zero block, subnormals clamped).
func (c *coder[I, U]) exponentBlock() int {
	var m float64
	if c.typ == Float {
		var mf float32
		for _, v := range c.values {
			if f := math.Float32frombits(uint32(v) &^ (1 << 31)); mf < f {
				mf = f
			}
		}
		m = float64(mf)
	} else {
		for _, v := range c.values {
			if f := math.Float64frombits(uint64(v) &^ (1 << 63)); m < f {
				m = f
			}
		}
	}
	if m > 0 {
		_, e := math.Frexp(m)
		return max(e, 1-c.ebias)
	}
	return -c.ebias
}

// fwdCast scales the block's floats by 2^-emax into integers, converting as
// x86-64 does (out of range and NaN give the most negative integer).
func (c *coder[I, U]) fwdCast(emax int) {
	if c.typ == Float {
		s := pow2f32(30 - emax)
		for i, v := range c.values {
			c.iblock[i] = I(truncF32(s * math.Float32frombits(uint32(v))))
		}
		return
	}
	s := pow2f64(62 - emax)
	for i, v := range c.values {
		c.iblock[i] = I(truncF64(s * math.Float64frombits(uint64(v))))
	}
}

func truncF32(f float32) int32 {
	if !(f >= -2147483648 && f < 2147483648) {
		return math.MinInt32
	}
	return int32(f)
}

func truncF64(f float64) int64 {
	if !(f >= -9223372036854775808 && f < 9223372036854775808) {
		return math.MinInt64
	}
	return int64(f)
}

// pow2f32 and pow2f64 are 2^e rounded to the type (ldexpf/ldexp of 1).
func pow2f32(e int) float32 {
	switch {
	case e > 127:
		return float32(math.Inf(1))
	case e >= -126:
		return math.Float32frombits(uint32(e+127) << 23)
	case e >= -149:
		return math.Float32frombits(1 << uint(e+149))
	}
	return 0
}

func pow2f64(e int) float64 {
	switch {
	case e > 1023:
		return math.Inf(1)
	case e >= -1022:
		return math.Float64frombits(uint64(e+1023) << 52)
	case e >= -1074:
		return math.Float64frombits(1 << uint(e+1074))
	}
	return 0
}
