package blosc

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Reference implementations, written from the format description.

func refShuffle(ts int, src []byte) []byte {
	n := len(src) / ts
	dst := make([]byte, len(src))
	for i := 0; i < n; i++ {
		for j := 0; j < ts; j++ {
			dst[j*n+i] = src[i*ts+j]
		}
	}
	copy(dst[n*ts:], src[n*ts:])
	return dst
}

func refBitshuffle(ts int, src []byte) []byte {
	n := len(src) / ts
	if n%8 != 0 || n == 0 {
		return bytes.Clone(src)
	}
	dst := make([]byte, len(src))
	row := n / 8
	for i := 0; i < n; i++ {
		for j := 0; j < ts; j++ {
			for b := 0; b < 8; b++ {
				if src[i*ts+j]>>b&1 != 0 {
					dst[(j*8+b)*row+i/8] |= 1 << (i % 8)
				}
			}
		}
	}
	copy(dst[n*ts:], src[n*ts:])
	return dst
}

func TestShuffleKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, ts := range []int{1, 2, 3, 4, 5, 7, 8, 16, 17, 24, 255} {
		for _, size := range []int{0, 1, 7, 8, 15, 16, 63, 64, 65, 127, 128, 1000, 4096, 4099} {
			src := randBytes(r, size)
			want := refShuffle(ts, src)
			got := make([]byte, size)
			shuffle(ts, got, src)
			if !bytes.Equal(got, want) {
				t.Fatalf("shuffle ts %d size %d", ts, size)
			}
			back := make([]byte, size)
			unshuffle(ts, back, got)
			if !bytes.Equal(back, src) {
				t.Fatalf("unshuffle ts %d size %d", ts, size)
			}
			want = refBitshuffle(ts, src)
			tmp := make([]byte, size)
			bitshuffle(ts, got, src, tmp)
			if !bytes.Equal(got, want) {
				t.Fatalf("bitshuffle ts %d size %d", ts, size)
			}
			bitunshuffle(ts, back, got, tmp)
			if !bytes.Equal(back, src) {
				t.Fatalf("bitunshuffle ts %d size %d", ts, size)
			}
		}
	}
}
