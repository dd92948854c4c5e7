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
		s := bs[j*n : j*n+n]
		d := dst[j*n : j*n+n] // rows 8j .. 8j+7
		d = d[:8*row]
		for g := 0; g < row; g++ {
			x := transposeBits(le.Uint64(s[8*g:]))
			// byte b of x = bit b of the 8 elements -> row 8j+b, byte g
			d[0*row+g] = byte(x)
			d[1*row+g] = byte(x >> 8)
			d[2*row+g] = byte(x >> 16)
			d[3*row+g] = byte(x >> 24)
			d[4*row+g] = byte(x >> 32)
			d[5*row+g] = byte(x >> 40)
			d[6*row+g] = byte(x >> 48)
			d[7*row+g] = byte(x >> 56)
		}
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
		s := src[j*n : j*n+n]
		s = s[:8*row]
		d := bs[j*n : j*n+n]
		for g := 0; g < row; g++ {
			x := uint64(s[0*row+g]) | uint64(s[1*row+g])<<8 | uint64(s[2*row+g])<<16 |
				uint64(s[3*row+g])<<24 | uint64(s[4*row+g])<<32 | uint64(s[5*row+g])<<40 |
				uint64(s[6*row+g])<<48 | uint64(s[7*row+g])<<56
			le.PutUint64(d[8*g:], transposeBits(x))
		}
	}
	if ts > 1 {
		unshuffle(ts, dst[:n*ts], bs)
	}
	copy(dst[n*ts:], src[n*ts:])
}
