package refs_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/bench/bigmeta"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
)

// BenchmarkLargeKerchunk parses a reference set of 10^6 references
// (tests/bench/bigmeta; tests/bench/metadata.mjs times the same in
// WebAssembly) and lists its root and its array.
func BenchmarkLargeKerchunk(b *testing.B) {
	var buf bytes.Buffer
	if _, err := bigmeta.Kerchunk(&buf, 1_000_000); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := refs.FromJSON(ctx, buf.Bytes(), refs.Options{BaseURL: "https://host/refs.json"})
		if err != nil {
			b.Fatal(err)
		}
		root, err := s.List(ctx, "")
		if err != nil || len(root) != 2 {
			b.Fatal(root, err)
		}
		if _, ok, err := s.Get(ctx, "data/.zarray"); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
