package blosc

import "encoding/binary"

// Byte shuffle (c-blosc BLOSC_SHUFFLE) of one block of len(src) bytes with
// element size ts: n = len(src)/ts elements; byte j of element i goes to
// dst[j*n+i]; the trailing len(src)%ts bytes are copied unchanged.
// unshuffle is the inverse. src and dst must not overlap and have equal length.
//
// Typesizes 2, 4 and 8 use word-at-a-time kernels that move 8 elements per
// step with a byte-matrix transpose done in 64-bit registers; the others use
// a plain strided loop.

var le = binary.LittleEndian

const (
	m8  = 0x00FF00FF00FF00FF
	m16 = 0x0000FFFF0000FFFF
	m32 = 0x00000000FFFFFFFF
)

// swap8 exchanges the odd bytes of a with the even bytes of b (one level of an
// 8x8 byte-matrix transpose).
func swap8(a, b uint64) (uint64, uint64) {
	t := ((a >> 8) ^ b) & m8
	return a ^ (t << 8), b ^ t
}

// swap16 exchanges the odd 16-bit lanes of a with the even 16-bit lanes of b.
func swap16(a, b uint64) (uint64, uint64) {
	t := ((a >> 16) ^ b) & m16
	return a ^ (t << 16), b ^ t
}

// swap32 exchanges the high half of a with the low half of b.
func swap32(a, b uint64) (uint64, uint64) {
	t := ((a >> 32) ^ b) & m32
	return a ^ (t << 32), b ^ t
}

// transpose8 transposes the 8x8 byte matrix whose row r is the little-endian
// word a_r: afterwards byte c of row r holds what was byte r of row c.
func transpose8(a0, a1, a2, a3, a4, a5, a6, a7 uint64) (uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64) {
	a0, a4 = swap32(a0, a4)
	a1, a5 = swap32(a1, a5)
	a2, a6 = swap32(a2, a6)
	a3, a7 = swap32(a3, a7)
	a0, a2 = swap16(a0, a2)
	a1, a3 = swap16(a1, a3)
	a4, a6 = swap16(a4, a6)
	a5, a7 = swap16(a5, a7)
	a0, a1 = swap8(a0, a1)
	a2, a3 = swap8(a2, a3)
	a4, a5 = swap8(a4, a5)
	a6, a7 = swap8(a6, a7)
	return a0, a1, a2, a3, a4, a5, a6, a7
}

func shuffle(ts int, dst, src []byte) {
	if len(dst) != len(src) {
		panic("blosc: shuffle length mismatch")
	}
	n := len(src) / ts
	if ts <= 1 || n == 0 {
		copy(dst, src)
		return
	}
	done := 0 // elements handled by a fast kernel
	switch ts {
	case 2:
		done = shuffle2(dst, src, n)
	case 4:
		done = shuffle4(dst, src, n)
	case 8:
		done = shuffle8(dst, src, n)
	}
	if done < n {
		shuffleGeneric(ts, dst, src, n, done)
	}
	copy(dst[n*ts:], src[n*ts:])
}

func unshuffle(ts int, dst, src []byte) {
	if len(dst) != len(src) {
		panic("blosc: unshuffle length mismatch")
	}
	n := len(src) / ts
	if ts <= 1 || n == 0 {
		copy(dst, src)
		return
	}
	done := 0
	switch ts {
	case 2:
		done = unshuffle2(dst, src, n)
	case 4:
		done = unshuffle4(dst, src, n)
	case 8:
		done = unshuffle8(dst, src, n)
	}
	if done < n {
		unshuffleGeneric(ts, dst, src, n, done)
	}
	copy(dst[n*ts:], src[n*ts:])
}

// shuffleGeneric handles elements [from, n).
func shuffleGeneric(ts int, dst, src []byte, n, from int) {
	for j := 0; j < ts; j++ {
		d := dst[j*n+from : j*n+n]
		s := src[from*ts+j:]
		k := 0
		for i := range d {
			d[i] = s[k]
			k += ts
		}
	}
}

func unshuffleGeneric(ts int, dst, src []byte, n, from int) {
	for j := 0; j < ts; j++ {
		s := src[j*n+from : j*n+n]
		d := dst[from*ts+j:]
		k := 0
		for _, b := range s {
			d[k] = b
			k += ts
		}
	}
}

// pack8 returns the even bytes of x packed into 32 bits, and the odd bytes.
func pack8(x uint64) (uint64, uint64) {
	e := x & m8
	o := (x >> 8) & m8
	e = (e | e>>8) & m16
	o = (o | o>>8) & m16
	e = (e | e>>16) & m32
	o = (o | o>>16) & m32
	return e, o
}

// spread8 is the inverse of pack8: e and o hold 4 bytes each (low halves).
func spread8(e, o uint64) uint64 {
	e = (e | e<<16) & m16
	o = (o | o<<16) & m16
	e = (e | e<<8) & m8
	o = (o | o<<8) & m8
	return e | o<<8
}

// Bitshuffle (c-blosc BLOSC_BITSHUFFLE, Blosc1 rules). For a block of
// n = len(src)/ts elements with n%8 == 0, bit b of byte j of element i goes to
// bit i%8 of byte i/8 of row j*8+b, each row being n/8 bytes long; the trailing
// len(src)%ts bytes are copied. If n%8 != 0 the whole block is copied as is.
// tmp must have len(src) bytes of room.

// transposeBits transposes the 8x8 bit matrix whose row r is byte r of x:
// afterwards bit c of byte r is what was bit r of byte c.
func transposeBits(x uint64) uint64 {
	t := (x ^ (x >> 7)) & 0x00AA00AA00AA00AA
	x ^= t ^ (t << 7)
	t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCC
	x ^= t ^ (t << 14)
	t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0
	x ^= t ^ (t << 28)
	return x
}

func bitshuffle(ts int, dst, src, tmp []byte) {
	n := len(src) / ts
	if n%8 != 0 || n == 0 {
		copy(dst, src)
		return
	}
	var bs []byte // byte-shuffled elements: stream j is bs[j*n : j*n+n]
	if ts == 1 {
		bs = src[:n]
	} else {
		bs = tmp[:n*ts]
		shuffle(ts, bs, src[:n*ts])
	}
	row := n / 8
	for j := 0; j < ts; j++ {
		bitTransposeFwd(dst[j*n:j*n+n], bs[j*n:j*n+n], row)
	}
	copy(dst[n*ts:], src[n*ts:])
}

func bitunshuffle(ts int, dst, src, tmp []byte) {
	n := len(src) / ts
	if n%8 != 0 || n == 0 {
		copy(dst, src)
		return
	}
	var bs []byte
	if ts == 1 {
		bs = dst[:n]
	} else {
		bs = tmp[:n*ts]
	}
	row := n / 8
	for j := 0; j < ts; j++ {
		bitTransposeInv(bs[j*n:j*n+n], src[j*n:j*n+n], row)
	}
	if ts > 1 {
		unshuffle(ts, dst[:n*ts], bs)
	}
	copy(dst[n*ts:], src[n*ts:])
}

// bitTransposeFwd turns 8*row bytes s (byte j of 8*row elements) into 8
// bit-rows of row bytes each in d: bit b of s[i] -> bit i%8 of d[b*row+i/8].
// Eight groups of 8 elements are done at a time: eight 8x8 bit transposes,
// then one 8x8 byte transpose to turn the results into 8-byte row pieces.
func bitTransposeFwd(d, s []byte, row int) {
	d, s = d[:8*row], s[:8*row]
	r0, r1, r2, r3 := d[0*row:1*row], d[1*row:2*row], d[2*row:3*row], d[3*row:4*row]
	r4, r5, r6, r7 := d[4*row:5*row], d[5*row:6*row], d[6*row:7*row], d[7*row:8*row]
	g := 0
	for ; g+8 <= row; g += 8 {
		w := s[8*g : 8*g+64]
		a0, a1, a2, a3, a4, a5, a6, a7 := transpose8(
			transposeBits(le.Uint64(w[0:8])), transposeBits(le.Uint64(w[8:16])),
			transposeBits(le.Uint64(w[16:24])), transposeBits(le.Uint64(w[24:32])),
			transposeBits(le.Uint64(w[32:40])), transposeBits(le.Uint64(w[40:48])),
			transposeBits(le.Uint64(w[48:56])), transposeBits(le.Uint64(w[56:64])))
		le.PutUint64(r0[g:g+8], a0)
		le.PutUint64(r1[g:g+8], a1)
		le.PutUint64(r2[g:g+8], a2)
		le.PutUint64(r3[g:g+8], a3)
		le.PutUint64(r4[g:g+8], a4)
		le.PutUint64(r5[g:g+8], a5)
		le.PutUint64(r6[g:g+8], a6)
		le.PutUint64(r7[g:g+8], a7)
	}
	for ; g < row; g++ {
		x := transposeBits(le.Uint64(s[8*g : 8*g+8]))
		// byte b of x = bit b of the 8 elements -> row b, byte g
		r0[g] = byte(x)
		r1[g] = byte(x >> 8)
		r2[g] = byte(x >> 16)
		r3[g] = byte(x >> 24)
		r4[g] = byte(x >> 32)
		r5[g] = byte(x >> 40)
		r6[g] = byte(x >> 48)
		r7[g] = byte(x >> 56)
	}
}

// bitTransposeInv is the inverse of bitTransposeFwd.
func bitTransposeInv(d, s []byte, row int) {
	d, s = d[:8*row], s[:8*row]
	r0, r1, r2, r3 := s[0*row:1*row], s[1*row:2*row], s[2*row:3*row], s[3*row:4*row]
	r4, r5, r6, r7 := s[4*row:5*row], s[5*row:6*row], s[6*row:7*row], s[7*row:8*row]
	g := 0
	for ; g+8 <= row; g += 8 {
		a0, a1, a2, a3, a4, a5, a6, a7 := transpose8(
			le.Uint64(r0[g:g+8]), le.Uint64(r1[g:g+8]), le.Uint64(r2[g:g+8]), le.Uint64(r3[g:g+8]),
			le.Uint64(r4[g:g+8]), le.Uint64(r5[g:g+8]), le.Uint64(r6[g:g+8]), le.Uint64(r7[g:g+8]))
		w := d[8*g : 8*g+64]
		le.PutUint64(w[0:8], transposeBits(a0))
		le.PutUint64(w[8:16], transposeBits(a1))
		le.PutUint64(w[16:24], transposeBits(a2))
		le.PutUint64(w[24:32], transposeBits(a3))
		le.PutUint64(w[32:40], transposeBits(a4))
		le.PutUint64(w[40:48], transposeBits(a5))
		le.PutUint64(w[48:56], transposeBits(a6))
		le.PutUint64(w[56:64], transposeBits(a7))
	}
	for ; g < row; g++ {
		x := uint64(r0[g]) | uint64(r1[g])<<8 | uint64(r2[g])<<16 | uint64(r3[g])<<24 |
			uint64(r4[g])<<32 | uint64(r5[g])<<40 | uint64(r6[g])<<48 | uint64(r7[g])<<56
		le.PutUint64(d[8*g:8*g+8], transposeBits(x))
	}
}
