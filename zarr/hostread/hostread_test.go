package hostread

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

var allDecoders = Host{Decoders: []string{"zstd", "zlib", "gzip", "blosc"}, MinWorkerRead: -1}

// run executes p as the npm package's executor does, in Go: every fetch
// through the store (ranges, conditions), shards expanded through Expand
// with the JSON the bridge passes, each chunk decoded by the engine (the
// host's decoders decode to the same bytes) and copied into the result.
// It returns the result's bytes and the decode sites seen.
func run(t *testing.T, arr *zarr.Array, s zarr.Store, p *Plan, h Host) ([]byte, map[string]int) {
	t.Helper()
	ctx := context.Background()
	dt := arr.DType()
	out := nd.New(dt, p.FullShape)
	if p.Fill != nil {
		b := out.Raw()
		for i := 0; i < len(b); i += len(p.Fill) {
			copy(b[i:], p.Fill)
		}
	}
	sites := map[string]int{}
	place := func(c Chunk, data []byte) {
		var chunk *nd.Array
		var err error
		if c.Decode == Raw {
			chunk, err = nd.FromBytes(dt, c.Shape, data)
		} else if c.Inner {
			chunk, err = arr.DecodeInner(c.Coords, data)
		} else {
			chunk, err = arr.DecodeChunk(c.Coords, data)
		}
		if err != nil {
			t.Fatalf("decode %v: %v", c.Coords, err)
		}
		sites[c.Decode]++
		nd.Copy(out, c.Out, chunk, c.In)
	}
	queue := append([]Fetch(nil), p.Fetches...)
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		var r store.ByteRange
		switch {
		case f.Range.Whole():
			r = store.WholeValue()
		case f.Range.Suffix > 0:
			r = store.Last(f.Range.Suffix)
		default:
			r = store.Span(f.Range.Offset, f.Range.Length)
		}
		v, err := store.Read(ctx, s, f.Key, r, store.Conditions{IfMatch: store.Generation(f.IfMatch)})
		if err != nil {
			t.Fatalf("fetch %s: %v", f.Key, err)
		}
		if !v.Found {
			continue // the fill value stands
		}
		if sh := f.Shard; sh != nil {
			index := v.Data
			if sh.Whole {
				if sh.AtEnd {
					index = v.Data[int64(len(v.Data))-sh.IndexLength:]
				} else {
					index = v.Data[:sh.IndexLength]
				}
			}
			// (through the JSON the bridge takes)
			req, _ := json.Marshal([]map[string]any{{"shard": shardMap(sh), "generation": string(v.Generation), "size": len(v.Data)}})
			reqs, err := ParseShardRequests(req, index, len(arr.Shape()))
			if err != nil {
				t.Fatal(err)
			}
			xs, err := Expand(arr, reqs, h)
			if err != nil {
				t.Fatal(err)
			}
			// (and back through the JSON the executor reads)
			var back []map[string]any
			if err := json.Unmarshal(AppendExpansionsJSON(nil, xs), &back); err != nil {
				t.Fatal(err)
			}
			for _, c := range xs[0].Chunks {
				place(c, v.Data[c.Offset:c.Offset+c.Length])
			}
			queue = append(xs[0].Fetches, queue...)
			continue
		}
		for _, c := range f.Chunks {
			data := v.Data
			if c.Length >= 0 {
				data = data[c.Offset : c.Offset+c.Length]
			}
			place(c, data)
		}
	}
	return out.Raw(), sites
}

func shardMap(s *Shard) map[string]any {
	var in, out []int
	for d := range s.In {
		in = append(in, s.In[d].Start, s.In[d].Step, s.In[d].Count)
		out = append(out, s.Out[d].Start, s.Out[d].Step)
	}
	return map[string]any{"coords": s.Coords, "shape": s.Shape, "in": in, "out": out, "indexLength": s.IndexLength, "atEnd": s.AtEnd, "whole": s.Whole}
}

func create(t *testing.T, s zarr.Store, path string, o zarr.ArrayOptions) *zarr.Array {
	t.Helper()
	ctx := context.Background()
	a, err := zarr.CreateArray(ctx, s, path, o)
	if err != nil {
		t.Fatal(err)
	}
	n := 1
	for _, x := range o.Shape {
		n *= x
	}
	vals := make([]byte, n*a.DType().Size)
	for i := range vals {
		vals[i] = byte(i*7 + i/13)
	}
	// (leave the last rows unwritten: missing chunks read as the fill value)
	sel, _ := zarr.ParseSelection(fmt.Sprintf("0:%d", o.Shape[0]*2/3))
	shape, _ := a.SelectionShape(sel)
	m := 1
	for _, x := range shape {
		m *= x
	}
	v, err := zarr.NDArrayFromBytes(a.DType(), shape, vals[:m*a.DType().Size])
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Write(ctx, sel, v); err != nil {
		t.Fatal(err)
	}
	if a, err = zarr.OpenArray(ctx, s, path); err != nil {
		t.Fatal(err)
	}
	return a
}

func sharding(loc string, inner []int, codecs ...map[string]any) []map[string]any {
	return []map[string]any{{"name": "sharding_indexed", "configuration": map[string]any{
		"chunk_shape":    inner,
		"codecs":         append([]map[string]any{{"name": "bytes", "configuration": map[string]any{"endian": "little"}}}, codecs...),
		"index_codecs":   []map[string]any{{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, {"name": "crc32c"}},
		"index_location": loc,
	}}}
}

// Every plan, run, reads what Read reads: chunks whole and in part, strides,
// indices, empty selections, missing chunks, fill values, edge chunks;
// and each chunk is decoded where the host can (or by the engine).
func TestPlansReadWhatReadReads(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	zstd := map[string]any{"name": "zstd", "configuration": map[string]any{"level": 1, "checksum": false}}
	blosc := map[string]any{"name": "blosc", "configuration": map[string]any{"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}
	bitshuffle := map[string]any{"name": "blosc", "configuration": map[string]any{"cname": "lz4", "clevel": 5, "shuffle": "bitshuffle", "typesize": 4, "blocksize": 0}}
	cases := []struct {
		name  string
		opt   zarr.ArrayOptions
		sites []string // the decode sites the whole read uses
	}{
		{"raw v2", zarr.ArrayOptions{ZarrFormat: 2, NoCompressor: true}, []string{Raw}},
		{"zlib v2 fill", zarr.ArrayOptions{ZarrFormat: 2, Compressor: map[string]any{"id": "zlib", "level": 1}, FillValue: -7}, []string{"zlib"}},
		{"gzip v2", zarr.ArrayOptions{ZarrFormat: 2, Compressor: map[string]any{"id": "gzip", "level": 1}}, []string{"gzip"}},
		{"zstd v3", zarr.ArrayOptions{}, []string{"zstd"}},
		{"blosc v3", zarr.ArrayOptions{Codecs: []map[string]any{{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, blosc}}, []string{"blosc"}},
		{"bitshuffle v3", zarr.ArrayOptions{Codecs: []map[string]any{{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, bitshuffle}}, []string{Engine}},
		{"big-endian v2", zarr.ArrayOptions{ZarrFormat: 2, DType: ">i4", NoCompressor: true}, []string{Engine}},
		{"F order v2", zarr.ArrayOptions{ZarrFormat: 2, Order: "F", NoCompressor: true}, []string{Engine}},
		{"shuffle filter v2", zarr.ArrayOptions{ZarrFormat: 2, Filters: []map[string]any{{"id": "shuffle", "elementsize": 4}}, Compressor: map[string]any{"id": "zlib", "level": 1}}, []string{Engine}},
		{"shards at end", zarr.ArrayOptions{Codecs: sharding("end", []int{2, 3}), FillValue: -7}, []string{Raw}},
		{"shards at start, zstd", zarr.ArrayOptions{Codecs: sharding("start", []int{2, 3}, zstd)}, []string{"zstd"}},
		{"shards of shuffled chunks", zarr.ArrayOptions{Codecs: sharding("end", []int{2, 3}, bitshuffle)}, []string{Engine}},
	}
	for _, c := range cases {
		o := c.opt
		o.Shape, o.Overwrite = []int{10, 12}, true
		if o.Chunks == nil {
			o.Chunks = []int{4, 6}
		}
		if o.DType == nil {
			o.DType = "<i4"
		}
		arr := create(t, s, "a", o)
		for _, text := range []string{"", "1:9, 2:11", "::3, 1::4", "9, :", "3, 4", "..., 7", "0:10:2, 0:12:5", "2:2, :", "-1, ::-1"} {
			sel, err := zarr.ParseSelection(text)
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(arr, sel, allDecoders)
			want, rerr := arr.Read(ctx, sel)
			if rerr != nil || err != nil {
				if errs.CodeOf(err) != errs.CodeOf(rerr) {
					t.Fatalf("%s [%s]: plan %v, Read %v", c.name, text, err, rerr)
				}
				continue
			}
			if p.Engine != "" {
				t.Fatalf("%s [%s]: the engine reads it: %s", c.name, text, p.Engine)
			}
			if !equalInts(p.Shape, want.Shape()) {
				t.Fatalf("%s [%s]: shape %v, Read %v", c.name, text, p.Shape, want.Shape())
			}
			got, sites := run(t, arr, s, p, allDecoders)
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("%s [%s]: the plan read other values than Read", c.name, text)
			}
			if text == "" {
				for site := range sites {
					if !contains(c.sites, site) {
						t.Fatalf("%s: decoded at %s, want %v", c.name, site, c.sites)
					}
				}
			}
		}
	}
	// Without host decoders the engine decodes what is compressed.
	arr := create(t, s, "z", zarr.ArrayOptions{Shape: []int{10, 12}, Chunks: []int{4, 6}, DType: "<i4"})
	p, err := New(arr, nil, Host{})
	if err != nil {
		t.Fatal(err)
	}
	got, sites := run(t, arr, s, p, Host{})
	want, _ := arr.Read(ctx, nil)
	if !bytes.Equal(got, want.Bytes()) || sites[Engine] == 0 || len(sites) != 1 {
		t.Fatalf("no host decoders: %v", sites)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// What the engine must read itself, it plans as the engine's, and says
// whether that holds for every read of the array.
func TestEngineReads(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	create(t, s, "raw", zarr.ArrayOptions{Shape: []int{10}, Chunks: []int{5}, DType: "<i4", ZarrFormat: 2, NoCompressor: true})
	cached, err := zarr.OpenArray(ctx, s, "raw", zarr.WithCache(zarr.NewCachePool(1<<20)))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := New(cached, nil, allDecoders); err != nil || p.Engine != "chunk cache" || p.Fixed {
		t.Fatalf("with a cache: %+v %v", p, err)
	}
	strs, err := zarr.CreateArray(ctx, s, "s", zarr.ArrayOptions{Shape: []int{10}, Chunks: []int{5}, DType: "string"})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := New(strs, nil, allDecoders); err != nil || p.Engine == "" || !p.Fixed {
		t.Fatalf("strings: %+v %v", p, err)
	}
	var b []byte
	if b = (&Plan{Engine: "chunk cache"}).AppendJSON(nil); string(b) != `{"version":1,"engine":"chunk cache","fixed":false}` {
		t.Fatalf("%s", b)
	}
}

// Workers are planned only for reads that decode enough with the host's
// decoders.
func TestWorkersWorthIt(t *testing.T) {
	s := zarr.NewMemoryStore()
	ctx := context.Background()
	h := allDecoders
	h.Workers = 3
	big, err := zarr.CreateArray(ctx, s, "big", zarr.ArrayOptions{Shape: []int{4096, 4096}, Chunks: []int{256, 256}, DType: "<f4"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := zarr.CreateArray(ctx, s, "raw", zarr.ArrayOptions{Shape: []int{4096, 4096}, Chunks: []int{256, 256}, DType: "<f4", NoCompressor: true, ZarrFormat: 2})
	if err != nil {
		t.Fatal(err)
	}
	blosc := map[string]any{"name": "blosc", "configuration": map[string]any{"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}
	bloscArr, err := zarr.CreateArray(ctx, s, "blosc", zarr.ArrayOptions{Shape: []int{4096, 4096}, Chunks: []int{256, 256}, DType: "<f4", Codecs: []map[string]any{{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, blosc}})
	if err != nil {
		t.Fatal(err)
	}
	window, _ := zarr.ParseSelection("1000:2000, 1000:2000")
	transfer := h
	transfer.Transfer = true
	transferAll := transfer
	transferAll.MinWorkerRead = 0
	for _, c := range []struct {
		arr  *zarr.Array
		sel  zarr.Selection
		h    Host
		want int
	}{
		{big, nil, h, 3}, {big, window, h, 0}, {raw, nil, h, 0}, {bloscArr, nil, h, 3},
		// The default pool with results copied back takes no read under the
		// measured threshold; a threshold the caller sets still applies.
		{big, nil, transfer, 0}, {bloscArr, nil, transfer, 0}, {bloscArr, nil, transferAll, 3}, {big, nil, transferAll, 3},
	} {
		p, err := New(c.arr, c.sel, c.h)
		if err != nil {
			t.Fatal(err)
		}
		if p.Workers != c.want {
			t.Fatalf("%s %v (transfer %v): %d workers, want %d", c.arr.Path(), c.sel, c.h.Transfer, p.Workers, c.want)
		}
	}
}

// A shard's index that does not parse is the engine's CODEC error naming
// the shard; malformed requests are refused.
func TestExpandErrors(t *testing.T) {
	s := zarr.NewMemoryStore()
	arr := create(t, s, "s", zarr.ArrayOptions{Shape: []int{10, 12}, Chunks: []int{4, 6}, DType: "<i4", Codecs: sharding("end", []int{2, 3})})
	p, err := New(arr, nil, allDecoders)
	if err != nil {
		t.Fatal(err)
	}
	sh := p.Fetches[0].Shard
	req, _ := json.Marshal([]map[string]any{{"shard": shardMap(sh), "size": 100}})
	reqs, err := ParseShardRequests(req, make([]byte, sh.IndexLength), 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Expand(arr, reqs, allDecoders); errs.CodeOf(err) != errs.Codec {
		t.Fatalf("zeroed index: %v", err)
	}
	for _, bad := range []string{`{}`, `[{"shard":{"coords":[0],"shape":[4,6],"in":[0,1,4,0,1,6],"out":[0,1,0,1],"indexLength":68}}]`,
		`[{"shard":{"coords":[0,0],"shape":[4,6],"in":[0,1,9,0,1,6],"out":[0,1,0,1],"indexLength":68}}]`,
		`[{"shard":{"coords":[0,0],"shape":[4,6],"in":[0,1,4,0,1,6],"out":[0,1,0,1],"indexLength":99}}]`} {
		if _, err := ParseShardRequests([]byte(bad), make([]byte, 68), 2); errs.CodeOf(err) != errs.InvalidArgument {
			t.Fatalf("%s: %v", bad, err)
		}
	}
}

// The JSON form parses as JSON and says what the plan says.
func TestPlanJSON(t *testing.T) {
	s := zarr.NewMemoryStore()
	arr := create(t, s, "s", zarr.ArrayOptions{Shape: []int{10, 12}, Chunks: []int{4, 6}, DType: "<i4", FillValue: 3, Codecs: sharding("end", []int{2, 3})})
	sel, _ := zarr.ParseSelection("1:9, 4:11")
	p, err := New(arr, sel, allDecoders)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version     int
		ItemSize    int
		Shape       []int
		FullShape   []int
		Fill        []int
		Concurrency int
		Workers     int
		Fetches     []struct {
			Key       string
			Range     map[string]int64
			Versioned bool
			Shard     map[string]any
			Chunks    []any
		}
	}
	if err := json.Unmarshal(p.AppendJSON(nil), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || doc.ItemSize != 4 || !equalInts(doc.Shape, []int{8, 7}) || len(doc.Fill) != 4 || doc.Fill[0] != 3 || len(doc.Fetches) != 6 {
		t.Fatalf("%+v", doc)
	}
	f := doc.Fetches[0]
	if f.Key != "s/c/0/0" || f.Range["suffix"] != 4*16+4 || !f.Versioned || f.Shard["whole"] != false || len(f.Chunks) != 0 {
		t.Fatalf("%+v", f)
	}
}

// A shard whose inner chunks the region touches every one of is fetched
// whole, without its index first (its bytes would all be fetched anyway);
// one whose region misses an inner chunk is fetched by its index.
func TestWholeShardWhenEveryInnerChunkIsTouched(t *testing.T) {
	s := zarr.NewMemoryStore()
	arr := create(t, s, "s", zarr.ArrayOptions{Shape: []int{8, 12}, Chunks: []int{4, 6}, DType: "<i4", Codecs: sharding("end", []int{2, 3})})
	for _, c := range []struct {
		sel   string
		whole []bool
	}{
		{"1:3, 2:4", []bool{true}},                      // rows 1-2, cols 2-3: the 4 inner chunks of shard 0,0
		{"1:2, 2:4", []bool{false}},                     // one inner row only
		{"::3, ::5", []bool{true, false, false, false}}, // rows 0,3,6 and cols 0,5,10: shard 0,0 touches its 4 inner chunks, the others 1 or 2
		{"0:4, 0:6", []bool{true}},                      // every element
		{"0:4:2, 0:6", []bool{true}},                    // rows 0 and 2: inner rows 0 and 1
	} {
		sel, _ := zarr.ParseSelection(c.sel)
		p, err := New(arr, sel, allDecoders)
		if err != nil {
			t.Fatal(err)
		}
		var got []bool
		for _, f := range p.Fetches {
			got = append(got, f.Shard.Whole)
			if f.Shard.Whole == f.Versioned || f.Shard.Whole != f.Range.Whole() {
				t.Errorf("%s: %s: whole %v, versioned %v, range %+v", c.sel, f.Key, f.Shard.Whole, f.Versioned, f.Range)
			}
		}
		if !slices.Equal(got, c.whole) {
			t.Errorf("%s: whole %v, want %v", c.sel, got, c.whole)
		}
	}
}

func BenchmarkPlanWindow(b *testing.B) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	a, err := zarr.CreateArray(ctx, s, "r", zarr.ArrayOptions{Shape: []int{4096, 4096}, Chunks: []int{256, 256}, DType: "<f4"})
	if err != nil {
		b.Fatal(err)
	}
	sel, _ := zarr.ParseSelection("1500:2500, 1200:2200")
	var buf []byte
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := New(a, sel, allDecoders)
		if err != nil {
			b.Fatal(err)
		}
		buf = p.AppendJSON(buf[:0])
	}
}
