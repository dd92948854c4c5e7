package zarr_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

// TestZipStoreArrays opens every array of zarrita.js's v2 fixtures through
// the zipped stores (zarr-python's ZipStore, zipped from within and from the
// parent directory) and compares what it reads with the directory store.
func TestZipStoreArrays(t *testing.T) {
	testdata := peers.TestData()
	ctx := context.Background()
	root := filepath.Join(testdata, "zarrita", "v2")
	dir, err := zarr.NewDirectoryStore(filepath.Join(root, "data.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	var arrays []string
	_ = filepath.WalkDir(filepath.Join(root, "data.zarr"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == ".zarray" {
			rel, _ := filepath.Rel(filepath.Join(root, "data.zarr"), filepath.Dir(p))
			arrays = append(arrays, filepath.ToSlash(rel))
		}
		return err
	})
	sort.Strings(arrays)
	if len(arrays) < 30 {
		t.Fatalf("only %d arrays", len(arrays))
	}
	files, err := store.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"data.zipped_from_within.zarr.zip", "data.zipped_from_parent.zarr.zip"} {
		t.Run(name, func(t *testing.T) {
			zs, err := store.NewZip(ctx, files, name)
			if err != nil {
				t.Fatal(err)
			}
			// The array the task names first, then all of them.
			read := 0
			for _, p := range append([]string{"1d.contiguous.i4"}, arrays...) {
				want, werr := readAll(ctx, dir, p)
				got, gerr := readAll(ctx, zs, p)
				if (werr == nil) != (gerr == nil) || (werr != nil && zarr.ErrorCodeOf(werr) != zarr.ErrorCodeOf(gerr)) {
					t.Errorf("%s: directory: %v; zip: %v", p, werr, gerr)
					continue
				}
				if werr == nil {
					read++
					if !got.Equal(want) {
						t.Errorf("%s: values differ", p)
					}
				}
			}
			if read < len(arrays)-5 {
				t.Errorf("only %d of %d arrays read", read, len(arrays))
			}
			// Group listing goes through the zip's central directory.
			names := func(s zarr.Store) []string {
				g, err := zarr.OpenGroup(ctx, s, "")
				if err != nil {
					t.Fatal(err)
				}
				cs, err := g.Children(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, c := range cs {
					out = append(out, c.Name)
				}
				return out
			}
			if a, b := names(zs), names(dir); len(a) < 30 || len(a) != len(b) {
				t.Errorf("children: zip %d, directory %d", len(a), len(b))
			}
			arr, err := zarr.OpenArray(ctx, zs, "1d.contiguous.i4")
			if err != nil {
				t.Fatal(err)
			}
			nd, _ := arr.Read(ctx, nil)
			if err := arr.Write(ctx, nil, nd); zarr.ErrorCodeOf(err) != zarr.CodeReadOnly {
				t.Errorf("writing through a zip: %v, want READ_ONLY", err)
			}
		})
	}
}

func readAll(ctx context.Context, s zarr.Store, p string) (*zarr.NDArray, error) {
	arr, err := zarr.OpenArray(ctx, s, p)
	if err != nil {
		return nil, err
	}
	return arr.Read(ctx, nil)
}

// TestZipStoreTestdata reads the array of the zips tests/zip/gen.py wrote
// with Python's zipfile (stored, deflated, from the parent directory, Zip64,
// with data descriptors), through the engine.
func TestZipStoreTestdata(t *testing.T) {
	ctx := context.Background()
	files, err := store.NewDirectory(filepath.Join("store", "testdata", "zip"))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 0, 400)
	for i := 0; i < 100; i++ {
		want = binary.LittleEndian.AppendUint32(want, uint32(int32(i*3-7)))
	}
	for _, name := range []string{"stored.zip", "deflated.zip", "parent.zip", "zip64.zip", "streamed.zip"} {
		zs, err := store.NewZip(ctx, files, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		arr, err := zarr.OpenArray(ctx, zs, "arr")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := arr.Read(ctx, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: values differ", name)
		}
		sel, _ := zarr.ParseSelection("25:65:3")
		part, err := arr.Read(ctx, sel)
		if err != nil || part.Len() != 14 || binary.LittleEndian.Uint32(part.Bytes()) != uint32(25*3-7) {
			t.Errorf("%s: selection: %v", name, err)
		}
		if g, err := zarr.OpenGroup(ctx, zs, ""); err != nil || g.Attrs()["title"] != "zip test" {
			t.Errorf("%s: root group: %v", name, err)
		}
	}
}

// pythonZips runs tests/zip/window.py: zarr-python's ZipStore writes a
// 200×200 int32 array of 20×20 chunks at "arr" in stored.zip and
// deflated.zip, and what it reads of zipWindow in window.bin, in the
// returned directory.
func pythonZips(t testing.TB) string {
	py := peers.RequirePython(t, "zarr", "numpy")
	dir := t.TempDir()
	script := filepath.Join(peers.RepoRoot(), "tests", "zip", "window.py")
	if out, err := exec.Command(py, script, dir).CombinedOutput(); err != nil {
		t.Fatalf("zarr-python: %v\n%s", err, out)
	}
	return dir
}

// zipWindow is the window TestZipWindowOverHTTP reads: 8×6 = 48 chunks.
const zipWindow = "30:170, 45:155"

// zipServer serves the zip files of dir over HTTP (Range, no validators)
// from what served returns, counting requests.
func zipServer(t testing.TB, served func(name string) []byte) (*httptest.Server, *atomic.Int64) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		b := served(strings.TrimPrefix(r.URL.Path, "/"))
		if b == nil {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

// TestZipWindowOverHTTP reads a window of an array in zarr-python's
// ZipStore (stored and deflated entries) over HTTP: the chunks' entries
// are read in merged range requests, far fewer than one per chunk, and the
// values are zarr-python's.
func TestZipWindowOverHTTP(t *testing.T) {
	dir := pythonZips(t)
	want, err := os.ReadFile(filepath.Join(dir, "window.bin"))
	if err != nil {
		t.Fatal(err)
	}
	srv, requests := zipServer(t, func(name string) []byte {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return b
	})
	ctx := context.Background()
	for _, name := range []string{"stored.zip", "deflated.zip"} {
		t.Run(name, func(t *testing.T) {
			base, err := zhttp.NewStore(srv.URL+"/", zhttp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			zs, err := store.NewZip(ctx, base, name)
			if err != nil {
				t.Fatal(err)
			}
			arr, err := zarr.OpenArray(ctx, zs, "arr")
			if err != nil {
				t.Fatal(err)
			}
			sel, _ := zarr.ParseSelection(zipWindow)
			before := requests.Load()
			got, err := arr.Read(ctx, sel)
			if err != nil {
				t.Fatal(err)
			}
			n := requests.Load() - before
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("the window differs from zarr-python's")
			}
			t.Logf("48 chunks in %d requests", n)
			if n > 48/4 {
				t.Errorf("48 chunks in %d requests: their entries were not merged", n)
			}
		})
	}
}

// TestZipWindowFaults: a window read over HTTP whose merged requests meet
// a corrupt local header, a CRC mismatch or a file truncated since it was
// opened fails with a STORE error naming the entry.
func TestZipWindowFaults(t *testing.T) {
	dir := pythonZips(t)
	good, err := os.ReadFile(filepath.Join(dir, "stored.zip"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	zr, err := zip.NewReader(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	const entry = "arr/3.4" // in the window
	var local, data int64
	for _, f := range zr.File {
		if f.Name == entry {
			data, _ = f.DataOffset()
			local = data - 30 - int64(len(f.Name)) - int64(len(f.Extra))
		}
	}
	if data == 0 {
		t.Fatalf("no %s in the zip", entry)
	}
	patched := func(at int64) []byte {
		b := bytes.Clone(good)
		b[at] ^= 0xff
		return b
	}
	cases := []struct {
		name           string
		opened, served []byte // served after opening
		names          string // the entry the error names
	}{
		{"corrupt local header", patched(local), patched(local), entry},
		{"CRC mismatch", patched(data + 100), patched(data + 100), entry},
		{"truncated", good, good[:data+100], "arr/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var cur atomic.Pointer[[]byte]
			cur.Store(&tc.opened)
			srv, _ := zipServer(t, func(string) []byte { return *cur.Load() })
			base, _ := zhttp.NewStore(srv.URL+"/", zhttp.Options{})
			zs, err := store.NewZip(ctx, base, "z.zip")
			if err != nil {
				t.Fatal(err)
			}
			arr, err := zarr.OpenArray(ctx, zs, "arr")
			if err != nil {
				t.Fatal(err)
			}
			cur.Store(&tc.served)
			sel, _ := zarr.ParseSelection(zipWindow)
			_, err = arr.Read(ctx, sel)
			if zarr.ErrorCodeOf(err) != zarr.CodeStore || !strings.Contains(err.Error(), `"`+tc.names) {
				t.Fatalf("want a STORE error naming %s, got %v", tc.names, err)
			}
			t.Log(err)
		})
	}
}

// BenchmarkZipWindowOverHTTP: the 48-chunk window of TestZipWindowOverHTTP
// from zarr-python's stored zip over HTTP, each answer 10 ms late (a
// network's round trip): time and requests per read.
func BenchmarkZipWindowOverHTTP(b *testing.B) {
	dir := pythonZips(b)
	file, err := os.ReadFile(filepath.Join(dir, "stored.zip"))
	if err != nil {
		b.Fatal(err)
	}
	srv, requests := zipServer(b, func(string) []byte {
		time.Sleep(10 * time.Millisecond)
		return file
	})
	ctx := context.Background()
	base, _ := zhttp.NewStore(srv.URL+"/", zhttp.Options{})
	zs, err := store.NewZip(ctx, base, "stored.zip")
	if err != nil {
		b.Fatal(err)
	}
	arr, err := zarr.OpenArray(ctx, zs, "arr")
	if err != nil {
		b.Fatal(err)
	}
	sel, _ := zarr.ParseSelection(zipWindow)
	before := requests.Load()
	b.ResetTimer()
	for range b.N {
		if _, err := arr.Read(ctx, sel); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(requests.Load()-before)/float64(b.N), "requests/op")
}
