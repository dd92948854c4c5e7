package refs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
)

// Fuzz targets: the JSON reference parser (with gen and templates), the
// template evaluator, and the Parquet reference layout (.zmetadata plus a
// record file). Seed corpora are in testdata/fuzz; ZARR_WASM_WRITE_SEEDS=1
// go test -run TestWriteSeeds rewrites them from tests/refs/data.

var fuzzFiles = map[string][]byte{
	"https://h/d/t.bin":   []byte("0123456789abcdefghijklmnopqrstuvwxyz"),
	"https://h/d/sub/t3":  []byte("sub target"),
	"https://h/other.bin": []byte("other"),
}

func checkErr(t *testing.T, err error) {
	t.Helper()
	if err != nil && errs.CodeOf(err) == "" {
		t.Fatalf("untyped error %T: %v", err, err)
	}
}

func FuzzJSON(f *testing.F) {
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzmem.Input(t)()
		ctx := context.Background()
		mf := &memFetcher{files: fuzzFiles}
		s, err := FromJSON(ctx, data, Options{BaseURL: "https://h/d/refs.json", Fetcher: mf, Target: "t.bin",
			Window: -1, MaxGenKeys: 1 << 12})
		checkErr(t, err)
		if err != nil {
			return
		}
		keys := s.Keys()
		if !sort.StringsAreSorted(keys) {
			t.Fatal("keys not sorted")
		}
		if len(keys) > 64 {
			keys = keys[:64]
		}
		for _, k := range keys {
			d, ok, err := s.Get(ctx, k)
			checkErr(t, err)
			if err == nil && !ok {
				t.Fatalf("%q listed but absent", k)
			}
			r, ok2, err2 := s.Lookup(ctx, k)
			checkErr(t, err2)
			if err == nil && r.Inline && string(r.Data) != string(d) {
				t.Fatalf("%q: Lookup and Get differ", k)
			}
			_ = ok2
			sub, ok, err := s.GetRange(ctx, k, store.Span(1, 2))
			checkErr(t, err)
			if err == nil && ok && len(sub) > 2 {
				t.Fatalf("%q: range of 2 gave %d bytes", k, len(sub))
			}
			_, _, err = s.GetRange(ctx, k, store.Last(3))
			checkErr(t, err)
		}
		_, err = s.GetMany(ctx, keys)
		checkErr(t, err)
		for _, p := range []string{"", "a/", "deep/nested/"} {
			if _, err := s.List(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzTemplate(f *testing.F) {
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, src string) {
		defer fuzzmem.Input(t)()
		e := &env{vars: map[string]value{"i": intValue(3), "s": strValue("x")},
			templates: map[string]string{"u": "base", "f": "{{c}}/{{ c }}", "g": "{{ f(c=c) }}{{ f(c=c) }}", "r": "{{ r(x=1) }}"}}
		out, err := renderString(src, e)
		var te *tmplError
		if err != nil && !errors.As(err, &te) {
			t.Fatalf("untyped error %T: %v", err, err)
		}
		if err == nil && !hasTemplate(src) && out != src {
			t.Fatalf("%q rendered to %q", src, out)
		}
		if len(out) > maxRendered+len(src) {
			t.Fatalf("rendered %d bytes", len(out))
		}
	})
}

// FuzzLazy serves a .zmetadata and one record file as a Parquet reference
// directory and reads chunk keys of every array it declares.
func FuzzLazy(f *testing.F) {
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, zmeta, parq []byte, field string) {
		defer fuzzmem.Input(t)()
		ctx := context.Background()
		if strings.ContainsAny(field, "?#%") {
			return
		}
		files := map[string][]byte{"https://h/r/.zmetadata": zmeta}
		for k, v := range fuzzFiles {
			files[k] = v
		}
		rec := "https://h/r/refs.0.parq"
		if field != "" {
			rec = "https://h/r/" + urlx.EscapePath(field) + "/refs.0.parq"
		}
		files[rec] = parq
		mf := &memFetcher{files: files}
		s, err := FromParquet(ctx, "https://h/r/", Options{Fetcher: mf, Window: -1, CacheFiles: 2, parquetPage: 1 << 20})
		checkErr(t, err)
		if err != nil {
			return
		}
		for _, k := range s.Keys() {
			_, _, err := s.Get(ctx, k)
			checkErr(t, err)
		}
		prefix := ""
		if field != "" {
			prefix = field + "/"
		}
		for _, c := range []string{"0", "0.0", "1.0", "0.1", "2.3.1", "0.0.0", "10", "x"} {
			_, _, err := s.Get(ctx, prefix+c)
			checkErr(t, err)
			_, _, err = s.GetRange(ctx, prefix+c, store.From(1))
			checkErr(t, err)
		}
	})
}

func TestWriteSeeds(t *testing.T) {
	if os.Getenv("ZARR_WASM_WRITE_SEEDS") != "1" {
		t.Skip("set ZARR_WASM_WRITE_SEEDS=1 to rewrite the seed corpora")
	}
	data := filepath.Join("..", "..", "tests", "refs", "data")
	write := func(target, name string, vals ...any) {
		dir := filepath.Join("testdata", "fuzz", target)
		os.MkdirAll(dir, 0o755)
		var b strings.Builder
		b.WriteString("go test fuzz v1\n")
		for _, v := range vals {
			switch x := v.(type) {
			case []byte:
				b.WriteString("[]byte(" + strconv.Quote(string(x)) + ")\n")
			case string:
				b.WriteString("string(" + strconv.Quote(x) + ")\n")
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"FuzzJSON", "FuzzTemplate", "FuzzLazy"} {
		os.RemoveAll(filepath.Join("testdata", "fuzz", d))
	}
	// JSON: the fixtures, the spec example and hand-made edge cases
	for _, rel := range []string{"json/v0.json", "json/v1.json", "json/v1_gen.json", "json/v1_target.json", "json/v0_objects.json", "spec/example.json"} {
		b, err := os.ReadFile(filepath.Join(data, rel))
		if err != nil {
			t.Fatal(err)
		}
		write("FuzzJSON", strings.ReplaceAll(rel, "/", "-"), b)
	}
	for i, doc := range []string{
		`{"a": ["t.bin", 2, 3], "b": ["t.bin"], "c": [null, 1, 2], "d": "base64:AAEC", "e": {"x": NaN}, "f": ["sub/t3", 0, 3]}`,
		`{"version": 1, "templates": {"u": "t.bin", "m": "{{x}}.bin"}, "refs": {"a": ["{{u}}", 0, 4], "b": ["{{m(x='t')}}"], "c": ["{{ u | e }}"]}}`,
		`{"version": 1, "gen": [{"key": "k/{{i}}.{{j}}", "url": "t.bin", "offset": "{{ i * 3 + j }}", "length": "{{ 1 + j }}", "dimensions": {"i": {"start": 0, "stop": 4, "step": 2}, "j": [0, 1]}}]}`,
		`{"version": 1, "gen": [{"key": "w{{n}}", "url": "{{n}}", "dimensions": {"n": ["t.bin", "other.bin"]}}], "refs": {"w0": "x"}}`,
		`{"version": 2}`,
		`{"a": [1, 2, 3], "b": ["u", -1, 2], "c": ["u", 1], "d": 12, "e": null, "f": "base64:@@"}`,
		`{"version": 1, "templates": {"u": 5}, "refs": {"a": ["{{u}}"]}}`,
	} {
		write("FuzzJSON", fmt.Sprintf("hand-%d", i), []byte(doc))
	}
	for i, src := range []string{"{{u}}", "http://{{ f(c='text') }}", "{{(i + 1) * 1000}}", "{{ -i // 2 }}{{ i % -2 }}",
		"{{ g(c=s) }}", "{{ r() }}", "{{ u | upper }}", "{% if %}", "{{ 'a' + s }}", "a{b}c", "{{ 1_000 }}", "{{"} {
		write("FuzzTemplate", fmt.Sprintf("seed-%d", i), src)
	}
	// Lazy: .zmetadata of a variant with one of its record files
	for _, c := range []struct{ variant, field string }{
		{"hyp_zstd", "a/big"}, {"hyp_old", "scalar"}, {"pqgo_v1_snappy", "deep/nested/x"}, {"pqgo_v1_gzip", "a/big"}, {"hyp_pages", "empty"},
	} {
		zm, err := os.ReadFile(filepath.Join(data, "pq", c.variant, ".zmetadata"))
		if err != nil {
			t.Fatal(err)
		}
		pq, err := os.ReadFile(filepath.Join(data, "pq", c.variant, filepath.FromSlash(c.field), "refs.0.parq"))
		if err != nil {
			t.Fatal(err)
		}
		write("FuzzLazy", c.variant+"-"+strings.ReplaceAll(c.field, "/", "-"), zm, pq, c.field)
	}
}
