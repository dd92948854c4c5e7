package icechunk

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

// Bad input: corrupt, truncated and foreign files, unknown versions, a
// manifest naming a missing object, virtual chunks outside the allowed
// prefixes or whose file changed. Each is a typed error naming the file or
// the key, never a panic or other bytes.

var testdata = filepath.Join("..", "..", "tests", "icechunk")

// copyRepo copies a committed repository into a temporary directory.
func copyRepo(t *testing.T, rel string) (string, store.Store) {
	t.Helper()
	src := filepath.Join(testdata, rel)
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, r), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, r), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.NewDirectory(dst)
	if err != nil {
		t.Fatal(err)
	}
	return dst, st
}

// wantErr checks err's code and that its text names each of names.
func wantErr(t *testing.T, what string, err error, code errs.Code, names ...string) *errs.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s", what, code)
	}
	var e *errs.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: untyped error %T: %v", what, err, err)
	}
	if e.Code != code {
		t.Fatalf("%s: %v, want code %s", what, err, code)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("%s: %q does not name %q", what, err, n)
		}
	}
	return e
}

const mainV2 = "2768FV3XW5ZXYM84XNNG" // test-repo-v2's main

// readAll reads every array chunk key the store lists.
func readAll(ctx context.Context, s *Store) error {
	var walkErr error
	var walk func(prefix string)
	walk = func(prefix string) {
		names, err := s.List(ctx, prefix)
		if err != nil && walkErr == nil {
			walkErr = err
		}
		for _, n := range names {
			if strings.HasSuffix(n, "/") {
				walk(prefix + n)
			} else if _, _, err := s.Get(ctx, prefix+n); err != nil && walkErr == nil {
				walkErr = err
			}
		}
	}
	walk("")
	return walkErr
}

func TestBadFiles(t *testing.T) {
	ctx := context.Background()
	snap := "snapshots/" + mainV2
	edit := func(t *testing.T, key string, f func([]byte) []byte) (*Store, error) {
		dir, st := copyRepo(t, "upstream/test-repo-v2")
		p := filepath.Join(dir, filepath.FromSlash(key))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f(b), 0o644); err != nil {
			t.Fatal(err)
		}
		return Open(ctx, st, Version{}, Options{})
	}
	t.Run("truncated header", func(t *testing.T) {
		_, err := edit(t, snap, func(b []byte) []byte { return b[:20] })
		wantErr(t, "open", err, errs.InvalidMetadata, snap, "header")
	})
	t.Run("truncated body", func(t *testing.T) {
		_, err := edit(t, snap, func(b []byte) []byte { return b[:len(b)/2] })
		wantErr(t, "open", err, errs.Codec, snap)
	})
	t.Run("wrong magic", func(t *testing.T) {
		_, err := edit(t, snap, func(b []byte) []byte { b[3] = 'X'; return b })
		wantErr(t, "open", err, errs.InvalidMetadata, snap, "not an Icechunk file")
	})
	t.Run("unknown spec version", func(t *testing.T) {
		_, err := edit(t, snap, func(b []byte) []byte { b[36] = 9; return b })
		wantErr(t, "open", err, errs.Unsupported, snap, "spec version 9")
	})
	t.Run("repo of an unknown spec version", func(t *testing.T) {
		_, err := edit(t, "repo", func(b []byte) []byte { b[36] = 3; return b })
		wantErr(t, "open", err, errs.Unsupported, "repo", "spec version 3")
	})
	t.Run("wrong file type", func(t *testing.T) {
		_, err := edit(t, snap, func(b []byte) []byte { b[37] = fileManifest; return b })
		wantErr(t, "open", err, errs.InvalidMetadata, snap, "expected an Icechunk snapshot file, found a manifest")
	})
	t.Run("unknown compression", func(t *testing.T) {
		_, err := edit(t, snap, func(b []byte) []byte { b[38] = 7; return b })
		wantErr(t, "open", err, errs.Unsupported, snap, "compression 7")
	})
	t.Run("corrupt zstd", func(t *testing.T) {
		_, err := edit(t, snap, func(b []byte) []byte {
			for i := headerSize + 8; i < len(b); i += 7 {
				b[i] ^= 0x5a
			}
			return b
		})
		wantErr(t, "open", err, errs.Codec, snap)
	})
}

// rewrite replaces a metadata file by its body, uncompressed, after f
// changed it (header byte 38 = 0: no compression).
func rewrite(t *testing.T, dir, key string, f func(r *fbReader, b []byte)) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(key))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	h, b, err := body(key, data, data[37])
	if err != nil {
		t.Fatal(err)
	}
	b = append([]byte(nil), b...)
	f(&fbReader{b: b}, b)
	out := append(append([]byte(nil), data[:headerSize]...), b...)
	out[38] = compressNone
	_ = h
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBadFlatBuffers(t *testing.T) {
	ctx := context.Background()
	snap := "snapshots/" + mainV2
	t.Run("uncompressed body reads", func(t *testing.T) {
		dir, st := copyRepo(t, "upstream/test-repo-v2")
		rewrite(t, dir, snap, func(*fbReader, []byte) {})
		s, err := Open(ctx, st, Version{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.Get(ctx, "group1/small_chunks/zarr.json"); err != nil || !ok {
			t.Fatal(ok, err)
		}
	})
	t.Run("root offset outside", func(t *testing.T) {
		dir, st := copyRepo(t, "upstream/test-repo-v2")
		rewrite(t, dir, snap, func(_ *fbReader, b []byte) { binary.LittleEndian.PutUint32(b, uint32(len(b)+100)) })
		_, err := Open(ctx, st, Version{}, Options{})
		wantErr(t, "open", err, errs.InvalidMetadata, snap, "outside")
	})
	t.Run("node vector length outside", func(t *testing.T) {
		dir, st := copyRepo(t, "upstream/test-repo-v2")
		rewrite(t, dir, snap, func(r *fbReader, b []byte) {
			root := r.root()
			at := r.deref(r.field(root, snapNodes, 4))
			binary.LittleEndian.PutUint32(b[at:], 0x7fffffff)
		})
		_, err := Open(ctx, st, Version{}, Options{})
		wantErr(t, "open", err, errs.InvalidMetadata, snap, "2147483647 elements")
	})
	t.Run("manifest reference vector outside", func(t *testing.T) {
		dir, st := copyRepo(t, "upstream/test-repo-v2")
		s, err := Open(ctx, st, Version{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := s.snap.nodes[s.snap.byPath["/group1/small_chunks"]]
		key := manifestKey(n.manifests[0].id)
		rewrite(t, dir, key, func(r *fbReader, b []byte) {
			arrays, _ := r.fieldVec(r.root(), manArrays, 4, "")
			for j := 0; j < arrays.n; j++ {
				at := r.deref(r.field(r.tableIn(arrays, j, ""), arrManRefs, 4))
				binary.LittleEndian.PutUint32(b[at:], 0x10000000)
			}
		})
		s, err = Open(ctx, st, Version{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = s.Get(ctx, "group1/small_chunks/c/0")
		wantErr(t, "read", err, errs.InvalidMetadata, key, "268435456 elements")
	})
	t.Run("manifest references out of order", func(t *testing.T) {
		dir, st := copyRepo(t, "upstream/test-repo-v2")
		s, _ := Open(ctx, st, Version{}, Options{})
		n := s.snap.nodes[s.snap.byPath["/group1/small_chunks"]]
		key := manifestKey(n.manifests[0].id)
		rewrite(t, dir, key, func(r *fbReader, b []byte) {
			arrays, _ := r.fieldVec(r.root(), manArrays, 4, "")
			refs, _ := r.fieldVec(r.tableIn(arrays, 0, ""), arrManRefs, 4, "")
			// swap the offsets of the first two references
			a, c := refs.at, refs.at+4
			x, y := r.u32(a), r.u32(c)
			binary.LittleEndian.PutUint32(b[a:], y+4)
			binary.LittleEndian.PutUint32(b[c:], x-4)
		})
		s, _ = Open(ctx, st, Version{}, Options{})
		_, _, err := s.Get(ctx, "group1/small_chunks/c/3")
		wantErr(t, "read", err, errs.InvalidMetadata, key, "not sorted")
	})
}

func TestMissingObjects(t *testing.T) {
	ctx := context.Background()
	t.Run("chunk object", func(t *testing.T) {
		dir, st := copyRepo(t, "upstream/split-repo-v2")
		s, err := Open(ctx, st, Version{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		loc, err := s.locate(ctx, "group1/split/c/0/0")
		if err != nil || loc.ref.kind != refKindNative {
			t.Fatalf("%+v %v", loc, err)
		}
		obj := chunkKey(loc.ref.chunkID)
		os.Remove(filepath.Join(dir, filepath.FromSlash(obj)))
		_, _, err = s.Get(ctx, "group1/split/c/0/0")
		wantErr(t, "read", err, errs.Store, obj, "group1/split/c/0/0", "manifests/")
	})
	t.Run("manifest", func(t *testing.T) {
		dir, st := copyRepo(t, "upstream/split-repo-v2")
		s, _ := Open(ctx, st, Version{}, Options{})
		n := s.snap.nodes[s.snap.byPath["/group1/split"]]
		key := manifestKey(n.manifests[0].id)
		os.Remove(filepath.Join(dir, filepath.FromSlash(key)))
		err := readAll(ctx, s)
		wantErr(t, "read", err, errs.Store, key)
	})
	t.Run("snapshot", func(t *testing.T) {
		dir, st := copyRepo(t, "upstream/test-repo-v2")
		os.Remove(filepath.Join(dir, "snapshots", mainV2))
		_, err := Open(ctx, st, Version{}, Options{})
		wantErr(t, "open", err, errs.NotFound, mainV2)
	})
	t.Run("not a repository", func(t *testing.T) {
		st, _ := store.NewDirectory(t.TempDir())
		_, err := Open(ctx, st, Version{}, Options{})
		wantErr(t, "open", err, errs.NotFound, "no Icechunk repository")
	})
}

func TestUnknownVersions(t *testing.T) {
	ctx := context.Background()
	for _, repo := range []string{"upstream/test-repo-v2", "upstream/test-repo-v1"} {
		t.Run(repo, func(t *testing.T) {
			_, st := copyRepo(t, repo)
			e := wantErr(t, "branch", mustFail(Open(ctx, st, Version{Branch: "mian"}, Options{})), errs.NotFound, "mian")
			if e.Suggest != "main" {
				t.Errorf("suggests %q for mian", e.Suggest)
			}
			e = wantErr(t, "tag", mustFail(Open(ctx, st, Version{Tag: "it work!"}, Options{})), errs.NotFound, "it work!")
			if e.Suggest != "it works!" {
				t.Errorf("suggests %q for \"it work!\"", e.Suggest)
			}
			wantErr(t, "deleted tag", mustFail(Open(ctx, st, Version{Tag: "deleted"}, Options{})), errs.NotFound, "deleted")
			wantErr(t, "two versions", mustFail(Open(ctx, st, Version{Branch: "main", Tag: "it works!"}, Options{})), errs.InvalidArgument, "one of")
			wantErr(t, "not an id", mustFail(Open(ctx, st, Version{Snapshot: "nope"}, Options{})), errs.NotFound, "nope")
			main, err := Open(ctx, st, Version{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			id := main.SnapshotID()
			typo := id[:5] + string("0123456789ABCDEFGHJKMNPQRSTVWXYZ"[(strings.IndexByte(crockford, id[5])+1)%32]) + id[6:]
			e = wantErr(t, "snapshot", mustFail(Open(ctx, st, Version{Snapshot: typo}, Options{})), errs.NotFound, typo)
			if repo == "upstream/test-repo-v2" && e.Suggest != id {
				t.Errorf("suggests %q for %s (one character off %s)", e.Suggest, typo, id)
			}
			// lower case reads as the id
			if s, err := Open(ctx, st, Version{Snapshot: strings.ToLower(id)}, Options{}); err != nil || s.SnapshotID() != id {
				t.Errorf("lower-case id: %v", err)
			}
		})
	}
}

func mustFail(_ *Store, err error) error { return err }

// targetServer serves tests/icechunk/virtual/target.bin, ignoring
// conditional headers, with an ETag and a Last-Modified the test sets.
func targetServer(t *testing.T) (*httptest.Server, func(etag, lastModified string)) {
	data, err := os.ReadFile(filepath.Join(testdata, "virtual", "target.bin"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	etag, lm := `"target-v1"`, "Mon, 01 Jan 2024 00:00:00 GMT"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		e, l := etag, lm
		mu.Unlock()
		if r.URL.Path != "/virtual/target.bin" {
			http.NotFound(w, r)
			return
		}
		if e != "" {
			w.Header().Set("ETag", e)
		}
		if l != "" {
			w.Header().Set("Last-Modified", l)
		}
		r.Header.Del("If-Match")
		r.Header.Del("If-Unmodified-Since")
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader(string(data)))
	}))
	t.Cleanup(srv.Close)
	return srv, func(e, l string) {
		mu.Lock()
		etag, lm = e, l
		mu.Unlock()
	}
}

const virtualPrefix = "https://zarr-wasm-test.example/virtual/"

func TestVirtualChecks(t *testing.T) {
	ctx := context.Background()
	srv, set := targetServer(t)
	fetcher := zhttp.NewFetcher(zhttp.Options{Retries: -1})
	allow := Options{VirtualChunks: map[string]string{virtualPrefix: srv.URL + "/virtual/"}, Fetcher: fetcher}
	for _, repo := range []string{"virtual/repo-v2", "virtual/repo-v1"} {
		t.Run(repo, func(t *testing.T) {
			_, st := copyRepo(t, repo)
			open := func(opt Options) *Store {
				s, err := Open(ctx, st, Version{}, opt)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			get := func(s *Store, key string) error {
				_, _, err := s.Get(ctx, key)
				return err
			}
			set(`"target-v1"`, "Mon, 01 Jan 2024 00:00:00 GMT")
			s := open(allow)
			for _, k := range []string{"virt/etag/c/0/0", "virt/mtime/c/1/0", "virt/plain/c/3/0", "virt/mixed/c/0/0", "virt/mixed/c/1/0", "virt/small/c/0"} {
				if err := get(s, k); err != nil {
					t.Errorf("%s: %v", k, err)
				}
			}
			// nothing allowed
			wantErr(t, "not allowed", get(open(Options{Fetcher: fetcher}), "virt/plain/c/0/0"), errs.Store,
				"virt/plain/c/0/0", virtualPrefix+"target.bin", "outside the prefixes")
			// a prefix that is not at a boundary
			near := Options{VirtualChunks: map[string]string{"https://zarr-wasm-test.example/virt": srv.URL + "/"}, Fetcher: fetcher}
			wantErr(t, "prefix boundary", get(open(near), "virt/plain/c/0/0"), errs.Store, "outside the prefixes")
			// no fetcher
			wantErr(t, "no fetcher", get(open(Options{VirtualChunks: map[string]string{virtualPrefix: ""}}), "virt/plain/c/0/0"), errs.Store, "no fetcher")
			// the file changed: another ETag, a later modification
			set(`"target-v2"`, "Wed, 03 Jan 2024 00:00:00 GMT")
			wantErr(t, "etag", get(s, "virt/etag/c/0/0"), errs.Conflict, "virt/etag/c/0/0", "target-v2", "target-v1")
			wantErr(t, "etag, mixed", get(s, "virt/mixed/c/0/0"), errs.Conflict, "target-v2")
			wantErr(t, "modified", get(s, "virt/mtime/c/0/0"), errs.Conflict, "2024-01-03", "2024-01-02")
			if err := get(s, "virt/plain/c/0/0"); err != nil {
				t.Errorf("a chunk without a checksum: %v", err)
			}
			// a weak ETag of the same value is the same version
			set(`W/"target-v1"`, "")
			if err := get(s, "virt/etag/c/2/0"); err != nil {
				t.Errorf("weak ETag: %v", err)
			}
			// nothing to check against
			wantErr(t, "no Last-Modified", get(s, "virt/mtime/c/0/0"), errs.Store, "no Last-Modified")
			set("", "")
			wantErr(t, "no ETag", get(s, "virt/etag/c/0/0"), errs.Store, "no ETag")
			// the file is gone
			gone := Options{VirtualChunks: map[string]string{virtualPrefix: srv.URL + "/elsewhere/"}, Fetcher: fetcher}
			wantErr(t, "gone", get(open(gone), "virt/plain/c/0/0"), errs.Store, "does not exist")
		})
	}
}

func TestVirtualURL(t *testing.T) {
	s := &Store{opt: Options{VirtualChunks: map[string]string{
		"s3://bucket/data/":     "https://mirror.example/data/",
		"s3://bucket/data/deep": "https://deep.example/",
		"https://host.example":  "",
	}}}
	s.opt.VirtualChunks["s3://as-is/"] = ""
	s.opt.VirtualChunks["gs://as-is/"] = ""
	for loc, want := range map[string]string{
		"s3://as-is/x/a.nc":              "https://as-is.s3.amazonaws.com/x/a.nc",
		"gs://as-is/x/a.nc":              "https://storage.googleapis.com/as-is/x/a.nc",
		"s3://bucket/data/a.nc":          "https://mirror.example/data/a.nc",
		"s3://bucket/data/deep/b.nc":     "https://deep.example//b.nc",
		"s3://bucket/data/deeper/c.nc":   "https://mirror.example/data/deeper/c.nc",
		"https://host.example/x/y.nc":    "https://host.example/x/y.nc",
		"https://host.example.evil/y.nc": "",
		"s3://bucket/data/../secret":     "",
		"s3://bucket/data/%2E%2E/secret": "",
		"s3://bucket/data/a\\..\\b":      "",
		"s3://bucket/other/a.nc":         "",
	} {
		got, err := s.virtualURL("k", loc)
		if want == "" {
			if err == nil {
				t.Errorf("%s: allowed as %s", loc, got)
			} else {
				wantErr(t, loc, err, errs.Store)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", loc, got, err, want)
		}
	}
}

func TestHTTPDate(t *testing.T) {
	for s, want := range map[string]int64{
		"Sun, 06 Nov 1994 08:49:37 GMT": 784111777,
		"Tue, 02 Jan 2024 00:00:00 GMT": 1704153600,
	} {
		got, ok := parseHTTPDate(s)
		if !ok || got.Unix() != want {
			t.Errorf("%s: %v %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Nox 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC"} {
		if _, ok := parseHTTPDate(s); ok {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestIDs(t *testing.T) {
	// the spec's example: 0b 1c c8 d6 78 75 80 f0 e3 3a 65 34
	id := id12{0x0b, 0x1c, 0xc8, 0xd6, 0x78, 0x75, 0x80, 0xf0, 0xe3, 0x3a, 0x65, 0x34}
	if id.String() != "1CECHNKREP0F1RSTCMT0" {
		t.Fatal(id.String())
	}
	back, ok := parseID12("1cechnkrep0f1rstcmt0")
	if !ok || back != id {
		t.Fatal(back, ok)
	}
	for _, s := range []string{"1CECHNKREP0F1RSTCMT", "1CECHNKREP0F1RSTCMTU", "1CECHNKREP0F1RSTCMT1"} {
		if _, ok := parseID12(s); ok {
			t.Errorf("%s parsed", s)
		}
	}
}
