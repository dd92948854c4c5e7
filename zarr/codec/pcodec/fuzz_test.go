package pcodec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
)

// FuzzDecode feeds arbitrary bytes to the decoder, seeded with every stored
// vector: it must return numbers or an error, never panic, and never
// produce more numbers than asked for.
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/pco/*.pco")
	more, _ := filepath.Glob("testdata/numcodecs/codec.*/encoded.*.dat")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzmem.Input(t)()
		const maxN = 1 << 14
		nt, out, err := DecodeAny(data, maxN)
		if err == nil && len(out) > maxN*8 {
			t.Fatalf("decoded %d bytes, more than %d numbers", len(out), maxN)
		}
		if err == nil && nt != 0 {
			// The same stream into an exactly sized buffer decodes the same.
			dst := make([]byte, len(out))
			if err := Decode(data, nt, dst); err != nil || string(dst) != string(out) {
				t.Fatalf("Decode disagrees with DecodeAny: %v", err)
			}
		}
		for _, typ := range []NumberType{U32, F64, I16} {
			_ = Decode(data, typ, make([]byte, 100*typ.Size()))
		}
	})
}

// TestTruncatedAndFlipped cuts every stored stream at every length and
// flips bytes: each must give an error or numbers, never a panic, and a
// truncated stream is never accepted as complete.
func TestTruncatedAndFlipped(t *testing.T) {
	files, _ := filepath.Glob("testdata/pco/*.pco")
	more, _ := filepath.Glob("testdata/numcodecs/codec.*[05]/encoded.0[049].dat")
	for _, p := range append(files, more...) {
		src, _ := os.ReadFile(p)
		nt, full, err := DecodeAny(src, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for cut := 0; cut < len(src); cut++ {
			if _, out, err := DecodeAny(src[:cut], 1<<20); err == nil && len(out) == len(full) && nt != 0 {
				t.Errorf("%s cut at %d of %d bytes decoded completely", p, cut, len(src))
			}
		}
		for i := 0; i < len(src); i++ {
			flipped := append([]byte(nil), src...)
			flipped[i] ^= 0x5a
			_, _, _ = DecodeAny(flipped, 1<<20)
		}
	}
}
