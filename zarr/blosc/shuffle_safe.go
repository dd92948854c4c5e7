//go:build purego || !(amd64 || arm64 || wasm || 386 || arm || riscv64 || loong64 || ppc64le || mips64le || mipsle)

package blosc

// Safe (bounds-checked) versions of the typesize 2, 4 and 8 kernels, for
// big-endian targets and the purego build tag. shuffle_le.go has the fast ones.

// The fast kernels process groups of 8 elements and return how many elements
// they handled (a multiple of 8).

func shuffle2(dst, src []byte, n int) int {
	g := n / 8
	s := src[:16*g]
	d0 := dst[0*n : 0*n+8*g]
	d1 := dst[1*n : 1*n+8*g]
	for len(s) >= 16 && len(d0) >= 8 && len(d1) >= 8 {
		ex, ox := pack8(le.Uint64(s[0:8]))
		ey, oy := pack8(le.Uint64(s[8:16]))
		le.PutUint64(d0[:8], ex|ey<<32)
		le.PutUint64(d1[:8], ox|oy<<32)
		s, d0, d1 = s[16:], d0[8:], d1[8:]
	}
	return 8 * g
}

func unshuffle2(dst, src []byte, n int) int {
	g := n / 8
	d := dst[:16*g]
	s0 := src[0*n : 0*n+8*g]
	s1 := src[1*n : 1*n+8*g]
	for len(d) >= 16 && len(s0) >= 8 && len(s1) >= 8 {
		a := le.Uint64(s0[:8])
		b := le.Uint64(s1[:8])
		le.PutUint64(d[0:8], spread8(a&m32, b&m32))
		le.PutUint64(d[8:16], spread8(a>>32, b>>32))
		d, s0, s1 = d[16:], s0[8:], s1[8:]
	}
	return 8 * g
}

// For typesize 4, eight elements e0..e7 (uint32) are placed as rows
// r_i = e_i | e_{i+4}<<32 (i < 4), which is the state of the 8x8 transpose
// after its 32-bit step when rows 4..7 start out empty; the remaining 16-bit
// and 8-bit steps on rows 0..3 then leave stream j in row j.

func shuffle4(dst, src []byte, n int) int {
	g := n / 8
	s := src[:32*g]
	d0 := dst[0*n : 0*n+8*g]
	d1 := dst[1*n : 1*n+8*g]
	d2 := dst[2*n : 2*n+8*g]
	d3 := dst[3*n : 3*n+8*g]
	for len(s) >= 32 && len(d0) >= 8 && len(d1) >= 8 && len(d2) >= 8 && len(d3) >= 8 {
		x0 := le.Uint64(s[0:8])   // e0 e1
		x1 := le.Uint64(s[8:16])  // e2 e3
		x2 := le.Uint64(s[16:24]) // e4 e5
		x3 := le.Uint64(s[24:32]) // e6 e7
		r0 := x0&m32 | x2<<32
		r1 := x0>>32 | x2&^m32
		r2 := x1&m32 | x3<<32
		r3 := x1>>32 | x3&^m32
		r0, r2 = swap16(r0, r2)
		r1, r3 = swap16(r1, r3)
		r0, r1 = swap8(r0, r1)
		r2, r3 = swap8(r2, r3)
		le.PutUint64(d0[:8], r0)
		le.PutUint64(d1[:8], r1)
		le.PutUint64(d2[:8], r2)
		le.PutUint64(d3[:8], r3)
		s, d0, d1, d2, d3 = s[32:], d0[8:], d1[8:], d2[8:], d3[8:]
	}
	return 8 * g
}

func unshuffle4(dst, src []byte, n int) int {
	g := n / 8
	d := dst[:32*g]
	s0 := src[0*n : 0*n+8*g]
	s1 := src[1*n : 1*n+8*g]
	s2 := src[2*n : 2*n+8*g]
	s3 := src[3*n : 3*n+8*g]
	for len(d) >= 32 && len(s0) >= 8 && len(s1) >= 8 && len(s2) >= 8 && len(s3) >= 8 {
		r0 := le.Uint64(s0[:8])
		r1 := le.Uint64(s1[:8])
		r2 := le.Uint64(s2[:8])
		r3 := le.Uint64(s3[:8])
		r0, r1 = swap8(r0, r1)
		r2, r3 = swap8(r2, r3)
		r0, r2 = swap16(r0, r2)
		r1, r3 = swap16(r1, r3)
		le.PutUint64(d[0:8], r0&m32|r1<<32)
		le.PutUint64(d[8:16], r2&m32|r3<<32)
		le.PutUint64(d[16:24], r0>>32|r1&^m32)
		le.PutUint64(d[24:32], r2>>32|r3&^m32)
		d, s0, s1, s2, s3 = d[32:], s0[8:], s1[8:], s2[8:], s3[8:]
	}
	return 8 * g
}

func shuffle8(dst, src []byte, n int) int {
	g := n / 8
	s := src[:64*g]
	d0 := dst[0*n : 0*n+8*g]
	d1 := dst[1*n : 1*n+8*g]
	d2 := dst[2*n : 2*n+8*g]
	d3 := dst[3*n : 3*n+8*g]
	d4 := dst[4*n : 4*n+8*g]
	d5 := dst[5*n : 5*n+8*g]
	d6 := dst[6*n : 6*n+8*g]
	d7 := dst[7*n : 7*n+8*g]
	for len(s) >= 64 && len(d0) >= 8 && len(d1) >= 8 && len(d2) >= 8 && len(d3) >= 8 &&
		len(d4) >= 8 && len(d5) >= 8 && len(d6) >= 8 && len(d7) >= 8 {
		a0, a1, a2, a3, a4, a5, a6, a7 := transpose8(
			le.Uint64(s[0:8]), le.Uint64(s[8:16]), le.Uint64(s[16:24]), le.Uint64(s[24:32]),
			le.Uint64(s[32:40]), le.Uint64(s[40:48]), le.Uint64(s[48:56]), le.Uint64(s[56:64]))
		le.PutUint64(d0[:8], a0)
		le.PutUint64(d1[:8], a1)
		le.PutUint64(d2[:8], a2)
		le.PutUint64(d3[:8], a3)
		le.PutUint64(d4[:8], a4)
		le.PutUint64(d5[:8], a5)
		le.PutUint64(d6[:8], a6)
		le.PutUint64(d7[:8], a7)
		s = s[64:]
		d0, d1, d2, d3, d4, d5, d6, d7 = d0[8:], d1[8:], d2[8:], d3[8:], d4[8:], d5[8:], d6[8:], d7[8:]
	}
	return 8 * g
}

func unshuffle8(dst, src []byte, n int) int {
	g := n / 8
	d := dst[:64*g]
	s0 := src[0*n : 0*n+8*g]
	s1 := src[1*n : 1*n+8*g]
	s2 := src[2*n : 2*n+8*g]
	s3 := src[3*n : 3*n+8*g]
	s4 := src[4*n : 4*n+8*g]
	s5 := src[5*n : 5*n+8*g]
	s6 := src[6*n : 6*n+8*g]
	s7 := src[7*n : 7*n+8*g]
	for len(d) >= 64 && len(s0) >= 8 && len(s1) >= 8 && len(s2) >= 8 && len(s3) >= 8 &&
		len(s4) >= 8 && len(s5) >= 8 && len(s6) >= 8 && len(s7) >= 8 {
		a0, a1, a2, a3, a4, a5, a6, a7 := transpose8(
			le.Uint64(s0[:8]), le.Uint64(s1[:8]), le.Uint64(s2[:8]), le.Uint64(s3[:8]),
			le.Uint64(s4[:8]), le.Uint64(s5[:8]), le.Uint64(s6[:8]), le.Uint64(s7[:8]))
		le.PutUint64(d[0:8], a0)
		le.PutUint64(d[8:16], a1)
		le.PutUint64(d[16:24], a2)
		le.PutUint64(d[24:32], a3)
		le.PutUint64(d[32:40], a4)
		le.PutUint64(d[40:48], a5)
		le.PutUint64(d[48:56], a6)
		le.PutUint64(d[56:64], a7)
		d = d[64:]
		s0, s1, s2, s3, s4, s5, s6, s7 = s0[8:], s1[8:], s2[8:], s3[8:], s4[8:], s5[8:], s6[8:], s7[8:]
	}
	return 8 * g
}
