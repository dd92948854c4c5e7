package refs_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
)

// The Parquet reference directories under tests/refs/data/pq, written by
// other implementations from pq/refs.json (write_parquet.mjs:
// hyparquet-writer; pqgo/: parquet-go), must read exactly like that JSON.

func parquetVariants(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dataDir(), "pq"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) < 4 {
		t.Fatalf("only %d Parquet variants under data/pq (run node tests/refs/write_parquet.mjs)", len(out))
	}
	return out
}

func openParquet(t testing.TB, variant string) (*refs.Store, *fileFetcher) {
	t.Helper()
	f, prefix := newFileFetcher(t)
	s, err := refs.FromParquet(context.Background(), prefix+"pq/"+variant, refs.Options{Fetcher: f})
	if err != nil {
		t.Fatalf("%s: %v", variant, err)
	}
	return s, f
}

// gridKeys lists every chunk key of the arrays in the JSON source.
func gridKeys(t testing.TB, src *refs.Store) []string {
	ctx := context.Background()
	var out []string
	for _, k := range src.Keys() {
		if !strings.HasSuffix(k, ".zarray") {
			continue
		}
		data, _, _ := src.Get(ctx, k)
		var m struct{ Shape, Chunks []int }
		if err := jsonx.UnmarshalStrict(data, &m); err != nil {
			t.Fatal(err)
		}
		field := strings.TrimSuffix(strings.TrimSuffix(k, ".zarray"), "/")
		grid := make([]int, len(m.Shape))
		total := 1
		for i := range grid {
			grid[i] = (m.Shape[i] + m.Chunks[i] - 1) / m.Chunks[i]
			total *= grid[i]
		}
		for n := 0; n < total; n++ {
			idx := make([]string, len(grid))
			r := n
			for d := len(grid) - 1; d >= 0; d-- {
				idx[d] = itoa(r % grid[d])
				r /= grid[d]
			}
			key := strings.Join(idx, ".")
			if len(grid) == 0 {
				key = "0"
			}
			out = append(out, field+"/"+key)
		}
		// keys outside the grid are absent too
		if len(grid) > 0 {
			out = append(out, field+"/"+strings.Repeat("0.", len(grid)-1)+itoa(grid[len(grid)-1]))
		}
		out = append(out, field+"/x", field+"/"+strings.Repeat("0.", len(grid)))
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestParquetEqualsJSON(t *testing.T) {
	ctx := context.Background()
	src, _ := openSet(t, "pq/refs.json")
	keys := append(src.Keys(), gridKeys(t, src)...)
	for _, v := range parquetVariants(t) {
		t.Run(v, func(t *testing.T) {
			s, _ := openParquet(t, v)
			for _, k := range keys {
				want, wok, werr := src.Get(ctx, k)
				got, gok, gerr := s.Get(ctx, k)
				if werr != nil || gerr != nil {
					t.Fatalf("%s: %v / %v", k, werr, gerr)
				}
				if wok != gok {
					t.Errorf("%s: present %v, in JSON %v", k, gok, wok)
					continue
				}
				if strings.Contains(k, "/.z") || strings.HasPrefix(k, ".z") {
					var a, b any
					if jsonx.UnmarshalStrict(want, &a) != nil || jsonx.UnmarshalStrict(got, &b) != nil || !reflect.DeepEqual(a, b) {
						t.Errorf("%s: %s, JSON %s", k, got, want)
					}
					continue
				}
				if string(got) != string(want) {
					t.Errorf("%s: %d bytes differ from the JSON form's %d", k, len(got), len(want))
				}
				if wok {
					wr, _, _ := src.Lookup(ctx, k)
					gr, _, _ := s.Lookup(ctx, k)
					if wr.FetchURL != gr.FetchURL || wr.Offset != gr.Offset || wr.Length != gr.Length {
						t.Errorf("%s: %+v, JSON %+v", k, gr, wr)
					}
				}
			}
		})
	}
}

func TestParquetArraysLikeZarrPython(t *testing.T) {
	cases, err := conformance.Load(filepath.Join(refsDir(), "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n := 0
	for _, v := range parquetVariants(t) {
		s, _ := openParquet(t, v)
		for _, c := range cases {
			if c.Store != "pq/refs.json" {
				continue
			}
			n++
			t.Run(v+"/"+c.Name, func(t *testing.T) {
				if err := conformance.CheckStore(ctx, s, c); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no pq cases")
	}
}

// TestParquetLazy: opening reads .zmetadata only; a chunk costs its record
// file once (then cached) and its target range.
func TestParquetLazy(t *testing.T) {
	ctx := context.Background()
	s, f := openParquet(t, "hyp_zstd")
	if n := f.count(); n != 1 {
		t.Fatalf("open: %d fetches %q", n, f.calls)
	}
	// a/big/0.1 is record 1 (file 0), in a target
	if _, ok, err := s.Get(ctx, "a/big/0.1"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if n := f.count(); n != 3 || !strings.Contains(f.calls[1], "a/big/refs.0.parq") {
		t.Fatalf("first chunk: %q", f.calls)
	}
	// a/big/0.2 is in the same record file: one fetch, of the target
	if _, ok, err := s.Get(ctx, "a/big/0.2"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if n := f.count(); n != 4 {
		t.Fatalf("second chunk: %q", f.calls)
	}
	// a/big/3.2 is record 32 (file 2): all null, absent
	if _, ok, err := s.Get(ctx, "a/big/3.2"); ok || err != nil {
		t.Fatal(ok, err)
	}
	if n := f.count(); n != 5 || !strings.Contains(f.calls[4], "a/big/refs.2.parq") {
		t.Fatalf("missing chunk: %q", f.calls)
	}
	// hyp_old has no refs.2.parq at all: absent as well
	s2, f2 := openParquet(t, "hyp_old")
	if _, ok, err := s2.Get(ctx, "a/big/3.2"); ok || err != nil {
		t.Fatal(ok, err)
	}
	if n := f2.count(); n != 2 {
		t.Fatalf("missing file: %q", f2.calls)
	}
	// listing sees the metadata
	got, _ := s.List(ctx, "a/")
	if strings.Join(got, ",") != ".zgroup,big/" {
		t.Fatalf("List(a/) = %q", got)
	}
}

func TestParquetCacheBound(t *testing.T) {
	ctx := context.Background()
	f, prefix := newFileFetcher(t)
	s, err := refs.FromParquet(ctx, prefix+"pq/hyp_zstd/.zmetadata", refs.Options{Fetcher: f, CacheFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a/big/0.1", "a/big/2.1", "a/big/5.0", "a/big/0.2"} { // files 0, 1, 3, 0
		if _, ok, err := s.Get(ctx, k); !ok || err != nil {
			t.Fatal(k, ok, err)
		}
	}
	parq := 0
	for _, c := range f.calls {
		if strings.Contains(c, ".parq") {
			parq++
		}
	}
	if parq != 4 { // file 0 was evicted by files 1 and 3
		t.Fatalf("%d record file fetches: %q", parq, f.calls)
	}
}
