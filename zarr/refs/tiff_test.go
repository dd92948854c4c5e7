package refs_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
)

// TestTIFFReferences reads the reference sets tifffile wrote for TIFF files
// (tests/refs/gen_tiff.py: tiles and strips; zlib, lzma, LZW, PackBits,
// deflate; horizontal and floating-point predictors; big-endian samples),
// the way kerchunk's TIFF support makes them, and compares every array with
// the values the files hold (as tifffile or Pillow read them back).
func TestTIFFReferences(t *testing.T) {
	cases, err := conformance.Load(filepath.Join(refsDir(), "tiff_cases.json"))
	if err != nil {
		t.Fatalf("%v (run /usr/bin/python3 tests/refs/gen_tiff.py)", err)
	}
	if len(cases) < 10 {
		t.Fatalf("only %d cases", len(cases))
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			s, _ := openSet(t, c.Store)
			if err := conformance.CheckStore(ctx, s, c); err != nil {
				t.Fatalf("%s: %v", c.Note, err)
			}
		})
	}
}
