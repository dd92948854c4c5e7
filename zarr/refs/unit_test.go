package refs

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

func TestTemplates(t *testing.T) {
	templates := map[string]string{"u": "server.domain/path", "f": "{{c}}", "g": "{{ a }}-{{ b * 2 }}", "r": "{{ r(x=1) }}", "n": "7"}
	vars := map[string]value{"i": intValue(2), "s": strValue("abc"), "neg": intValue(-7)}
	for _, c := range []struct{ src, want string }{
		{"plain", "plain"},
		{"{{u}}", "server.domain/path"},
		{"{{ u }}_{{i}}", "server.domain/path_2"},
		{"http://{{f(c='text')}}", "http://text"},
		{"{{ g(a='x', b=21) }}", "x-42"},
		{"{{(i + 1) * 1000}}", "3000"},
		{"{{ neg // 2 }} {{ neg % 3 }} {{ 7 % -3 }} {{ -neg }} {{ +i }}", "-4 2 -2 7 2"},
		{"{{ 1_000 + i }}", "1002"},
		{"{{ s + \"/\" + u }}", "abc/server.domain/path"},
		{"{{ n }}", "7"},
		{"a { b } c }}", "a { b } c }}"},
		{"{{ f(c=s + 'x',) }}", "abcx"},
	} {
		e := &env{vars: vars, templates: templates}
		got, err := renderString(c.src, e)
		if err != nil || got != c.want {
			t.Errorf("%q: %q %v, want %q", c.src, got, err, c.want)
		}
	}
	for _, c := range []struct {
		src         string
		unsupported bool
	}{
		{"{{ u | upper }}", true},
		{"{{ x }}", false},
		{"{% for x in y %}{{x}}{% endfor %}", true},
		{"{# comment #}", true},
		{"{{ 1 / 2 }}", true},
		{"{{ 2 ** 3 }}", true},
		{"{{ a.b }}", true},
		{"{{ a[0] }}", true},
		{"{{ f }}", true},
		{"{{ 9223372036854775807 + 1 }}", true},
		{"{{ -9223372036854775807 - 2 }}", true},
		{"{{ 3037000500 * 3037000500 }}", true},
		{"{{ 99999999999999999999 }}", true},
		{"{{ 1 // 0 }}", false},
		{"{{ 1 % 0 }}", false},
		{"{{ u", false},
		{"{{ f('x') }}", true},
		{"{{ r() }}", false},
		{"{{ 1.5 }}", true},
		{"{{-u-}}", true},
		{"{{ u if i else s }}", true},
		{"{{ i == 2 }}", true},
		{"{{ }}", false},
		{"{{ 'it''s' }}", true},
		{"{{ 'a\\'b' }}", true},
		{"{{ s * 2 }}", true},
		{"{{ -s }}", false},
		{"{{ i(x=1) }}", false},
		{"{{ nope(x=1) }}", false},
		{"{{ n(x=1) }}", false},
		{"{{ (1 + 2 }}", true},
		{"{{ 007 }}", false},
		{"{{ u ~ u }}", true},
	} {
		e := &env{vars: vars, templates: templates}
		got, err := renderString(c.src, e)
		var te *tmplError
		if !errors.As(err, &te) {
			t.Errorf("%q: %q %v, want an error", c.src, got, err)
			continue
		}
		if te.unsupported != c.unsupported {
			t.Errorf("%q: %v: unsupported = %v, want %v", c.src, err, te.unsupported, c.unsupported)
		}
	}
}

func TestResolve(t *testing.T) {
	for _, c := range []struct{ base, ref, want string }{
		{"https://h/a/b/refs.json", "t.nc", "https://h/a/b/t.nc"},
		{"https://h/a/b/refs.json?sig=1#x", "../t.nc", "https://h/a/t.nc"},
		{"https://h/a/b/refs.json", "/abs/t.nc", "https://h/abs/t.nc"},
		{"https://h/a/b/refs.json", "s3://bucket/t.nc", "s3://bucket/t.nc"},
		{"https://h/a/b/refs.json", "./sub/./t.nc?x=1", "https://h/a/b/sub/t.nc?x=1"},
		{"https://h", "t.nc", "https://h/t.nc"},
		{"https://h/root/", "a/refs.0.parq", "https://h/root/a/refs.0.parq"},
		{"file:///data/refs.json", "t.nc", "file:///data/t.nc"},
		{"/data/refs.json", "t.nc", "/data/t.nc"},
		{"refs.json", "t.nc", "t.nc"},
		{"dir/refs.json", "../../t.nc", "../t.nc"},
		{"", "t.nc", "t.nc"},
		{"https://h/a/", "", "https://h/a/"},
		{"s3://bucket/refs/refs.json", "data/t.nc", "s3://bucket/refs/data/t.nc"},
		{"https://h/a/refs.json", "C:/x", "https://h/a/C:/x"},
	} {
		if got := Resolve(c.base, c.ref); got != c.want {
			t.Errorf("Resolve(%q, %q) = %q, want %q", c.base, c.ref, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"s3://bucket/a/b.nc", "https://bucket.s3.amazonaws.com/a/b.nc"},
		{"s3://my.bucket/a.nc", "https://s3.amazonaws.com/my.bucket/a.nc"},
		{"S3://bucket/a.nc", "https://bucket.s3.amazonaws.com/a.nc"},
		{"gs://bucket/a.nc", "https://storage.googleapis.com/bucket/a.nc"},
		{"gcs://bucket/a.nc", "https://storage.googleapis.com/bucket/a.nc"},
		{"https://x/y", "https://x/y"},
		{"s3:bucket", "s3:bucket"},
		{"s3:///k", "s3:///k"},
		{"t.nc", "t.nc"},
	} {
		if got := DefaultURLMap(c.in); got != c.want {
			t.Errorf("DefaultURLMap(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// memFetcher serves in-memory files with HTTP range semantics and counts.
type memFetcher struct {
	files map[string][]byte
	delay time.Duration
	mu    sync.Mutex
	calls []string
}

func (m *memFetcher) Fetch(ctx context.Context, url string, r store.ByteRange) ([]byte, bool, error) {
	m.mu.Lock()
	m.calls = append(m.calls, url+" "+r.String())
	m.mu.Unlock()
	if m.delay > 0 {
		select {
		case <-time.After(m.delay):
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	d, ok := m.files[url]
	if !ok {
		return nil, false, nil
	}
	n := int64(len(d))
	if suffix, ok := r.Suffix(); ok {
		return d[max(0, n-suffix):], true, nil
	}
	off, length := r.Bounds()
	switch {
	case off > n:
		return nil, false, fmt.Errorf("416")
	case length < 0:
		return d[off:], true, nil
	}
	return d[off:min(n, off+length)], true, nil
}

func (m *memFetcher) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls)
}

func code(err error) errs.Code { return errs.CodeOf(err) }

func where(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Where
	}
	return ""
}

func TestJSONEdges(t *testing.T) {
	ctx := context.Background()
	mf := &memFetcher{files: map[string][]byte{"https://h/d/t.bin": []byte("0123456789"), "https://h/d/u.bin": []byte("abc")}}
	open := func(doc string, opt Options) (*Store, error) {
		if opt.BaseURL == "" {
			opt.BaseURL = "https://h/d/refs.json"
		}
		opt.Fetcher = mf
		return FromJSON(ctx, []byte(doc), opt)
	}
	get := func(s *Store, key string) (string, bool, error) {
		d, ok, err := s.Get(ctx, key)
		return string(d), ok, err
	}

	if _, err := open(`{"version": 2, "refs": {}}`, Options{}); code(err) != errs.Unsupported {
		t.Errorf("version 2: %v", err)
	}
	if _, err := open(`[1]`, Options{}); code(err) != errs.InvalidMetadata {
		t.Errorf("a list: %v", err)
	}
	if _, err := open(`{"version": 1.0}`, Options{}); err != nil {
		t.Errorf("version 1.0: %v", err)
	}
	s, err := open(`{"a": ["t.bin", 2, 3], "b": ["t.bin", 1], "c": ["t.bin", -1, 2], "d": 5, "e": "base64:!!",
		"f": "base64:YWJj", "g": "base64:YWI", "h": {"x": NaN, "y": [1, 2]}, "i": [null, 0, 2], "j": ["u.bin"],
		"k": ["t.bin", 8, 5], "l": [7, 0, 1], "m": ["t.bin", 1.0, 2e0], "n": [""], "o": ["t.bin", 0, 0]}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key, want string
		code      errs.Code
	}{
		{"a", "234", ""},
		{"b", "", errs.InvalidMetadata},
		{"c", "", errs.InvalidMetadata},
		{"d", "", errs.InvalidMetadata},
		{"e", "", errs.InvalidMetadata},
		{"f", "abc", ""},
		{"g", "ab", ""},
		{"h", `{"x": NaN, "y": [1, 2]}`, ""},
		{"i", "", errs.InvalidMetadata}, // no Target
		{"j", "abc", ""},
		{"k", "", errs.Store}, // the file ends before the block
		{"l", "", errs.InvalidMetadata},
		{"m", "12", ""},
		{"n", "", errs.InvalidMetadata},
		{"o", "", ""},
	} {
		got, ok, err := get(s, c.key)
		if code(err) != c.code || (c.code == "" && (!ok || got != c.want)) {
			t.Errorf("%s: %q %v %v, want %q %s", c.key, got, ok, err, c.want, c.code)
		}
		if err != nil && where(err) != c.key {
			t.Errorf("%s: the error names %q: %v", c.key, where(err), err)
		}
	}
	if _, ok, err := s.Get(ctx, "nope"); ok || err != nil {
		t.Errorf("absent key: %v %v", ok, err)
	}

	// templates: unsupported ones fail at the key; overrides apply
	s, err = open(`{"version": 1, "templates": {"u": "t.bin", "v": "{{ w | lower }}"},
		"refs": {"a": ["{{u}}", 0, 2], "b": ["{{ u | upper }}", 0, 1], "c": ["{{v}}"], "d": ["{{ nope }}"]}}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := get(s, "a"); got != "01" || err != nil {
		t.Errorf("a: %q %v", got, err)
	}
	for k, want := range map[string]errs.Code{"b": errs.Unsupported, "c": errs.Unsupported, "d": errs.InvalidMetadata} {
		_, _, err := get(s, k)
		if code(err) != want || where(err) != k {
			t.Errorf("%s: %v, want %s naming the key", k, err, want)
		}
	}
	s, err = open(`{"version": 1, "templates": {"u": "t.bin"}, "refs": {"a": ["{{u}}", 0, 2]}}`, Options{Templates: map[string]string{"u": "u.bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := get(s, "a"); got != "ab" || err != nil {
		t.Errorf("override: %q %v", got, err)
	}

	// gen: order, overriding refs, errors
	s, err = open(`{"version": 1, "refs": {"k/0_0": "old"}, "gen": [{"key": "k/{{b}}_{{a}}", "url": "t.bin",
		"offset": "{{ b * 2 + a }}", "length": 1, "dimensions": {"b": [0, 1, 2], "a": {"stop": 2}}}]}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range s.Keys() {
		d, _, err := get(s, k)
		if err != nil {
			t.Fatal(k, err)
		}
		got = append(got, k+"="+d)
	}
	if strings.Join(got, " ") != "k/0_0=0 k/0_1=1 k/1_0=2 k/1_1=3 k/2_0=4 k/2_1=5" {
		t.Errorf("gen: %q", got)
	}
	for doc, want := range map[string]errs.Code{
		`{"version": 1, "gen": [{"key": "k", "url": "u", "offset": "1", "dimensions": {"i": [1]}}]}`:                               errs.InvalidMetadata,
		`{"version": 1, "gen": [{"key": "k{{i|string}}", "url": "u", "dimensions": {"i": [1]}}]}`:                                  errs.Unsupported,
		`{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"stop": 100000}, "j": {"stop": 1000}}}]}`:       errs.Unsupported,
		`{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"stop": 3, "step": 0}}}]}`:                      errs.InvalidMetadata,
		`{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "offset": "{{ i - 5 }}", "length": "1", "dimensions": {"i": [1]}}]}`: errs.InvalidMetadata,
		`{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "offset": "x", "length": "1", "dimensions": {"i": [1]}}]}`:           errs.InvalidMetadata,
		`{"version": 1, "gen": [{"key": "k{{i}}", "url": "u"}]}`:                                                                   errs.InvalidMetadata,
		`{"version": 1, "gen": [{"url": "u", "dimensions": {"i": [1]}}]}`:                                                          errs.InvalidMetadata,
		`{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": [1.5]}}]}`:                                       errs.InvalidMetadata,
		`{"version": 1, "gen": {}}`: errs.InvalidMetadata,
	} {
		_, err := open(doc, Options{})
		if code(err) != want || !strings.HasPrefix(where(err), "gen") {
			t.Errorf("%s: %v, want %s naming the gen entry", doc, err, want)
		}
	}
	// empty and negative ranges
	s, err = open(`{"version": 1, "gen": [{"key": "k{{i}}", "url": "t.bin", "offset": " {{i}} ", "length": "+1",
		"dimensions": {"i": {"start": 5, "stop": -1, "step": -2}, "e": []}}, {"key": "z{{i}}", "url": "t.bin",
		"offset": "{{i}}", "length": "1", "dimensions": {"i": {"start": 9, "stop": 0, "step": -4}}}]}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k := strings.Join(s.Keys(), " "); k != "z1 z5 z9" {
		t.Errorf("keys %q", k)
	}

	// compressed JSON
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb)
	zw.Write([]byte(`{"a": "zstd"}`))
	zw.Close()
	var gb bytes.Buffer
	gw := gzip.NewWriter(&gb)
	gw.Write([]byte(`{"a": "gzip"}`))
	gw.Close()
	for want, data := range map[string][]byte{"zstd": zb.Bytes(), "gzip": gb.Bytes()} {
		s, err := FromJSON(ctx, data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := get(s, "a"); got != want {
			t.Errorf("%s: %q", want, got)
		}
	}
}

func TestRanges(t *testing.T) {
	ctx := context.Background()
	mf := &memFetcher{files: map[string][]byte{"t": []byte("0123456789")}}
	s, err := FromJSON(ctx, []byte(`{"r": ["t", 2, 5], "w": ["t"], "i": "abcdef"}`), Options{Fetcher: mf})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key  string
		r    store.ByteRange
		want string
		bad  bool
	}{
		{"r", store.Span(1, 2), "34", false},
		{"r", store.From(1), "3456", false},
		{"r", store.Last(2), "56", false},
		{"r", store.Last(20), "23456", false},
		{"r", store.Span(5, 0), "", false},
		{"r", store.Span(4, 2), "", true},
		{"r", store.From(6), "", true},
		{"r", store.Span(-1, 1), "", true},
		{"w", store.From(8), "89", false},
		{"w", store.Last(3), "789", false},
		{"w", store.Span(3, 2), "34", false},
		{"w", store.Span(20, 2), "", true},
		{"i", store.Span(1, 2), "bc", false},
		{"i", store.Last(9), "abcdef", false},
		{"i", store.Span(7, 1), "", true},
	} {
		got, ok, err := s.GetRange(ctx, c.key, c.r)
		if c.bad {
			if err == nil {
				t.Errorf("%s %s: %q, want an error", c.key, c.r, got)
			}
			continue
		}
		if err != nil || !ok || string(got) != c.want {
			t.Errorf("%s %s: %q %v %v, want %q", c.key, c.r, got, ok, err, c.want)
		}
	}
	if _, ok, err := s.GetRange(ctx, "nope", store.Span(1, 1)); ok || err != nil {
		t.Errorf("absent: %v %v", ok, err)
	}
}

// TestConcurrentReads: many goroutines reading overlapping and distinct
// ranges of two files get their own bytes, with far fewer fetches.
func TestConcurrentReads(t *testing.T) {
	ctx := context.Background()
	file := make([]byte, 1<<16)
	for i := range file {
		file[i] = byte(i * 7)
	}
	mf := &memFetcher{files: map[string][]byte{"https://h/a": file, "https://h/b": file}, delay: time.Millisecond}
	doc := map[string]any{}
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 200; i++ {
		f := "a"
		if i%2 == 1 {
			f = "b"
		}
		off, n := (i*997)%60000, 1+(i*31)%3000
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d": ["%s", %d, %d]`, i, f, off, n)
		doc[fmt.Sprint(i)] = [2]int{off, n}
	}
	b.WriteString("}")
	s, err := FromJSON(ctx, []byte(b.String()), Options{BaseURL: "https://h/refs.json", Fetcher: mf})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, ok, err := s.Get(ctx, fmt.Sprintf("k%d", i))
			r := doc[fmt.Sprint(i)].([2]int)
			if err != nil || !ok || !bytes.Equal(got, file[r[0]:r[0]+r[1]]) {
				t.Errorf("k%d: %v %v", i, ok, err)
			}
		}()
	}
	wg.Wait()
	t.Logf("200 concurrent reads: %d fetches", mf.count())
	if mf.count() > 20 {
		t.Errorf("%d fetches for 200 close ranges of 2 files", mf.count())
	}
}

func TestCancel(t *testing.T) {
	mf := &memFetcher{files: map[string][]byte{"t": []byte("0123456789")}, delay: 5 * time.Second}
	s, err := FromJSON(context.Background(), []byte(`{"r": ["t", 2, 5]}`), Options{Fetcher: mf})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = s.Get(ctx, "r")
	if code(err) != errs.Aborted || time.Since(start) > 2*time.Second {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
}

func TestNoFetcher(t *testing.T) {
	s, err := FromJSON(context.Background(), []byte(`{"i": "x", "r": ["https://h/t", 2, 5]}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok, err := s.Get(context.Background(), "i"); string(d) != "x" || !ok || err != nil {
		t.Fatal(d, ok, err)
	}
	if _, _, err := s.Get(context.Background(), "r"); code(err) != errs.Unsupported {
		t.Fatal(err)
	}
}

func TestURLMapAndTarget(t *testing.T) {
	ctx := context.Background()
	mf := &memFetcher{files: map[string][]byte{
		"https://bucket.s3.amazonaws.com/x/t.nc": []byte("s3 data"),
		"https://mirror/x/t.nc":                  []byte("mirrored"),
		"https://h/dir/default.nc":               []byte("default"),
	}}
	doc := []byte(`{"a": ["s3://bucket/x/t.nc", 0, 2], "b": [null, 0, 3]}`)
	s, err := FromJSON(ctx, doc, Options{Fetcher: mf, BaseURL: "https://h/dir/refs.json", Target: "default.nc"})
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err := s.Get(ctx, "a"); string(d) != "s3" || err != nil {
		t.Fatalf("s3: %q %v", d, err)
	}
	if d, _, err := s.Get(ctx, "b"); string(d) != "def" || err != nil {
		t.Fatalf("target: %q %v", d, err)
	}
	s, err = FromJSON(ctx, doc, Options{Fetcher: mf, URLMap: func(u string) string {
		return strings.Replace(u, "s3://bucket/", "https://mirror/", 1)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err := s.Get(ctx, "a"); string(d) != "mi" || err != nil {
		t.Fatalf("URLMap: %q %v", d, err)
	}
	r, ok, err := s.Lookup(ctx, "a")
	if err != nil || !ok || r.URL != "s3://bucket/x/t.nc" || r.FetchURL != "https://mirror/x/t.nc" || r.Offset != 0 || r.Length != 2 {
		t.Fatalf("Lookup: %+v %v %v", r, ok, err)
	}
	// a missing target is an error, not an absent key
	s, _ = FromJSON(ctx, []byte(`{"a": ["https://h/none", 0, 2]}`), Options{Fetcher: mf})
	if _, _, err := s.Get(ctx, "a"); code(err) != errs.Store || where(err) != "a" {
		t.Fatalf("missing target: %v", err)
	}
}

// TestAllowedTargets: SameOrigin and AllowedTargets keep a reference file
// from making the reader fetch other hosts, ports or paths.
func TestAllowedTargets(t *testing.T) {
	ctx := context.Background()
	files := map[string][]byte{}
	urls := []string{
		"https://h/dir/t.nc", "https://h:443/other/t.nc", "https://h:8443/t.nc", "http://h/t.nc",
		"http://127.0.0.1:6379/", "https://evil/t.nc", "https://h.evil/t.nc",
		"https://bucket.s3.amazonaws.com/data/t.nc", "https://bucket.s3.amazonaws.com/private/t.nc",
		"https://cdn/pub/t.nc", "https://cdn/public/t.nc", "https://cdn/pub/../secret", "https://h/t.nc",
	}
	for _, u := range urls {
		files[u] = []byte("0123456789")
	}
	mf := &memFetcher{files: files}
	doc := []byte(`{
		"rel": ["t.nc", 0, 2], "abs_same": ["https://h:443/other/t.nc", 0, 2],
		"port": ["https://h:8443/t.nc", 0, 2], "scheme": ["http://h/t.nc", 0, 2],
		"local": ["http://127.0.0.1:6379/", 0, 2], "host": ["https://evil/t.nc", 0, 2],
		"suffix_host": ["https://h.evil/t.nc", 0, 2], "userinfo": ["https://h@evil/t.nc", 0, 2],
		"s3": ["s3://bucket/data/t.nc", 0, 2], "s3_other": ["s3://bucket/private/t.nc", 0, 2],
		"pub": ["https://cdn/pub/t.nc", 0, 2], "pub_prefix": ["https://cdn/public/t.nc", 0, 2],
		"dotdot": ["https://cdn/pub/../secret", 0, 2], "up": ["../t.nc", 0, 2],
		"inline": "x"
	}`)
	check := func(opt Options, ok ...string) {
		t.Helper()
		opt.Fetcher, opt.BaseURL = mf, "https://h/dir/refs.json"
		s, err := FromJSON(ctx, doc, opt)
		if err != nil {
			t.Fatal(err)
		}
		allowed := map[string]bool{"inline": true}
		for _, k := range ok {
			allowed[k] = true
		}
		for _, k := range []string{"rel", "abs_same", "port", "scheme", "local", "host", "suffix_host", "userinfo", "s3", "s3_other", "pub", "pub_prefix", "dotdot", "up", "inline"} {
			_, _, err := s.Get(ctx, k)
			switch {
			case allowed[k] && err != nil:
				t.Errorf("%+v: %s refused: %v", opt.AllowedTargets, k, err)
			case !allowed[k] && (code(err) != errs.Store || !strings.Contains(fmt.Sprint(err), "outside")):
				t.Errorf("%+v: %s: %v, want it refused", opt.AllowedTargets, k, err)
			}
		}
	}
	check(Options{SameOrigin: true}, "rel", "abs_same", "up")
	check(Options{AllowedTargets: []string{"s3://bucket/data/", "https://cdn/pub"}}, "s3", "pub")
	check(Options{SameOrigin: true, AllowedTargets: []string{"https://cdn"}}, "rel", "abs_same", "up", "pub", "pub_prefix", "dotdot")
	// without a base URL nothing is the reference file's origin
	s, _ := FromJSON(ctx, doc, Options{Fetcher: mf, SameOrigin: true})
	if _, _, err := s.Get(ctx, "abs_same"); code(err) != errs.Store || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("no base URL: %v", err)
	}
}

// TestVersionedRefs: a reference's generation is what it says; confirming
// it is no request, and another reference has another generation.
func TestVersionedRefs(t *testing.T) {
	ctx := context.Background()
	f := &memFetcher{files: map[string][]byte{"https://h/t.bin": []byte("0123456789")}}
	s, err := FromJSON(ctx, []byte(`{"version":1,"refs":{"a":"inline","b":["https://h/t.bin",2,3],"c":["https://h/t.bin",5,3]}}`), Options{Fetcher: f})
	if err != nil {
		t.Fatal(err)
	}
	va, err := s.ReadVersion(ctx, "a", store.WholeValue(), store.Conditions{})
	if err != nil || string(va.Data) != "inline" || va.Generation == "" {
		t.Fatalf("%+v %v", va, err)
	}
	vb, err := s.ReadVersion(ctx, "b", store.WholeValue(), store.Conditions{})
	if err != nil || string(vb.Data) != "234" || vb.Generation == va.Generation {
		t.Fatalf("%+v %v", vb, err)
	}
	calls := f.count()
	nm, err := s.ReadVersion(ctx, "b", store.WholeValue(), store.Conditions{IfNoneMatch: vb.Generation})
	if err != nil || !nm.NotModified || f.count() != calls {
		t.Fatalf("confirming: %+v %v, %d fetches", nm, err, f.count()-calls)
	}
	vc, _ := s.ReadVersion(ctx, "c", store.WholeValue(), store.Conditions{})
	if vc.Generation == vb.Generation {
		t.Fatal("two references, one generation")
	}
	if v, _ := s.ReadVersion(ctx, "nope", store.WholeValue(), store.Conditions{}); v.Found || v.Generation != store.Absent {
		t.Fatalf("absent: %+v", v)
	}
}

// TestListReferenceForms: the fast path for ["url", offset, length] and
// the general parser agree on every form, the odd ones included.
func TestListReferenceForms(t *testing.T) {
	for raw, want := range map[string]string{
		`["u", 10, 20]`:                 "range u 10 20",
		` [ "u" , 10 ,20 ] `:            "range u 10 20",
		`["u"]`:                         "whole u",
		`[null, 1, 2]`:                  "range (target) 1 2",
		`["u\/v", 1, 2]`:                "range u/v 1 2",
		`["u", 10.0, 20]`:               "range u 10 20",
		`["u", 1e3, 2]`:                 "range u 1000 2",
		`["u", 01, 2]`:                  "bad",
		`["u", -1, 2]`:                  "bad",
		`["u", 1]`:                      "bad",
		`[1, 2, 3]`:                     "bad",
		`["u", 9223372036854775807, 1]`: "bad",
		`["u", 1.5, 2]`:                 "bad",
	} {
		var doc []byte
		doc = append(doc, `{"k": `...)
		doc = append(doc, raw...)
		doc = append(doc, '}')
		refs, err := parseJSON(doc, &Options{})
		if err != nil {
			if want != "bad" {
				t.Errorf("%s: %v", raw, err)
			}
			continue
		}
		r := refs["k"]
		var got string
		switch r.kind {
		case kBad:
			got = "bad"
		case kWhole:
			got = "whole " + r.url
		case kRange:
			u := r.url
			if r.noURL {
				u = "(target)"
			}
			got = fmt.Sprintf("range %s %d %d", u, r.off, r.n)
		}
		if got != want {
			t.Errorf("%s: %s, want %s", raw, got, want)
		}
	}
}
