package zarr_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// countingStore counts the reads that reach a store, like HTTP requests.
type countingStore struct {
	*store.Memory
	gets, ranges atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	c.gets.Add(1)
	return c.Memory.Get(ctx, key)
}

func (c *countingStore) GetRange(ctx context.Context, key string, r store.ByteRange) ([]byte, bool, error) {
	c.ranges.Add(1)
	return c.Memory.GetRange(ctx, key, r)
}

func (c *countingStore) ReadVersion(ctx context.Context, key string, r store.ByteRange, cond store.Conditions) (store.Versioned, error) {
	if r.IsWhole() {
		c.gets.Add(1)
	} else {
		c.ranges.Add(1)
	}
	return c.Memory.ReadVersion(ctx, key, r, cond)
}

func int32s(n int, f func(i int) int32) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(f(i)))
	}
	return b
}

// TestShardedReadCostsTwoRequests: once the metadata is loaded, reading one
// inner chunk of a shard is one request for the index and one for the chunk.
func TestShardedReadCostsTwoRequests(t *testing.T) {
	ctx := context.Background()
	for _, loc := range []string{"end", "start"} {
		t.Run(loc, func(t *testing.T) {
			s := &countingStore{Memory: store.NewMemory()}
			codecs := []map[string]any{{"name": "sharding_indexed", "configuration": map[string]any{
				"chunk_shape":    []int{4, 4},
				"codecs":         []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, map[string]any{"name": "gzip", "configuration": map[string]any{"level": 1}}},
				"index_codecs":   []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, map[string]any{"name": "crc32c"}},
				"index_location": loc,
			}}}
			arr, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{Shape: []int{32, 32}, Chunks: []int{16, 16}, DType: "int32", Codecs: codecs})
			if err != nil {
				t.Fatal(err)
			}
			all, _ := zarr.NDArrayFromBytes(arr.DType(), []int{32, 32}, int32s(32*32, func(i int) int32 { return int32(i) }))
			if err := arr.Write(ctx, nil, all); err != nil {
				t.Fatal(err)
			}
			arr, err = zarr.OpenArray(ctx, s, "a")
			if err != nil {
				t.Fatal(err)
			}
			s.gets.Store(0)
			s.ranges.Store(0)
			sel, _ := zarr.ParseSelection("20:23, 5:7") // inside inner chunk (5, 1) of shard (1, 0)
			got, err := arr.Read(ctx, sel)
			if err != nil {
				t.Fatal(err)
			}
			if n := s.gets.Load() + s.ranges.Load(); n != 2 || s.gets.Load() != 0 {
				t.Errorf("%d whole reads and %d range reads, want 0 and 2", s.gets.Load(), s.ranges.Load())
			}
			want := int32s(6, func(i int) int32 { return int32((20+i/2)*32 + 5 + i%2) })
			if string(got.Bytes()) != string(want) {
				t.Errorf("values differ")
			}
			// A strided read across shards reads the same as a full read.
			full, _ := arr.Read(ctx, nil)
			sel, _ = zarr.ParseSelection("1::5, ::3")
			part, err := arr.Read(ctx, sel)
			if err != nil {
				t.Fatal(err)
			}
			fb, pb := full.Bytes(), part.Bytes()
			k := 0
			for i := 1; i < 32; i += 5 {
				for j := 0; j < 32; j += 3 {
					if string(pb[k*4:k*4+4]) != string(fb[(i*32+j)*4:(i*32+j)*4+4]) {
						t.Fatalf("strided element (%d, %d) differs", i, j)
					}
					k++
				}
			}
		})
	}
}

func TestV3CreateOptions(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	arr, err := zarr.CreateArray(ctx, s, "g/r", zarr.ArrayOptions{Shape: []int{10, 6}, Chunks: []int{4, 3}, DType: ">i4",
		ChunkSizes: [][]int{{3, 3, 3, 1}, nil}, DimensionNames: []string{"y", "x"}, Attributes: map[string]any{"a": 1}, Order: "F"})
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := s.Get(ctx, "g/r/zarr.json")
	for _, want := range []string{`"rectilinear"`, `[3,3]`, `"endian": "big"`, `"transpose"`, `"dimension_names"`} {
		if !strings.Contains(strings.ReplaceAll(string(doc), ",\n", ","), want) && !strings.Contains(compact(string(doc)), compact(want)) {
			t.Errorf("zarr.json lacks %s:\n%s", want, doc)
		}
	}
	vals, _ := zarr.NDArrayFromBytes(arr.DType(), []int{10, 6}, int32s(60, func(i int) int32 { return int32(i * 3) }))
	if err := arr.Write(ctx, nil, vals); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "g/r/c/3/1"); !ok {
		t.Errorf("chunk c/3/1 of the last variable chunk row was not written: %v", s.Keys())
	}
	back, err := zarr.OpenArray(ctx, s, "g/r")
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Read(ctx, nil)
	if err != nil || string(got.Bytes()) != string(vals.Bytes()) {
		t.Fatalf("read back differs: %v", err)
	}
	if back.Attrs()["a"] == nil || fmt.Sprint(back.ChunkSizes()) != "[[3 3 3 1] []]" {
		t.Errorf("attrs %v, chunk sizes %v", back.Attrs(), back.ChunkSizes())
	}
	if err := back.UpdateAttrs(ctx, map[string]any{"b": "x"}); err != nil {
		t.Fatal(err)
	}
	again, _ := zarr.OpenArray(ctx, s, "g/r")
	if again.Attrs()["b"] != "x" || again.Attrs()["a"] == nil {
		t.Errorf("attributes after update: %v", again.Attrs())
	}
	if g, err := zarr.OpenGroup(ctx, s, "g"); err != nil || g.ZarrFormat() != 3 {
		t.Errorf("ancestor group: %v %v", g, err)
	}
	_, err = zarr.CreateArray(ctx, s, "o", zarr.ArrayOptions{Shape: []int{2}, DType: "|O"})
	wantCode(t, err, zarr.CodeUnsupported)
}

func compact(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func TestV3UnknownMustUnderstandField(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	base := `"zarr_format":3,"node_type":"array","shape":[2],"data_type":"int8","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes"}]`
	_ = s.Set(ctx, "ok/zarr.json", []byte(`{`+base+`,"extra":{"must_understand":false,"x":1}}`))
	_ = s.Set(ctx, "bad/zarr.json", []byte(`{`+base+`,"extra":{"x":1}}`))
	if _, err := zarr.OpenArray(ctx, s, "ok"); err != nil {
		t.Errorf("must_understand false must open: %v", err)
	}
	_, err := zarr.OpenArray(ctx, s, "bad")
	wantCode(t, err, zarr.CodeUnsupported)
	if !strings.Contains(err.Error(), "extra") {
		t.Errorf("error %q does not name the field", err)
	}
}

func TestV3Consolidate(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	for _, p := range []string{"a/x", "a/b/y", "z"} {
		if _, err := zarr.CreateArray(ctx, s, p, zarr.ArrayOptions{Shape: []int{4}, DType: "uint8", Attributes: map[string]any{"p": p}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zarr.Consolidate(ctx, s, ""); err != nil {
		t.Fatal(err)
	}
	s2 := getOnly{s}
	root, err := zarr.OpenGroup(ctx, s2, "")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := root.Consolidated(ctx); err != nil || !c {
		t.Fatalf("root not consolidated: %v", err)
	}
	kids, err := root.Children(ctx)
	if err != nil || len(kids) != 2 {
		t.Fatalf("children %v, %v", kids, err)
	}
	a, err := root.Open(ctx, "a/b/y")
	if err != nil || a.Attrs()["p"] != "a/b/y" {
		t.Fatalf("a/b/y through consolidated metadata: %v %v", a, err)
	}
}
