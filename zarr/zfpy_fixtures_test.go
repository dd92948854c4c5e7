package zarr_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/zarr"
)

var zfpyFixtures = filepath.Join("..", "tests", "fixtures", "zfpy")

// TestZfpyFixtures reads every ZFP array of tests/fixtures/zfpy: written by
// numcodecs' zfpy (LLNL's zfp 1.0) in every mode, type and dimensionality,
// numcodecs' own zfpy vectors and zarrs' zfpy arrays (v2 and v3), and
// compares with the values zarr-python read.
func TestZfpyFixtures(t *testing.T) {
	cases, err := conformance.Load(filepath.Join(zfpyFixtures, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if err := conformance.Check(context.Background(), filepath.Join(zfpyFixtures, "data"), c); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestZfpyEncodeMatchesZfpy encodes the input of every array zfpy wrote
// (zfpy.zarr/inputs/...) with the array's own metadata and compares each
// chunk with zfpy's, byte for byte.
func TestZfpyEncodeMatchesZfpy(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(zfpyFixtures, "data", "zfpy.zarr")
	disk, err := zarr.NewDirectoryStore(root)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, group := range []string{"modes", "special"} {
		ents, err := os.ReadDir(filepath.Join(root, group))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			paths = append(paths, group+"/"+e.Name())
		}
	}
	sort.Strings(paths)
	if len(paths) < 90 {
		t.Fatalf("only %d arrays", len(paths))
	}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			in, err := zarr.OpenArray(ctx, disk, "inputs/"+path)
			if err != nil {
				t.Fatal(err)
			}
			values, err := in.Read(ctx, zarr.Selection{})
			if err != nil {
				t.Fatal(err)
			}
			meta, err := os.ReadFile(filepath.Join(root, path, ".zarray"))
			if err != nil {
				t.Fatal(err)
			}
			mem := zarr.NewMemoryStore()
			if err := mem.Set(ctx, "a/.zarray", meta); err != nil {
				t.Fatal(err)
			}
			out, err := zarr.OpenArray(ctx, mem, "a")
			if err != nil {
				t.Fatal(err)
			}
			out.WriteEmptyChunks = true // zarr-python 2.13 writes them
			if err := out.Write(ctx, zarr.Selection{}, values); err != nil {
				t.Fatal(err)
			}
			chunks, err := os.ReadDir(filepath.Join(root, path))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, ch := range chunks {
				if strings.HasPrefix(ch.Name(), ".") {
					continue
				}
				n++
				want, err := os.ReadFile(filepath.Join(root, path, ch.Name()))
				if err != nil {
					t.Fatal(err)
				}
				got, ok, err := mem.Get(ctx, "a/"+ch.Name())
				if err != nil || !ok {
					t.Fatalf("chunk %s not written (%v)", ch.Name(), err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("chunk %s: %d bytes differ from zfpy's %d (first difference at byte %d)", ch.Name(), len(got), len(want), firstDifference(got, want))
				}
			}
			if n == 0 {
				t.Fatal("no chunks")
			}
		})
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
