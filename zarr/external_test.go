package zarr

import (
	"bytes"
	"context"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
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
	// compressor has a host decoder), a byte swap, F order, shards of such
	// inner chunks.
	for _, o := range []ArrayOptions{
		{ZarrFormat: 2},
		{ZarrFormat: 2, NoCompressor: true, Order: "F"},
		{ShardShape: []int{8, 10}},
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

// A direct plan of a sharded array, run as npm/lib/shards.js runs it (each
// shard read whole, or its index and then PlanShardParts' byte ranges),
// returns what Read returns, for windows, strides, indices, a missing
// shard and empty inner chunks, with the index at either end.
func TestPlanDirectReadShards(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	for _, loc := range []string{"end", "start"} {
		codecs := []map[string]any{{"name": "sharding_indexed", "configuration": map[string]any{
			"chunk_shape":    []int{2, 3},
			"codecs":         []map[string]any{{"name": "bytes", "configuration": map[string]any{"endian": "little"}}},
			"index_codecs":   []map[string]any{{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, {"name": "crc32c"}},
			"index_location": loc,
		}}}
		a, err := CreateArray(ctx, s, "s"+loc, ArrayOptions{Shape: []int{10, 12}, Chunks: []int{4, 6}, DType: "<i4", FillValue: -7, ZarrFormat: 3, Codecs: codecs})
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]byte, 8*12*4)
		for i := range vals {
			vals[i] = byte(i * 7)
		}
		sel8, _ := ParseSelection("0:8, :")
		if err := a.Write(ctx, sel8, ndBytes(t, a, []int{8, 12}, vals)); err != nil {
			t.Fatal(err)
		}
		sel01, _ := ParseSelection("0:2, 0:3")
		if err := a.Write(ctx, sel01, ndBytes(t, a, []int{2, 3}, bytes.Repeat([]byte{0xf9, 0xff, 0xff, 0xff}, 6))); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"", "1:9, 2:11", "::3, 1::4", "9, :", "3, 4", "..., 7", "0:10:2, 0:12:5", "2:2, :"} {
			sel, _ := ParseSelection(text)
			p, why, _, err := a.PlanDirectRead(sel)
			if err != nil || p == nil || p.Shard == nil || p.Direct != "raw" {
				t.Fatalf("%s [%s]: %+v %q %v", loc, text, p, why, err)
			}
			if p.Shard.AtEnd != (loc == "end") || p.Shard.IndexSize != 4*16+4 || p.Shard.Inner[0] != 2 {
				t.Fatalf("%s: %+v", loc, p.Shard)
			}
			want, err := a.Read(ctx, sel)
			if err != nil {
				t.Fatal(err)
			}
			got := nd.Filled(a.meta.DType, p.FullShape, a.meta.Fill)
			for _, c := range p.Chunks {
				whole, _, _ := s.Get(ctx, c.Key)
				if whole == nil {
					continue // a missing shard: the fill value
				}
				var index []byte
				if wholeChunk(c.In, c.Shape) {
					// (the whole value, as the engine reads a whole shard)
					index = whole[:p.Shard.IndexSize]
					if p.Shard.AtEnd {
						index = whole[int64(len(whole))-p.Shard.IndexSize:]
					}
				} else {
					r := store.Span(0, p.Shard.IndexSize)
					if p.Shard.AtEnd {
						r = store.Last(p.Shard.IndexSize)
					}
					index, _ = store.Slice(whole, r)
				}
				parts, inner, err := a.PlanShardParts(c.Index, index, c.In)
				if err != nil {
					t.Fatal(err)
				}
				for _, pt := range parts {
					chunk, err := nd.FromBytes(a.meta.DType, inner, whole[pt.Offset:pt.Offset+pt.Length])
					if err != nil {
						t.Fatal(err)
					}
					out := make([]nd.Range, len(pt.Out))
					for d, o := range pt.Out {
						out[d] = nd.Range{Start: c.Out[d].Start + o.Start*c.Out[d].Step, Step: o.Step * c.Out[d].Step, Count: o.Count}
					}
					nd.Copy(got, out, chunk, pt.In)
				}
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%s [%s]: planned read differs from Read", loc, text)
			}
		}
		// A corrupt index: Read's error.
		key := a.ChunkKey([]int{0, 0})
		whole, _, _ := s.Get(ctx, key)
		if _, _, err := a.PlanShardParts([]int{0, 0}, whole[:10], nd.Whole([]int{4, 6})); errs.CodeOf(err) != errs.Codec {
			t.Fatalf("short index: %v", err)
		}
	}
}

func ndBytes(t *testing.T, a *Array, shape []int, b []byte) *NDArray {
	v, err := NDArrayFromBytes(a.meta.DType, shape, b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
