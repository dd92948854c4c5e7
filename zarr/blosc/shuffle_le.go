//go:build !purego && (amd64 || arm64 || wasm || 386 || arm || riscv64 || loong64 || ppc64le || mips64le || mipsle)

package blosc

import "unsafe"

// Fast typesize 2, 4 and 8 kernels for little-endian targets (including
// wasm). They move 8 elements per step with 64-bit loads and stores through
// unsafe pointers: with slices and encoding/binary, the Go compiler keeps a
// pointer and a length per stream live and spills them, which costs ~40%.
// Every kernel checks its whole input and output range once, up front, and
// then touches only bytes inside it:
//   streams: src/dst[k*n+i : k*n+i+8] for k < ts, i+8 <= 8*(n/8) <= n
//   elements: dst/src[ts*i : ts*i+8*ts] for i+8 <= n
// so everything lies in [0, ts*n). shuffle_safe.go has the bounds-checked
// equivalents (build tag purego, and big-endian targets).
//
// For typesize 4, eight elements e0..e7 (uint32) are placed as rows
// r_i = e_i | e_{i+4}<<32 (i < 4), which is the state of the 8x8 byte
// transpose after its 32-bit step when rows 4..7 start out empty; the
// remaining 16-bit and 8-bit steps on rows 0..3 then leave stream j in row j.

func ld(p unsafe.Pointer, off int) uint64    { return *(*uint64)(unsafe.Add(p, off)) }
func st(p unsafe.Pointer, off int, v uint64) { *(*uint64)(unsafe.Add(p, off)) = v }

// kernelRange panics unless dst and src both hold ts*n bytes, and returns
// their base pointers (nil when n < 8, which the kernels then skip).
func kernelRange(dst, src []byte, ts, n int) (d, s unsafe.Pointer) {
	if n < 0 || len(dst) < ts*n || len(src) < ts*n {
		panic("blosc: shuffle kernel out of range")
	}
	if n < 8 {
		return nil, nil
	}
	return unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
}

func shuffle2(dst, src []byte, n int) int {
	d, s := kernelRange(dst, src, 2, n)
	m := n &^ 7
	for i := 0; i < m; i += 8 {
		ex, ox := pack8(ld(s, 2*i))
		ey, oy := pack8(ld(s, 2*i+8))
		st(d, i, ex|ey<<32)
		st(d, n+i, ox|oy<<32)
	}
	return m
}

func unshuffle2(dst, src []byte, n int) int {
	d, s := kernelRange(dst, src, 2, n)
	m := n &^ 7
	for i := 0; i < m; i += 8 {
		a := ld(s, i)
		b := ld(s, n+i)
		st(d, 2*i, spread8(a&m32, b&m32))
		st(d, 2*i+8, spread8(a>>32, b>>32))
	}
	return m
}

func shuffle4(dst, src []byte, n int) int {
	d, s := kernelRange(dst, src, 4, n)
	m := n &^ 7
	for i := 0; i < m; i += 8 {
		x0 := ld(s, 4*i)    // e0 e1
		x1 := ld(s, 4*i+8)  // e2 e3
		x2 := ld(s, 4*i+16) // e4 e5
		x3 := ld(s, 4*i+24) // e6 e7
		r0 := x0&m32 | x2<<32
		r1 := x0>>32 | x2&^m32
		r2 := x1&m32 | x3<<32
		r3 := x1>>32 | x3&^m32
		r0, r2 = swap16(r0, r2)
		r1, r3 = swap16(r1, r3)
		r0, r1 = swap8(r0, r1)
		r2, r3 = swap8(r2, r3)
		st(d, i, r0)
		st(d, n+i, r1)
		st(d, 2*n+i, r2)
		st(d, 3*n+i, r3)
	}
	return m
}

func unshuffle4(dst, src []byte, n int) int {
	d, s := kernelRange(dst, src, 4, n)
	m := n &^ 7
	for i := 0; i < m; i += 8 {
		r0 := ld(s, i)
		r1 := ld(s, n+i)
		r2 := ld(s, 2*n+i)
		r3 := ld(s, 3*n+i)
		r0, r1 = swap8(r0, r1)
		r2, r3 = swap8(r2, r3)
		r0, r2 = swap16(r0, r2)
		r1, r3 = swap16(r1, r3)
		st(d, 4*i, r0&m32|r1<<32)
		st(d, 4*i+8, r2&m32|r3<<32)
		st(d, 4*i+16, r0>>32|r1&^m32)
		st(d, 4*i+24, r2>>32|r3&^m32)
	}
	return m
}

func shuffle8(dst, src []byte, n int) int {
	d, s := kernelRange(dst, src, 8, n)
	m := n &^ 7
	for i := 0; i < m; i += 8 {
		a0, a1, a2, a3, a4, a5, a6, a7 := transpose8(
			ld(s, 8*i), ld(s, 8*i+8), ld(s, 8*i+16), ld(s, 8*i+24),
			ld(s, 8*i+32), ld(s, 8*i+40), ld(s, 8*i+48), ld(s, 8*i+56))
		st(d, i, a0)
		st(d, n+i, a1)
		st(d, 2*n+i, a2)
		st(d, 3*n+i, a3)
		st(d, 4*n+i, a4)
		st(d, 5*n+i, a5)
		st(d, 6*n+i, a6)
		st(d, 7*n+i, a7)
	}
	return m
}

func unshuffle8(dst, src []byte, n int) int {
	d, s := kernelRange(dst, src, 8, n)
	m := n &^ 7
	for i := 0; i < m; i += 8 {
		a0, a1, a2, a3, a4, a5, a6, a7 := transpose8(
			ld(s, i), ld(s, n+i), ld(s, 2*n+i), ld(s, 3*n+i),
			ld(s, 4*n+i), ld(s, 5*n+i), ld(s, 6*n+i), ld(s, 7*n+i))
		st(d, 8*i, a0)
		st(d, 8*i+8, a1)
		st(d, 8*i+16, a2)
		st(d, 8*i+24, a3)
		st(d, 8*i+32, a4)
		st(d, 8*i+40, a5)
		st(d, 8*i+48, a6)
		st(d, 8*i+56, a7)
	}
	return m
}
