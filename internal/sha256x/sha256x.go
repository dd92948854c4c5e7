// Package sha256x is SHA-256 and HMAC-SHA-256 (FIPS 180-4, RFC 2104) in a
// few hundred bytes of WebAssembly: what AWS Signature Version 4 needs
// (zarr/s3). The standard library's crypto/sha256 brings its FIPS 140
// module into the binary (about 70 KB of brotli in the core build), so the
// WebAssembly build uses this package; native builds use crypto/sha256,
// and the tests check this package against it.
package sha256x

import "encoding/binary"

// Size is the length of a digest.
const Size = 32

const blockSize = 64

var k = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// Sum returns the SHA-256 of the concatenation of parts.
func Sum(parts ...[]byte) [Size]byte {
	h := [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}
	var buf [blockSize]byte
	n, total := 0, uint64(0)
	for _, p := range parts {
		total += uint64(len(p))
		for len(p) > 0 {
			c := copy(buf[n:], p)
			n += c
			p = p[c:]
			if n == blockSize {
				block(&h, &buf)
				n = 0
			}
		}
	}
	// padding: 0x80, zeros, the length in bits (big-endian)
	buf[n] = 0x80
	n++
	if n > blockSize-8 {
		clear(buf[n:])
		block(&h, &buf)
		n = 0
	}
	clear(buf[n : blockSize-8])
	binary.BigEndian.PutUint64(buf[blockSize-8:], total*8)
	block(&h, &buf)
	var out [Size]byte
	for i, v := range h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

func block(h *[8]uint32, p *[blockSize]byte) {
	var w [64]uint32
	for i := 0; i < 16; i++ {
		w[i] = binary.BigEndian.Uint32(p[4*i:])
	}
	for i := 16; i < 64; i++ {
		v1, v2 := w[i-2], w[i-15]
		s1 := rotr(v1, 17) ^ rotr(v1, 19) ^ v1>>10
		s0 := rotr(v2, 7) ^ rotr(v2, 18) ^ v2>>3
		w[i] = s1 + w[i-7] + s0 + w[i-16]
	}
	a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for i := 0; i < 64; i++ {
		t1 := hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + (e&f ^ ^e&g) + k[i] + w[i]
		t2 := (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + (a&b ^ a&c ^ b&c)
		hh, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+t2
	}
	h[0] += a
	h[1] += b
	h[2] += c
	h[3] += d
	h[4] += e
	h[5] += f
	h[6] += g
	h[7] += hh
}

func rotr(x uint32, n uint) uint32 { return x>>n | x<<(32-n) }

// HMAC returns HMAC-SHA-256 of data under key.
func HMAC(key, data []byte) [Size]byte {
	if len(key) > blockSize {
		s := Sum(key)
		key = s[:]
	}
	var ipad, opad [blockSize]byte
	copy(ipad[:], key)
	copy(opad[:], key)
	for i := range ipad {
		ipad[i] ^= 0x36
		opad[i] ^= 0x5c
	}
	inner := Sum(ipad[:], data)
	return Sum(opad[:], inner[:])
}
