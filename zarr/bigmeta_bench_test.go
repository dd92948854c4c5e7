package zarr_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/bench/bigmeta"
	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// BenchmarkLargeConsolidated opens a group whose .zmetadata is 200 MB
// (tests/bench/bigmeta; tests/bench/metadata.mjs times the same in
// WebAssembly) and opens one array through it.
func BenchmarkLargeConsolidated(b *testing.B) {
	var buf bytes.Buffer
	n, err := bigmeta.ZMetadata(&buf, 200_000_000)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	s.Set(ctx, ".zmetadata", buf.Bytes())
	s.Set(ctx, ".zgroup", []byte(`{"zarr_format": 2}`))
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := zarr.OpenGroup(ctx, s, "")
		if err != nil {
			b.Fatal(err)
		}
		if c, err := g.Consolidated(ctx); err != nil || !c {
			b.Fatal(err)
		}
		if _, err := g.Open(ctx, "group_3/var_7"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "arrays")
}
