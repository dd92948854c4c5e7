package zarr

import (
	"context"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

func BenchmarkPlanExternalReadWindow(b *testing.B) {
	ctx := context.Background()
	s := NewMemoryStore()
	a, err := CreateArray(ctx, s, "r", ArrayOptions{Shape: []int{4096, 4096}, Chunks: []int{256, 256}, DType: "<f4", NoCompressor: true})
	if err != nil {
		b.Fatal(err)
	}
	sel, _ := ParseSelection("1500:2500, 1200:2200")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := a.PlanExternalRead(sel); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlanDirectReadWindow(b *testing.B) {
	ctx := context.Background()
	s := NewMemoryStore()
	a, err := CreateArray(ctx, s, "r", ArrayOptions{Shape: []int{4096, 4096}, Chunks: []int{256, 256}, DType: "<f4", NoCompressor: true})
	if err != nil {
		b.Fatal(err)
	}
	sel, _ := ParseSelection("1500:2500, 1200:2200")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if p, why, _, err := a.PlanDirectRead(sel); err != nil || p == nil {
			b.Fatal(err, why)
		}
	}
}

// PlanDirectRead plans only reads whose chunks placeStored would place
// straight from their stored bytes, and says when a refusal holds for
// every read of the array.
func TestPlanDirectRead(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	mk := func(path string, o ArrayOptions) *Array {
		o.Shape, o.Chunks, o.DType = []int{10, 12}, []int{4, 5}, "<i4"
		a, err := CreateArray(ctx, s, path, o)
		if err != nil {
			t.Fatal(err)
		}
		if a, err = OpenArray(ctx, s, path); err != nil {
			t.Fatal(err)
		}
		return a
	}
	sel, _ := ParseSelection("1:9, ::2")
	raw := mk("raw", ArrayOptions{NoCompressor: true, ZarrFormat: 2})
	p, why, fixed, err := raw.PlanDirectRead(sel)
	if err != nil || p == nil {
		t.Fatalf("raw: %v %q", err, why)
	}
	ext, _, _ := raw.PlanExternalRead(sel)
	if p.Direct != "raw" || len(p.Chunks) != len(ext.Chunks) || len(p.Chunks) != 9 || p.Metadata != nil || fixed {
		t.Fatalf("raw: %+v", p)
	}
	for i, c := range p.Chunks {
		if c.Key != ext.Chunks[i].Key || c.Out[0] != ext.Chunks[i].Out[0] || c.In[1] != ext.Chunks[i].In[1] {
			t.Fatalf("chunk %d: %+v, PlanExternalRead %+v", i, c, ext.Chunks[i])
		}
	}
	// Declined for every read: a chain the engine decodes (natively no
	// compressor has a host decoder), a byte swap, F order, sharding.
	for _, o := range []ArrayOptions{
		{ZarrFormat: 2},
		{ZarrFormat: 2, NoCompressor: true, Order: "F"},
		{NoCompressor: true, ShardShape: []int{8, 10}},
	} {
		a := mk("x", ArrayOptions{Overwrite: true, ZarrFormat: o.ZarrFormat, NoCompressor: o.NoCompressor, Order: o.Order, ShardShape: o.ShardShape})
		if p, why, fixed, err := a.PlanDirectRead(sel); p != nil || err != nil || !fixed {
			t.Fatalf("%+v: planned (%q, fixed %v, %v)", o, why, fixed, err)
		}
	}
	be, err := CreateArray(ctx, s, "be", ArrayOptions{Shape: []int{10}, Chunks: []int{5}, DType: ">i4", NoCompressor: true, ZarrFormat: 2})
	if err != nil {
		t.Fatal(err)
	}
	if p, _, fixed, _ := be.PlanDirectRead(nil); p != nil || !fixed {
		t.Fatal("big-endian chunks planned")
	}
	// A chunk cache: declined, but not for good.
	cached, err := OpenArray(ctx, s, "raw", WithCache(NewCachePool(1<<20)))
	if err != nil {
		t.Fatal(err)
	}
	if p, why, fixed, _ := cached.PlanDirectRead(sel); p != nil || fixed {
		t.Fatalf("with a cache: %v %q %v", p, why, fixed)
	}
	// Errors are Read's.
	bad, _ := ParseSelection("20")
	if _, _, _, err := raw.PlanDirectRead(bad); err == nil {
		t.Fatal("out of bounds planned")
	} else if _, rerr := raw.Read(ctx, bad); errs.CodeOf(rerr) != errs.CodeOf(err) {
		t.Fatalf("%v, Read: %v", err, rerr)
	}
}
