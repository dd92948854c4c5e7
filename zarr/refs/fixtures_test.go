package refs_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// The fixtures of tests/refs: reference sets and targets written by
// tests/refs/gen.py, with what fsspec 2022.11 and zarr-python 2.13 read
// from them (expanded.json, keys.json, cases.json).

func refsDir() string { return filepath.Join(peers.RepoRoot(), "tests", "refs") }
func dataDir() string { return filepath.Join(refsDir(), "data") }

// fileFetcher reads file:// URLs under the fixture directory and counts the
// calls.
type fileFetcher struct {
	refs.StoreFetcher
	mu    sync.Mutex
	calls []string
}

func newFileFetcher(t testing.TB) (*fileFetcher, string) {
	t.Helper()
	d, err := store.NewDirectory(dataDir())
	if err != nil {
		t.Fatal(err)
	}
	prefix := "file://" + filepath.ToSlash(dataDir()) + "/"
	return &fileFetcher{StoreFetcher: refs.StoreFetcher{Prefix: prefix, Store: d}}, prefix
}

func (f *fileFetcher) Fetch(ctx context.Context, url string, r store.ByteRange) ([]byte, bool, error) {
	f.mu.Lock()
	f.calls = append(f.calls, url+" "+r.String())
	f.mu.Unlock()
	return f.StoreFetcher.Fetch(ctx, url, r)
}

func (f *fileFetcher) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// setOptions are the options gen.py gave fsspec for each set.
func setOptions(rel string) refs.Options {
	if rel == "json/v1_target.json" {
		return refs.Options{Target: "t1.bin"}
	}
	return refs.Options{}
}

func openSet(t testing.TB, rel string) (*refs.Store, *fileFetcher) {
	t.Helper()
	f, prefix := newFileFetcher(t)
	data, err := os.ReadFile(filepath.Join(dataDir(), rel))
	if err != nil {
		t.Fatal(err)
	}
	opt := setOptions(rel)
	opt.BaseURL = prefix + rel
	opt.Fetcher = f
	s, err := refs.FromJSON(context.Background(), data, opt)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return s, f
}

type expandedRef struct {
	Data  *string `json:"data"`
	URL   string  `json:"url"`
	Start *int64  `json:"start"`
	End   *int64  `json:"end"`
}

func loadJSON(t testing.TB, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(refsDir(), name))
	if err != nil {
		t.Fatalf("%v (run /usr/bin/python3 tests/refs/gen.py)", err)
	}
	if err := jsonx.UnmarshalStrict(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func b64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExpandedLikeFsspec compares every key's reference with fsspec's
// resolution of it: templates, gen entries, inline data, null urls, and the
// reference spec's own example.
func TestExpandedLikeFsspec(t *testing.T) {
	var exp map[string]map[string]expandedRef
	loadJSON(t, "expanded.json", &exp)
	ctx := context.Background()
	for rel, keys := range exp {
		t.Run(rel, func(t *testing.T) {
			s, _ := openSet(t, rel)
			var want []string
			for k := range keys {
				want = append(want, k)
			}
			sort.Strings(want)
			if got := s.Keys(); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("keys differ:\n got %q\nwant %q", got, want)
			}
			opt := setOptions(rel)
			for k, e := range keys {
				r, ok, err := s.Lookup(ctx, k)
				if err != nil || !ok {
					t.Errorf("%s: %v %v", k, ok, err)
					continue
				}
				if e.Data != nil {
					if !r.Inline || !bytes.Equal(r.Data, b64(t, *e.Data)) {
						t.Errorf("%s: %+v, want inline %q", k, r, b64(t, *e.Data))
					}
					continue
				}
				u := r.URL
				if u == "" {
					u = opt.Target
				}
				wantLen := int64(-1)
				var wantOff int64
				if e.Start != nil {
					wantOff, wantLen = *e.Start, *e.End-*e.Start
				}
				if r.Inline || u != e.URL || r.Offset != wantOff || r.Length != wantLen {
					t.Errorf("%s: %s %d+%d, fsspec: %s %d+%d", k, u, r.Offset, r.Length, e.URL, wantOff, wantLen)
				}
			}
		})
	}
}

type keyBytes struct {
	Keys   map[string]string `json:"keys"`
	Ranges []struct {
		Key    string  `json:"key"`
		Start  *int64  `json:"start"`
		End    *int64  `json:"end"`
		Data   *string `json:"data"`
		Sliced string  `json:"sliced"`
		Error  string  `json:"error"`
	} `json:"ranges"`
}

// TestKeyBytesLikeFsspec reads every key, and ranges of some, and compares
// the bytes with fsspec's cat_file.
func TestKeyBytesLikeFsspec(t *testing.T) {
	var exp map[string]keyBytes
	loadJSON(t, "keys.json", &exp)
	ctx := context.Background()
	for rel, kb := range exp {
		t.Run(rel, func(t *testing.T) {
			s, _ := openSet(t, rel)
			for k, want := range kb.Keys {
				got, ok, err := s.Get(ctx, k)
				if err != nil || !ok {
					t.Errorf("%s: %v %v", k, ok, err)
					continue
				}
				if !bytes.Equal(got, b64(t, want)) {
					t.Errorf("%s: %d bytes differ from fsspec's %d", k, len(got), len(b64(t, want)))
				}
			}
			for _, r := range kb.Ranges {
				size := int64(len(b64(t, kb.Keys[r.Key])))
				var br store.ByteRange
				switch {
				case r.Start != nil && *r.Start < 0 && r.End == nil:
					br = store.Last(-*r.Start)
				case r.End == nil:
					br = store.From(*r.Start)
				case *r.End < 0:
					br = store.Span(*r.Start, size+*r.End-*r.Start)
				default:
					br = store.Span(*r.Start, *r.End-*r.Start)
				}
				got, ok, err := s.GetRange(ctx, r.Key, br)
				if r.Data != nil && *r.Data != r.Sliced {
					// fsspec read outside the reference's block: the store
					// keeps to the value (an error, or the clamped range)
					if err == nil && !bytes.Equal(got, b64(t, r.Sliced)) {
						t.Errorf("%s %s: %q, outside the value %q", r.Key, br, got, b64(t, r.Sliced))
					}
					continue
				}
				if r.Data == nil {
					if err == nil {
						t.Errorf("%s %s: %q, fsspec refuses (%s)", r.Key, br, got, r.Error)
					}
					continue
				}
				if err != nil || !ok {
					t.Errorf("%s %s: %v %v", r.Key, br, ok, err)
					continue
				}
				if want := b64(t, *r.Data); !bytes.Equal(got, want) {
					t.Errorf("%s %s: %q, fsspec %q", r.Key, br, got, want)
				}
			}
		})
	}
}

// TestArraysLikeZarrPython reads every array of every reference set with
// the engine and compares with zarr-python reading it through fsspec.
func TestArraysLikeZarrPython(t *testing.T) {
	cases, err := conformance.Load(filepath.Join(refsDir(), "cases.json"))
	if err != nil {
		t.Fatalf("%v (run /usr/bin/python3 tests/refs/gen.py)", err)
	}
	if len(cases) < 60 {
		t.Fatalf("only %d cases", len(cases))
	}
	ctx := context.Background()
	stores := map[string]*refs.Store{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			s := stores[c.Store]
			if s == nil {
				s, _ = openSet(t, c.Store)
				stores[c.Store] = s
			}
			if err := conformance.CheckStore(ctx, s, c); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestGroupsAndListing walks the hierarchy of a reference set through List.
func TestGroupsAndListing(t *testing.T) {
	ctx := context.Background()
	s, _ := openSet(t, "json/v0.json")
	got, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".zattrs", ".zgroup", "counts/", "deep/", "labels/", "misc/", "scalar/", "small/", "temp/", "whole/"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("List(\"\") = %q, want %q", got, want)
	}
	got, _ = s.List(ctx, "deep/nested/arr/0/")
	if strings.Join(got, ",") != "0,1" {
		t.Fatalf("List(deep/nested/arr/0/) = %q", got)
	}
	g, err := zarr.OpenGroup(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	kids, err := g.Children(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range kids {
		names = append(names, k.Name)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "counts,deep,labels,scalar,small,temp,whole" {
		t.Fatalf("children %q", names)
	}
}

// TestCoalescing: the ten chunks of counts lie back to back in t1.bin; read
// together they cost one fetch, read apart (no merging) ten.
func TestCoalescing(t *testing.T) {
	ctx := context.Background()
	var keys []string
	for i := 0; i < 10; i++ {
		keys = append(keys, "counts/"+string(rune('0'+i)))
	}
	s, f := openSet(t, "json/v0.json")
	got, err := s.GetMany(ctx, keys)
	if err != nil || len(got) != 10 {
		t.Fatal(len(got), err)
	}
	if n := f.count(); n != 1 {
		t.Fatalf("GetMany: %d fetches, want 1: %q", n, f.calls)
	}
	data, _ := os.ReadFile(filepath.Join(dataDir(), "json/v0.json"))
	ff, prefix := newFileFetcher(t)
	s2, err := refs.FromJSON(ctx, data, refs.Options{BaseURL: prefix + "json/v0.json", Fetcher: ff, MaxGap: -1})
	if err != nil {
		t.Fatal(err)
	}
	got2, err := s2.GetMany(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for k := range got {
		if !bytes.Equal(got[k], got2[k]) {
			t.Fatalf("%s differs with and without merging", k)
		}
	}
	if n := ff.count(); n != 10 {
		t.Fatalf("without merging: %d fetches, want 10", n)
	}
	// the engine reads chunks concurrently: the window merges them
	s3, f3 := openSet(t, "json/v0.json")
	arr, err := zarr.OpenArray(ctx, s3, "counts")
	if err != nil {
		t.Fatal(err)
	}
	before := f3.count()
	sel, _ := zarr.ParseSelection("")
	if _, err := arr.Read(ctx, sel); err != nil {
		t.Fatal(err)
	}
	if n := f3.count() - before; n > 2 {
		t.Errorf("engine read of 10 adjacent chunks: %d fetches: %q", n, f3.calls[before:])
	}
	t.Logf("engine read of 10 adjacent chunks: %d fetch(es)", f3.count()-before)
}

func TestErrorsNameTheKey(t *testing.T) {
	ctx := context.Background()
	data, _ := os.ReadFile(filepath.Join(dataDir(), "json/v1_target.json"))
	f, prefix := newFileFetcher(t)
	s, err := refs.FromJSON(ctx, data, refs.Options{BaseURL: prefix + "json/v1_target.json", Fetcher: f})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get(ctx, "counts/3")
	var e *errs.Error
	if !asErr(err, &e) || e.Code != errs.InvalidMetadata || e.Where != "counts/3" || !strings.Contains(e.Msg, "Target") {
		t.Fatalf("null url without a target: %v", err)
	}
}

func asErr(err error, e **errs.Error) bool {
	x, ok := err.(*errs.Error)
	if ok {
		*e = x
	}
	return ok
}
