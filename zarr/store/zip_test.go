package store

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// rangeStore serves one or more files with HTTP range semantics (a suffix
// longer than the file, or a range past its end, yields what there is, as
// a server answers "bytes=-N") and counts the requests.
type rangeStore struct {
	files map[string][]byte

	mu       sync.Mutex
	requests int
	bytes    int64
	log      []string
}

func newRangeStore(files map[string][]byte) *rangeStore { return &rangeStore{files: files} }

func (s *rangeStore) count(what string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.bytes += int64(n)
	s.log = append(s.log, what)
}

func (s *rangeStore) reset() (int, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, b := s.requests, s.bytes
	s.requests, s.bytes, s.log = 0, 0, nil
	return r, b
}

func (s *rangeStore) Get(_ context.Context, key string) ([]byte, bool, error) {
	v, ok := s.files[key]
	s.count("get "+key, len(v))
	return v, ok, nil
}

func (s *rangeStore) GetRange(_ context.Context, key string, r ByteRange) ([]byte, bool, error) {
	v, ok := s.files[key]
	if !ok {
		s.count("range "+key, 0)
		return nil, false, nil
	}
	n := int64(len(v))
	var out []byte
	suffix, isSuffix := r.Suffix()
	off, length := r.Bounds()
	switch {
	case isSuffix:
		out = v[max(0, n-suffix):]
	case off >= n && !(off == 0 && n == 0):
		s.count("bad range", 0)
		return nil, false, errs.New(errs.Store, key, "416: %s of %d bytes", r, n)
	case length < 0:
		out = v[off:]
	default:
		out = v[off:min(n, off+length)]
	}
	s.count(r.String(), len(out))
	return out, true, nil
}

// getOnly hides every capability but Get.
type getOnly struct{ s Store }

func (g getOnly) Get(ctx context.Context, key string) ([]byte, bool, error) { return g.s.Get(ctx, key) }

// counted counts the requests to a store that keeps its own range
// semantics (Memory and Directory refuse a suffix longer than the value).
type counted struct {
	s        Store
	mu       sync.Mutex
	requests int
}

func (c *counted) Get(ctx context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	c.requests++
	c.mu.Unlock()
	return c.s.Get(ctx, key)
}

func (c *counted) GetRange(ctx context.Context, key string, r ByteRange) ([]byte, bool, error) {
	c.mu.Lock()
	c.requests++
	c.mu.Unlock()
	return c.s.(RangeReader).GetRange(ctx, key, r)
}

type manifestEntry struct {
	Name   string  `json:"name"`
	Method int     `json:"method"`
	Size   int     `json:"size"`
	SHA256 *string `json:"sha256"`
	Flags  int     `json:"flags"`
}

type manifestZip struct {
	CommentLen    int             `json:"comment_len"`
	CommentSHA256 string          `json:"comment_sha256"`
	Root          string          `json:"root"`
	Entries       []manifestEntry `json:"entries"`
}

func loadManifest(t testing.TB) map[string]manifestZip {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "zip", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]manifestZip
	if err := jsonx.UnmarshalStrict(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) < 7 {
		t.Fatalf("manifest lists %d zips", len(m))
	}
	return m
}

func readZipFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "zip", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hexSHA(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// walk lists every key under prefix through List.
func walk(t testing.TB, ctx context.Context, l Lister, prefix string) []string {
	t.Helper()
	names, err := l.List(ctx, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("List(%q) not sorted: %q", prefix, names)
	}
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, "/") {
			out = append(out, walk(t, ctx, l, prefix+n)...)
		} else {
			out = append(out, prefix+n)
		}
	}
	return out
}

// TestZipPython reads every zip written by tests/zip/gen.py through several
// base stores and compares each entry with what Python's zipfile read.
func TestZipPython(t *testing.T) {
	ctx := context.Background()
	for name, want := range loadManifest(t) {
		file := readZipFile(t, name)
		bases := map[string]func() (Store, []ZipOption){
			"memory": func() (Store, []ZipOption) {
				m := NewMemory()
				_ = m.Set(ctx, "z.zip", file)
				return m, nil
			},
			"http": func() (Store, []ZipOption) {
				return newRangeStore(map[string][]byte{"z.zip": file}), nil
			},
			"http-short-tail": func() (Store, []ZipOption) {
				return newRangeStore(map[string][]byte{"z.zip": file}), []ZipOption{ZipTail(30)}
			},
			"get-only": func() (Store, []ZipOption) {
				return getOnly{newRangeStore(map[string][]byte{"z.zip": file})}, nil
			},
		}
		for bname, mk := range bases {
			t.Run(name+"/"+bname, func(t *testing.T) {
				base, opts := mk()
				z, err := NewZip(ctx, base, "z.zip", opts...)
				if err != nil {
					t.Fatal(err)
				}
				if z.Root() != want.Root {
					t.Errorf("root %q, want %q", z.Root(), want.Root)
				}
				if len(z.Comment()) != want.CommentLen || hexSHA([]byte(z.Comment())) != want.CommentSHA256 {
					t.Errorf("comment of %d bytes differs", len(z.Comment()))
				}
				if z.Size() != int64(len(file)) {
					t.Errorf("size %d, want %d", z.Size(), len(file))
				}
				var keys []string
				for _, e := range want.Entries {
					if strings.HasSuffix(e.Name, "/") || !strings.HasPrefix(e.Name, want.Root) {
						continue
					}
					key := e.Name[len(want.Root):]
					keys = append(keys, key)
					got, ok, err := z.Get(ctx, key)
					if e.SHA256 == nil {
						if errs.CodeOf(err) != errs.Unsupported || !strings.Contains(err.Error(), key) {
							t.Errorf("%s (method %d): want an UNSUPPORTED error naming it, got %v", key, e.Method, err)
						}
						continue
					}
					if err != nil || !ok {
						t.Fatalf("%s: %v %v", key, ok, err)
					}
					if len(got) != e.Size || hexSHA(got) != *e.SHA256 {
						t.Errorf("%s: %d bytes differ from Python's", key, len(got))
					}
					checkRanges(t, ctx, z, key, got)
				}
				sort.Strings(keys)
				if all := walk(t, ctx, z, ""); !equalStrings(all, keys) {
					t.Errorf("List walk %q\nwant %q", all, keys)
				}
				for _, k := range []string{"", "arr", "arr/", "nope", "arr/9", "data.zarr/.zgroup"} {
					if b, ok, err := z.Get(ctx, k); ok || err != nil || b != nil {
						t.Errorf("Get(%q) = %v %v", k, ok, err)
					}
				}
			})
		}
	}
}

func equalStrings(a, b []string) bool {
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

// checkRanges compares GetRange with slices of the whole value.
func checkRanges(t *testing.T, ctx context.Context, z *Zip, key string, whole []byte) {
	t.Helper()
	n := int64(len(whole))
	rs := []ByteRange{From(0), Span(0, 0), Span(n, 0)}
	if n > 0 {
		rs = append(rs, Last(n), Span(n-1, 1), Last(1))
	}
	if n > 10 {
		rs = append(rs, Span(3, n/2), From(n/3), Last(n/2))
	}
	for _, r := range rs {
		want, _ := Slice(whole, r)
		got, ok, err := z.GetRange(ctx, key, r)
		if err != nil || !ok || !bytes.Equal(got, want) {
			t.Errorf("%s %s: %d bytes, ok %v, err %v; want %d bytes", key, r, len(got), ok, err, len(want))
		}
	}
	for _, r := range []ByteRange{Span(n+1, 0), Span(0, n+1), Last(n + 1), Span(-1, 1)} {
		if _, _, err := z.GetRange(ctx, key, r); errs.CodeOf(err) != errs.Store {
			t.Errorf("%s %s: want a STORE error, got %v", key, r, err)
		}
	}
}

// TestZipRequests counts range requests: EOCD, central directory, then
// one per entry read (the local header comes with the data), and one per
// ranged read of a stored entry.
func TestZipRequests(t *testing.T) {
	ctx := context.Background()
	m := loadManifest(t)
	for _, name := range []string{"stored.zip", "deflated.zip", "parent.zip", "zip64.zip", "streamed.zip"} {
		t.Run(name, func(t *testing.T) {
			file := readZipFile(t, name)
			s := newRangeStore(map[string][]byte{"z.zip": file})
			z, err := NewZip(ctx, s, "z.zip", ZipTail(30))
			if err != nil {
				t.Fatal(err)
			}
			// 30 bytes hold the end record when there is no comment; the
			// central directory comes next. With a comment, a second suffix
			// covers the longest comment: deflated.zip is then all read,
			// zip64.zip needs its central directory still.
			opening, perEntry := 2, 1
			switch name {
			case "deflated.zip":
				perEntry = 0
			case "zip64.zip":
				opening = 3
			}
			if n, _ := s.reset(); n != opening {
				t.Errorf("opening: %d requests, want %d (%q)", n, opening, s.log)
			}
			for _, e := range m[name].Entries {
				if strings.HasSuffix(e.Name, "/") {
					continue
				}
				key := strings.TrimPrefix(e.Name, m[name].Root)
				whole, _, err := z.Get(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				if n, _ := s.reset(); n != perEntry {
					t.Errorf("%s: first read %d requests (%q)", key, n, s.log)
				}
				// Again: the data offset is known now, one request (none for
				// a stored empty entry).
				if _, _, err := z.Get(ctx, key); err != nil {
					t.Fatal(err)
				}
				again := perEntry
				if e.Method == 0 && e.Size == 0 {
					again = 0
				}
				if n, _ := s.reset(); n != again {
					t.Errorf("%s: second read %d requests", key, n)
				}
				if e.Method == 0 && len(whole) > 2 {
					if _, _, err := z.GetRange(ctx, key, Span(1, 1)); err != nil {
						t.Fatal(err)
					}
					if n, b := s.reset(); n != perEntry || b != int64(perEntry) { // 1 byte
						t.Errorf("%s: ranged read %d requests, %d bytes", key, n, b)
					}
				}
			}
		})
	}
}

// TestZipFirstRange: the first ranged read of a stored entry brings the
// local header along when the range starts near the data, else reads the
// header first; either way the bytes are right.
func TestZipFirstRange(t *testing.T) {
	ctx := context.Background()
	big := make([]byte, 200<<10)
	for i := range big {
		big[i] = byte(i*7 + i>>9)
	}
	file := buildZip([]rawEntry{{name: "a", data: []byte("x")}, {name: "big", data: big}, {name: "z", data: []byte("z")}}, nil)
	for _, tc := range []struct {
		r    ByteRange
		reqs int
	}{
		{Span(10, 100), 1},
		{Span(150<<10, 100), 2},
		{Last(10), 2},
	} {
		s := newRangeStore(map[string][]byte{"z.zip": file})
		z, err := NewZip(ctx, s, "z.zip", ZipTail(100))
		if err != nil {
			t.Fatal(err)
		}
		s.reset()
		got, _, err := z.GetRange(ctx, "big", tc.r)
		want, _ := Slice(big, tc.r)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v", tc.r, err)
		}
		if n, b := s.reset(); n != tc.reqs || b > int64(len(want))+(64<<10)+200 {
			t.Errorf("%s: %d requests (want %d), %d bytes", tc.r, n, tc.reqs, b)
		}
		if got, _, _ := z.GetRange(ctx, "big", tc.r); !bytes.Equal(got, want) {
			t.Errorf("%s: second read differs", tc.r)
		}
		if n, b := s.reset(); n != 1 || b != int64(len(want)) {
			t.Errorf("%s: second read %d requests, %d bytes", tc.r, n, b)
		}
	}
}

// TestZipLongLocalHeader: a local extra field longer than the margin costs
// a second request for the rest of the data.
func TestZipLongLocalHeader(t *testing.T) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789"), 50)
	for _, extra := range []int{0, 60, 300, 2000} {
		file := buildZip([]rawEntry{{name: "k", data: data, localExtra: padExtra(extra)}, {name: "l", data: data, method: 8}}, nil)
		s := newRangeStore(map[string][]byte{"z.zip": file})
		z, err := NewZip(ctx, s, "z.zip", ZipTail(22))
		if err != nil {
			t.Fatal(err)
		}
		s.reset()
		got, ok, err := z.Get(ctx, "k")
		if err != nil || !ok || !bytes.Equal(got, data) {
			t.Fatalf("extra %d: %v %v", extra, ok, err)
		}
		want := 1
		if extra+4 > zipHeaderMargin {
			want = 2
		}
		if n, _ := s.reset(); n != want {
			t.Errorf("extra %d: %d requests, want %d", extra, n, want)
		}
		if got, _, err := z.Get(ctx, "l"); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("deflated: %v", err)
		}
	}
}

// padExtra returns an unknown extra field of n bytes in all (n >= 4).
func padExtra(n int) []byte {
	if n < 4 {
		return nil
	}
	b := make([]byte, n)
	binary.LittleEndian.PutUint16(b, 0xcafe)
	binary.LittleEndian.PutUint16(b[2:], uint16(n-4))
	return b
}

// TestZipStrictSmall: a store that refuses a suffix longer than the file
// still opens a small zip (the end record tells the size) in three
// requests, and serves everything from memory after.
func TestZipStrictSmall(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"stored.zip", "deflated.zip", "empty.zip"} {
		m := NewMemory()
		_ = m.Set(ctx, "z.zip", readZipFile(t, name))
		c := &counted{s: m}
		z, err := NewZip(ctx, c, "z.zip")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The suffix refused, the 22-byte probe, then the whole file (a
		// suffix of the size the end record tells, or a Get when there is
		// a comment).
		want := 3
		if c.requests != want {
			t.Errorf("%s: %d requests, want %d", name, c.requests, want)
		}
		for _, k := range walk(t, ctx, z, "") {
			if _, _, err := z.Get(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if c.requests != want {
			t.Errorf("%s: reads after opening made requests", name)
		}
	}
	// Absent file, file shorter than an end record.
	m := NewMemory()
	_ = m.Set(ctx, "tiny", []byte("PK"))
	if _, err := NewZip(ctx, m, "nope.zip"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("absent: %v", err)
	}
	if _, err := NewZip(ctx, getOnly{m}, "nope.zip"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("absent, get-only: %v", err)
	}
	for _, s := range []Store{m, getOnly{m}, newRangeStore(map[string][]byte{"tiny": []byte("PK")})} {
		if _, err := NewZip(ctx, s, "tiny"); errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), `"tiny"`) {
			t.Errorf("tiny: %v", err)
		}
	}
}

// TestZipNotWritable: a Zip is read-only.
func TestZipNotWritable(t *testing.T) {
	var s Store = &Zip{}
	if _, ok := s.(Writer); ok {
		t.Fatal("Zip implements Writer")
	}
	_ = RangeReader(&Zip{})
	_ = Lister(&Zip{})
}

func TestZipRoot(t *testing.T) {
	ctx := context.Background()
	file := readZipFile(t, "parent.zip")
	m := NewMemory()
	_ = m.Set(ctx, "p.zip", file)
	z, err := NewZip(ctx, m, "p.zip", ZipRoot(""))
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := z.List(ctx, ""); !equalStrings(l, []string{"data.zarr/"}) {
		t.Errorf("List = %q", l)
	}
	if _, ok, _ := z.Get(ctx, "data.zarr/.zgroup"); !ok {
		t.Error("no data.zarr/.zgroup with ZipRoot(\"\")")
	}
	for _, r := range []string{"data.zarr", "/data.zarr/", "data.zarr/"} {
		z, err = NewZip(ctx, m, "p.zip", ZipRoot(r))
		if err != nil || z.Root() != "data.zarr/" {
			t.Fatalf("%q: %v %q", r, err, z.Root())
		}
		if _, ok, _ := z.Get(ctx, "arr/.zarray"); !ok {
			t.Errorf("%q: no arr/.zarray", r)
		}
	}
	z, _ = NewZip(ctx, m, "p.zip", ZipRoot("data.zarr/arr"))
	if l, _ := z.List(ctx, ""); !equalStrings(l, []string{".zarray", ".zattrs", "0", "1", "2", "3"}) {
		t.Errorf("List under data.zarr/arr = %q", l)
	}
	if l, _ := z.List(ctx, "nope/"); len(l) != 0 {
		t.Errorf("List(nope/) = %q", l)
	}

	// No detection when the top directory has no Zarr metadata, when there
	// are two top-level entries, or when the zip root has metadata; a
	// __MACOSX directory beside it does not count.
	for _, tc := range []struct {
		names []string
		root  string
	}{
		{[]string{"d/", "d/a/.zarray"}, ""},
		{[]string{"d/.zgroup", "e/.zgroup"}, ""},
		{[]string{"d/.zgroup", "x"}, ""},
		{[]string{"zarr.json", "d/zarr.json"}, ""},
		{[]string{"d/zarr.json", "d/c/0"}, "d/"},
		{[]string{"d/.zarray", "__MACOSX/d/._.zarray"}, "d/"},
		{[]string{"d/.zgroup"}, "d/"},
		{[]string{"a/b/.zgroup"}, ""},
	} {
		var es []rawEntry
		for _, n := range tc.names {
			es = append(es, rawEntry{name: n, data: []byte("{}")})
		}
		m := NewMemory()
		_ = m.Set(ctx, "z", buildZip(es, nil))
		z, err := NewZip(ctx, m, "z")
		if err != nil || z.Root() != tc.root {
			t.Errorf("%q: root %q, want %q (%v)", tc.names, z.Root(), tc.root, err)
		}
	}
}

// TestZipListing: implied and explicit directories, duplicates, odd names.
func TestZipListing(t *testing.T) {
	ctx := context.Background()
	file := buildZip([]rawEntry{
		{name: "a/b/c", data: []byte("1")},
		{name: "a/b/d", data: []byte("2")},
		{name: "a-b", data: []byte("3")},
		{name: "a0", data: []byte("4")},
		{name: "empty/", data: nil},
		{name: "a/b/c", data: []byte("5")}, // a duplicate: the later one wins
		{name: "x/", data: nil},
		{name: "x/y", data: []byte("6")},
	}, nil)
	m := NewMemory()
	_ = m.Set(ctx, "z", file)
	z, err := NewZip(ctx, m, "z")
	if err != nil {
		t.Fatal(err)
	}
	for prefix, want := range map[string][]string{
		"":       {"a-b", "a/", "a0", "empty/", "x/"},
		"a/":     {"b/"},
		"a/b/":   {"c", "d"},
		"empty/": {},
		"x/":     {"y"},
		"zz/":    {},
	} {
		got, err := z.List(ctx, prefix)
		if err != nil || !equalStrings(got, want) {
			t.Errorf("List(%q) = %q, want %q", prefix, got, want)
		}
	}
	if v, _, _ := z.Get(ctx, "a/b/c"); string(v) != "5" {
		t.Errorf("duplicate: %q", v)
	}
	if _, ok, _ := z.Get(ctx, "empty/"); ok {
		t.Error("a directory entry is a key")
	}
}

// TestZipCommentTraps: fake end records planted in a maximum-length
// comment, and bytes appended after the archive.
func TestZipCommentTraps(t *testing.T) {
	ctx := context.Background()
	file := readZipFile(t, "zip64.zip")
	eocd := bytes.LastIndex(file, []byte("PK\x05\x06"))
	comment := file[eocd+22:]
	if len(comment) != 0xffff {
		t.Fatalf("comment of %d bytes", len(comment))
	}
	fake := make([]byte, 22)
	binary.LittleEndian.PutUint32(fake, eocdSig)
	binary.LittleEndian.PutUint16(fake[8:], 1)
	binary.LittleEndian.PutUint16(fake[10:], 1)
	binary.LittleEndian.PutUint32(fake[12:], 46)
	binary.LittleEndian.PutUint16(fake[20:], 3) // its "comment" ends before the file
	trapped := append([]byte(nil), file...)
	for i := eocd + 22; i+100 < len(trapped); i += 997 {
		copy(trapped[i:], "PK\x06\x07")
		copy(trapped[i+40:], fake)
	}
	copy(trapped[len(trapped)-30:], fake)
	for name, f := range map[string][]byte{
		"fakes in the comment": trapped,
		"garbage after":        append(append([]byte(nil), readZipFile(t, "stored.zip")...), "trailing garbage"...),
	} {
		for _, s := range []Store{newRangeStore(map[string][]byte{"z": f}), memWith("z", f)} {
			z, err := NewZip(ctx, s, "z")
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if v, ok, err := z.Get(ctx, "arr/.zattrs"); err != nil || !ok || string(v) != `{"units": "m"}` {
				t.Errorf("%s: %q %v %v", name, v, ok, err)
			}
		}
	}
}

func memWith(key string, v []byte) *Memory {
	m := NewMemory()
	_ = m.Set(context.Background(), key, v)
	return m
}

// TestZipHostile: corrupt and lying zips are typed errors naming the key,
// never panics.
func TestZipHostile(t *testing.T) {
	ctx := context.Background()
	good := readZipFile(t, "stored.zip")
	deflated := readZipFile(t, "deflated.zip")
	z64 := readZipFile(t, "zip64.zip")
	end := func(b []byte) int { return bytes.LastIndex(b, []byte("PK\x05\x06")) }
	cdOf := func(b []byte) int { return int(binary.LittleEndian.Uint32(b[end(b)+16:])) }
	// central directory entry n
	cdEntry := func(b []byte, n int) int {
		p := cdOf(b)
		for ; n > 0; n-- {
			p += 46 + int(binary.LittleEndian.Uint16(b[p+28:])) + int(binary.LittleEndian.Uint16(b[p+30:])) + int(binary.LittleEndian.Uint16(b[p+32:]))
		}
		return p
	}
	patch := func(src []byte, f func(b []byte)) []byte {
		b := append([]byte(nil), src...)
		f(b)
		return b
	}
	put16 := func(b []byte, at int, v uint16) { binary.LittleEndian.PutUint16(b[at:], v) }
	put32 := func(b []byte, at int, v uint32) { binary.LittleEndian.PutUint32(b[at:], v) }
	put64 := func(b []byte, at int, v uint64) { binary.LittleEndian.PutUint64(b[at:], v) }
	// entry 4 is arr/0 (120 stored bytes); in deflated.zip too.
	const key = "arr/0"
	cases := []struct {
		name    string
		file    []byte
		openErr bool // else reading key fails
		code    errs.Code
	}{
		{"not a zip", []byte(strings.Repeat("not a zip file ", 10)), true, errs.Store},
		{"cd offset past the end", patch(good, func(b []byte) { put32(b, end(b)+16, 0x7ffffff0) }), true, errs.Store},
		{"cd size huge", patch(good, func(b []byte) { put32(b, end(b)+12, 0xfffffff0) }), true, errs.Store},
		{"cd size short", patch(good, func(b []byte) { put32(b, end(b)+12, 100) }), true, errs.Store},
		{"count huge", patch(good, func(b []byte) { put16(b, end(b)+8, 0xfffe); put16(b, end(b)+10, 0xfffe) }), true, errs.Store},
		{"count one too many", patch(good, func(b []byte) { put16(b, end(b)+8, 13); put16(b, end(b)+10, 13) }), true, errs.Store},
		{"multi-disk", patch(good, func(b []byte) { put16(b, end(b)+4, 1) }), true, errs.Unsupported},
		{"bad cd signature", patch(good, func(b []byte) { b[cdEntry(b, 3)] = 'X' }), true, errs.Store},
		{"local offset past the end", patch(good, func(b []byte) { put32(b, cdEntry(b, 4)+42, 0x7ffffff0) }), true, errs.Store},
		{"local offset 0xffffffff without zip64", patch(good, func(b []byte) { put32(b, cdEntry(b, 4)+42, 0xffffffff) }), true, errs.Store},
		{"stored sizes differ", patch(good, func(b []byte) { put32(b, cdEntry(b, 4)+20, 121) }), true, errs.Store},
		{"stored size runs into the cd", patch(good, func(b []byte) { put32(b, cdEntry(b, 4)+20, 5000); put32(b, cdEntry(b, 4)+24, 5000) }), true, errs.Store},
		{"name length past the cd", patch(good, func(b []byte) { put16(b, cdEntry(b, 11)+28, 0xffff) }), true, errs.Store},
		{"deflate ratio impossible", patch(deflated, func(b []byte) { put32(b, cdEntry(b, 4)+24, 0x7fffffff) }), true, errs.Store},
		{"truncated", good[:len(good)-5], true, errs.Store},
		{"bytes before the archive", append([]byte("MZ prefix of a self-extracting zip"), good...), true, errs.Store},
		{"zip64 locator past the end", patch(z64, func(b []byte) { put64(b, end(b)-20+8, 1<<40) }), true, errs.Store},
		{"zip64 count huge", patch(z64, func(b []byte) { r := end(b) - 76; put64(b, r+24, 1<<40); put64(b, r+32, 1<<40) }), true, errs.Store},
		{"zip64 offset huge", patch(z64, func(b []byte) { r := end(b) - 76; put64(b, r+48, 1<<63) }), true, errs.Store},
		{"zip64 multi-disk", patch(z64, func(b []byte) { put32(b, end(b)-20+16, 3) }), true, errs.Unsupported},
		{"zip64 extra truncated", patch(z64, func(b []byte) {
			p := cdEntry(b, 4)
			nl := int(binary.LittleEndian.Uint16(b[p+28:]))
			put16(b, p+46+nl+2, 4) // the zip64 field claims 4 bytes
		}), true, errs.Store},
		{"zip64 record moved", patch(z64, func(b []byte) { put64(b, end(b)-20+8, binary.LittleEndian.Uint64(b[end(b)-20+8:])-8) }), true, errs.Store},
		{"crc wrong", patch(good, func(b []byte) { put32(b, cdEntry(b, 4)+16, 1) }), false, errs.Store},
		{"crc wrong, deflated", patch(deflated, func(b []byte) { put32(b, cdEntry(b, 4)+16, 1) }), false, errs.Store},
		{"local signature", patch(good, func(b []byte) { b[binary.LittleEndian.Uint32(b[cdEntry(b, 4)+42:])] = 'X' }), false, errs.Store},
		{"local name differs", patch(good, func(b []byte) { b[binary.LittleEndian.Uint32(b[cdEntry(b, 4)+42:])+30] = 'X' }), false, errs.Store},
		{"local extra runs into the cd", patch(good, func(b []byte) { put16(b, int(binary.LittleEndian.Uint32(b[cdEntry(b, 4)+42:]))+28, 0xffff) }), false, errs.Store},
		{"deflated size too large", patch(deflated, func(b []byte) { put32(b, cdEntry(b, 4)+24, 121) }), false, errs.Store},
		{"deflated size too small", patch(deflated, func(b []byte) { put32(b, cdEntry(b, 4)+24, 119) }), false, errs.Store},
		{"deflate stream corrupt", patch(deflated, func(b []byte) {
			off := int(binary.LittleEndian.Uint32(b[cdEntry(b, 4)+42:]))
			off += 30 + int(binary.LittleEndian.Uint16(b[off+26:])) + int(binary.LittleEndian.Uint16(b[off+28:]))
			b[off] = 0xff // reserved block type
		}), false, errs.Store},
		{"encrypted", patch(good, func(b []byte) { put16(b, cdEntry(b, 4)+8, 1) }), false, errs.Unsupported},
		{"method 99", patch(good, func(b []byte) { put16(b, cdEntry(b, 4)+10, 99) }), false, errs.Unsupported},
	}
	for _, tc := range cases {
		for _, s := range []Store{memWith("h.zip", tc.file), newRangeStore(map[string][]byte{"h.zip": tc.file}), getOnly{memWith("h.zip", tc.file)}} {
			for _, opts := range [][]ZipOption{nil, {ZipTail(40)}} {
				z, err := NewZip(ctx, s, "h.zip", opts...)
				if !tc.openErr {
					if err != nil {
						t.Fatalf("%s: opening: %v", tc.name, err)
					}
					_, _, err = z.Get(ctx, key)
					if err == nil {
						_, _, err = z.GetRange(ctx, key, Span(1, 1))
					}
				}
				var e *errs.Error
				if tc.name == "bytes before the archive" && err == nil {
					// Not supported, but a store refusing long suffixes
					// reads just the archive, after the end record's size.
					if v, _, err := z.Get(ctx, ".zgroup"); err != nil || string(v) != `{"zarr_format": 2}` {
						t.Errorf("%s: %q %v", tc.name, v, err)
					}
					continue
				}
				if !errors.As(err, &e) {
					t.Errorf("%s (%T): want a typed error, got %v", tc.name, s, err)
					continue
				}
				if e.Code != tc.code || !strings.Contains(err.Error(), `"h.zip"`) {
					t.Errorf("%s (%T): want %s naming the zip, got %v", tc.name, s, tc.code, err)
				}
				if !tc.openErr && (e.Where != key) && tc.name != "local signature" {
					t.Errorf("%s: error about %q, want %q: %v", tc.name, e.Where, key, err)
				}
			}
		}
	}
}

// rawEntry is an entry for buildZip, the test's own minimal zip writer.
type rawEntry struct {
	name       string
	data       []byte
	method     uint16 // 0 or 8
	localExtra []byte
}

func buildZip(entries []rawEntry, comment []byte) []byte {
	var out, cd bytes.Buffer
	le := binary.LittleEndian
	for _, e := range entries {
		comp := e.data
		if e.method == 8 {
			var b bytes.Buffer
			w, _ := flate.NewWriter(&b, flate.DefaultCompression)
			w.Write(e.data)
			w.Close()
			comp = b.Bytes()
		}
		off := out.Len()
		h := make([]byte, 30)
		le.PutUint32(h, localSig)
		le.PutUint16(h[4:], 20)
		le.PutUint16(h[8:], e.method)
		le.PutUint32(h[14:], crc32.ChecksumIEEE(e.data))
		le.PutUint32(h[18:], uint32(len(comp)))
		le.PutUint32(h[22:], uint32(len(e.data)))
		le.PutUint16(h[26:], uint16(len(e.name)))
		le.PutUint16(h[28:], uint16(len(e.localExtra)))
		out.Write(h)
		out.WriteString(e.name)
		out.Write(e.localExtra)
		out.Write(comp)
		c := make([]byte, 46)
		le.PutUint32(c, cdirSig)
		le.PutUint16(c[4:], 20)
		le.PutUint16(c[6:], 20)
		copy(c[8:], h[6:30]) // flags .. extra length
		le.PutUint16(c[30:], 0)
		le.PutUint32(c[42:], uint32(off))
		cd.Write(c)
		cd.WriteString(e.name)
	}
	cdOff := out.Len()
	out.Write(cd.Bytes())
	eocd := make([]byte, 22)
	le.PutUint32(eocd, eocdSig)
	le.PutUint16(eocd[8:], uint16(len(entries)))
	le.PutUint16(eocd[10:], uint16(len(entries)))
	le.PutUint32(eocd[12:], uint32(cd.Len()))
	le.PutUint32(eocd[16:], uint32(cdOff))
	le.PutUint16(eocd[20:], uint16(len(comment)))
	out.Write(eocd)
	out.Write(comment)
	return out.Bytes()
}

// TestZipGoArchive cross-checks with Go's archive/zip on the Python files.
func TestZipGoArchive(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"stored.zip", "deflated.zip", "parent.zip", "zip64.zip", "streamed.zip", "tiny64.zip"} {
		file := readZipFile(t, name)
		zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			t.Fatal(err)
		}
		z, err := NewZip(ctx, memWith("z", file), "z", ZipRoot(""))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if strings.HasSuffix(f.Name, "/") {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			_, err = want.ReadFrom(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := z.Get(ctx, f.Name)
			if err != nil || !ok || !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%s %s: %v %v", name, f.Name, ok, err)
			}
		}
	}
}

// TestZipConcurrent reads every entry from many goroutines at once.
func TestZipConcurrent(t *testing.T) {
	ctx := context.Background()
	file := readZipFile(t, "parent.zip")
	z, err := NewZip(ctx, newRangeStore(map[string][]byte{"z": file}), "z", ZipTail(22))
	if err != nil {
		t.Fatal(err)
	}
	keys := walk(t, ctx, z, "")
	want := map[string][]byte{}
	for _, k := range keys {
		want[k], _, _ = z.Get(ctx, k)
	}
	z, _ = NewZip(ctx, newRangeStore(map[string][]byte{"z": file}), "z", ZipTail(22))
	var wg sync.WaitGroup
	for g := 0; g < 4*runtime.GOMAXPROCS(0); g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range keys {
				k := keys[(i+g)%len(keys)]
				got, _, err := z.Get(ctx, k)
				if err != nil || !bytes.Equal(got, want[k]) {
					t.Errorf("%s: %v", k, err)
				}
				if len(want[k]) > 4 {
					got, _, err = z.GetRange(ctx, k, Span(2, 2))
					if err != nil || !bytes.Equal(got, want[k][2:4]) {
						t.Errorf("%s range: %v", k, err)
					}
				}
			}
		}(g)
	}
	wg.Wait()
}

// The returned bytes belong to the caller: changing them does not change
// later reads, even when they came from memory.
func TestZipResultsOwned(t *testing.T) {
	ctx := context.Background()
	for _, s := range []Store{memWith("z", readZipFile(t, "stored.zip")), getOnly{memWith("z", readZipFile(t, "stored.zip"))}} {
		z, err := NewZip(ctx, s, "z")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			a, _, _ := z.Get(ctx, "arr/.zattrs")
			r, _, _ := z.GetRange(ctx, "arr/.zattrs", Span(1, 3))
			if string(a) != `{"units": "m"}` || string(r) != `"un` {
				t.Fatalf("read %d: %q %q", i, a, r)
			}
			for j := range a {
				a[j] = 'X'
			}
			for j := range r {
				r[j] = 'Y'
			}
		}
	}
}

func ExampleNewZip() {
	ctx := context.Background()
	dir, _ := NewDirectory("testdata/zip")
	z, err := NewZip(ctx, dir, "parent.zip")
	if err != nil {
		panic(err)
	}
	top, _ := z.List(ctx, "")
	attrs, _, _ := z.Get(ctx, "arr/.zattrs")
	fmt.Println(z.Root(), top)
	fmt.Println(string(attrs))
	// Output:
	// data.zarr/ [.zattrs .zgroup arr/ misc/ my group with spaces/ text/ ünïcöde/]
	// {"units": "m"}
}

// TestZipPeerFixtures reads zarrita.js's zipped fixture stores (zarr-python's
// ZipStore "zipped from within" and "zipped from parent") and compares every
// entry with the unzipped store, counting requests: the end of the file,
// the central directory, then one per entry.
func TestZipPeerFixtures(t *testing.T) {
	testdata := peers.TestData()
	ctx := context.Background()
	root := filepath.Join(testdata, "zarrita", "v2")
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "data.zarr"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(filepath.Join(root, "data.zarr"), p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) < 100 {
		t.Fatalf("only %d files in data.zarr", len(files))
	}
	for _, tc := range []struct{ name, root string }{
		{"data.zipped_from_within.zarr.zip", ""},
		{"data.zipped_from_parent.zarr.zip", "data.zarr/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, err := os.ReadFile(filepath.Join(root, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			// Over HTTP-like ranges with a 1 KiB first request, the
			// central directory does not fit in the tail: 2 requests to
			// open, then 1 per entry.
			s := newRangeStore(map[string][]byte{tc.name: file})
			z, err := NewZip(ctx, s, tc.name, ZipTail(1024))
			if err != nil {
				t.Fatal(err)
			}
			if z.Root() != tc.root {
				t.Errorf("root %q, want %q", z.Root(), tc.root)
			}
			open, openBytes := s.reset()
			if open != 2 {
				t.Errorf("opening: %d requests (%q), want 2", open, s.log)
			}
			keys := walk(t, ctx, z, "")
			if !equalStrings(keys, files) {
				t.Fatalf("the zip lists %d keys, the directory has %d files", len(keys), len(files))
			}
			if n, _ := s.reset(); n != 0 {
				t.Errorf("listing made %d requests", n)
			}
			for _, k := range files {
				want, err := os.ReadFile(filepath.Join(root, "data.zarr", filepath.FromSlash(k)))
				if err != nil {
					t.Fatal(err)
				}
				got, ok, err := z.Get(ctx, k)
				if err != nil || !ok || !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes, ok %v, %v; the directory has %d bytes", k, len(got), ok, err, len(want))
				}
			}
			reads, readBytes := s.reset()
			if reads != len(files) {
				t.Errorf("reading %d entries made %d requests", len(files), reads)
			}
			t.Logf("ZipTail(1024): open %d requests (%d bytes), %d entries in %d requests (%d bytes), file %d bytes",
				open, openBytes, len(files), reads, readBytes, len(file))
			// Ranges of stored entries: one request each, of the range.
			ranged := 0
			for _, k := range files {
				e := z.entries[k]
				if e.method != 0 || e.usize < 4 {
					continue
				}
				want, _, _ := z.Get(ctx, k)
				s.reset()
				got, _, err := z.GetRange(ctx, k, Span(1, 2))
				if err != nil || !bytes.Equal(got, want[1:3]) {
					t.Errorf("%s: range: %v", k, err)
				}
				if n, b := s.reset(); n != 1 || b != 2 {
					t.Errorf("%s: range: %d requests, %d bytes", k, n, b)
				}
				ranged++
			}
			if ranged == 0 {
				t.Error("no stored entries")
			}

			// The default first request holds this whole (small) file.
			s = newRangeStore(map[string][]byte{tc.name: file})
			z, err = NewZip(ctx, s, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range files {
				if _, _, err := z.Get(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
			if n, _ := s.reset(); n != 1 {
				t.Errorf("default tail: %d requests in all, want 1", n)
			}
			// A directory store refuses a suffix longer than the file: 3
			// requests in all.
			dir, err := NewDirectory(root)
			if err != nil {
				t.Fatal(err)
			}
			c := &counted{s: dir}
			z, err = NewZip(ctx, c, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range files {
				if _, _, err := z.Get(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
			if c.requests != 3 {
				t.Errorf("directory store: %d requests in all, want 3", c.requests)
			}
		})
	}
}

// FuzzZip opens arbitrary bytes as a zip through a store that refuses long
// suffixes, one with HTTP range semantics and a short first request, and
// one without ranges, and reads every key: a value or a typed error naming
// the zip, never a panic. Where Go's archive/zip also reads an entry, the
// bytes must agree.
func FuzzZip(f *testing.F) {
	for _, name := range []string{"tiny64.zip", "methods.zip", "empty.zip", "deflated.zip", "streamed.zip"} {
		f.Add(readZipFile(f, name))
	}
	f.Add(buildZip([]rawEntry{{name: "a", data: []byte("0123456789")}}, nil))
	f.Add(buildZip([]rawEntry{{name: "a/b", data: []byte("aaaaaaaaaaaaaaaaaaaaaaaa"), method: 8}, {name: "c/", data: nil}}, []byte("comment")))
	f.Add(buildZip([]rawEntry{{name: "d/.zgroup", data: []byte("{}")}, {name: "d/a", data: []byte("abcabcabc"), method: 8, localExtra: padExtra(80)}}, []byte("c")))
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzmem.Input(t)()
		ctx := context.Background()
		const key = "f.zip"
		bases := []struct {
			s    Store
			opts []ZipOption
		}{
			{memWith(key, data), nil},
			{newRangeStore(map[string][]byte{key: data}), []ZipOption{ZipTail(64)}},
			{getOnly{memWith(key, data)}, []ZipOption{ZipRoot("")}},
		}
		var plain *Zip // the whole file, no root
		for _, b := range bases {
			z, err := NewZip(ctx, b.s, key, b.opts...)
			if err != nil {
				if errs.CodeOf(err) == "" || !strings.Contains(err.Error(), `"f.zip"`) {
					t.Fatalf("untyped error or not naming the zip: %v", err)
				}
				continue
			}
			if len(b.opts) == 1 && z.Root() == "" {
				plain = z
			}
			keys := walk(t, ctx, z, "")
			if len(keys) > len(data)/cdirLen+1 {
				t.Fatalf("%d keys from %d bytes", len(keys), len(data))
			}
			for _, k := range keys {
				v, ok, err := z.Get(ctx, k)
				if err != nil {
					if errs.CodeOf(err) == "" || !strings.Contains(err.Error(), `"f.zip"`) {
						t.Fatalf("%s: untyped error or not naming the zip: %v", k, err)
					}
					continue
				}
				if !ok {
					t.Fatalf("%s: listed but absent", k)
				}
				for _, r := range []ByteRange{Span(1, 2), Last(3), From(int64(len(v)) / 2)} {
					want, serr := Slice(v, r)
					got, ok, err := z.GetRange(ctx, k, r)
					if (serr == nil) != (err == nil) || (err == nil && (!ok || !bytes.Equal(got, want))) {
						t.Fatalf("%s %s: %q %v, want %q %v", k, r, got, err, want, serr)
					}
				}
			}
		}
		if plain == nil {
			return
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		count := map[string]int{}
		for _, f := range zr.File {
			count[f.Name]++
		}
		for _, f := range zr.File {
			if count[f.Name] > 1 || strings.HasSuffix(f.Name, "/") {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				continue
			}
			var want bytes.Buffer
			_, err = want.ReadFrom(io.LimitReader(rc, 1<<22))
			rc.Close()
			if err != nil {
				continue
			}
			got, ok, err := plain.Get(ctx, f.Name)
			if err == nil && ok && !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("%s: %q, archive/zip reads %q", f.Name, got, want.Bytes())
			}
		}
	})
}

// TestZip64Variants: the 32-bit end record holding 0xffff/0xffffffff (as
// writers do when the values overflow), and a Zip64 end record with an
// extensible data sector (not 56 bytes before the locator).
func TestZip64Variants(t *testing.T) {
	ctx := context.Background()
	src := readZipFile(t, "zip64.zip")
	i := bytes.LastIndex(src, []byte("PK\x05\x06"))
	noComment := append([]byte(nil), src[:i+22]...)
	binary.LittleEndian.PutUint16(noComment[i+20:], 0)

	sentinels := append([]byte(nil), noComment...)
	for _, f := range []struct{ at, size int }{{8, 2}, {10, 2}, {12, 4}, {16, 4}} {
		for k := 0; k < f.size; k++ {
			sentinels[i+f.at+k] = 0xff
		}
	}

	// Insert 8 bytes of extensible data after the 56-byte record.
	rec := i - 20 - 56
	extensible := append(append(append([]byte(nil), noComment[:rec+56]...), "EXTDATA!"...), noComment[rec+56:]...)
	binary.LittleEndian.PutUint64(extensible[rec+4:], 44+8)

	for name, file := range map[string][]byte{"no comment": noComment, "sentinels": sentinels, "extensible": extensible} {
		for _, tail := range []int64{42, 100, ZipDefaultTail} {
			for _, s := range []Store{memWith("z", file), newRangeStore(map[string][]byte{"z": file}), getOnly{memWith("z", file)}} {
				z, err := NewZip(ctx, s, "z", ZipTail(tail))
				if err != nil {
					t.Fatalf("%s, tail %d, %T: %v", name, tail, s, err)
				}
				if z.Size() != int64(len(file)) {
					t.Errorf("%s: size %d, want %d", name, z.Size(), len(file))
				}
				if v, _, err := z.Get(ctx, "text/blob"); err != nil || !bytes.HasPrefix(v, []byte("line 0: \nline 1: abc\n")) {
					t.Errorf("%s, tail %d, %T: %v", name, tail, s, err)
				}
			}
		}
	}
}
