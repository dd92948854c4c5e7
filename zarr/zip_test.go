package zarr_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
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
