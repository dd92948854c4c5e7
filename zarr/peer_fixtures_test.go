package zarr_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// TestZarritaV2Fixtures reads zarrita.js's v2 fixture store (written by
// zarr-python) and compares every array with what zarr-python 2 reads.
func TestZarritaV2Fixtures(t *testing.T) {
	testdata := peers.TestData()
	py := peers.RequirePython(t, "zarr")
	root := filepath.Join(testdata, "zarrita", "v2")
	out := filepath.Join(t.TempDir(), "cases.json")
	script := filepath.Join(peers.RepoRoot(), "tests", "python", "dump_cases.py")
	if b, err := exec.Command(py, script, root, "data.zarr", out).CombinedOutput(); err != nil {
		t.Fatalf("dump_cases.py: %v\n%s", err, b)
	}
	cases, err := conformance.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 30 {
		t.Fatalf("only %d arrays found", len(cases))
	}
	ctx := context.Background()
	byName := map[string]conformance.Case{}
	for _, c := range cases {
		byName[c.Path] = c
	}
	for _, c := range cases {
		t.Run(c.Path, func(t *testing.T) {
			if c.Error == "" {
				if err := conformance.Check(ctx, root, c); err != nil {
					t.Error(err)
				}
				return
			}
			// zarr-python 2.13 cannot read it (e.g. numcodecs 0.11 rejects
			// zstd's "checksum"). zarrita's generator writes the same values
			// to every 1d.contiguous.<codec>.i2 array; compare with the raw
			// one, after checking that claim on the arrays the oracle read.
			if !strings.HasPrefix(c.Path, "1d.contiguous.") || !strings.HasSuffix(c.Path, ".i2") {
				t.Fatalf("oracle could not read it (%s) and there is no other expectation", c.Error)
			}
			raw := byName["1d.contiguous.raw.i2"]
			for _, other := range []string{"1d.contiguous.zlib.i2", "1d.contiguous.lz4.i2", "1d.contiguous.blosc.i2"} {
				if o := byName[other]; o.Bytes == nil || *o.Bytes != *raw.Bytes {
					t.Fatalf("%s differs from the raw array; the same-values assumption does not hold", other)
				}
			}
			s, _ := zarr.NewDirectoryStore(filepath.Join(root, "data.zarr"))
			arr, err := zarr.OpenArray(ctx, s, c.Path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := arr.Read(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := conformance.Compare(got, raw); err != nil {
				t.Error(err)
			}
		})
	}
}

// zarritaCases runs the zarrita.js oracle over a peer store.
func zarritaCases(t *testing.T, root, storeName string, extra ...string) []conformance.Case {
	t.Helper()
	oracle := filepath.Join(peers.RepoRoot(), "tests", "oracle")
	if _, err := os.Stat(filepath.Join(oracle, "node_modules", "zarrita")); err != nil {
		peers.Unavailable(t, "zarrita.js is not installed (cd tests/oracle && npm ci)")
	}
	out := filepath.Join(t.TempDir(), "cases.json")
	args := append([]string{filepath.Join(oracle, "dump_zarrita.mjs"), root, storeName, out}, extra...)
	if b, err := exec.Command("node", args...).CombinedOutput(); err != nil {
		t.Fatalf("dump_zarrita.mjs: %v\n%s", err, b)
	}
	cases, err := conformance.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestZarritaV3Fixtures reads zarrita.js's v3 fixtures (written by
// zarr-python 3: sharded, ragged, strings, transposed, consolidated) and
// compares every array with what zarrita.js reads.
func TestZarritaV3Fixtures(t *testing.T) {
	testdata := peers.TestData()
	root := filepath.Join(testdata, "zarrita", "v3")
	cases := zarritaCases(t, root, "data.zarr")
	if len(cases) < 40 {
		t.Fatalf("only %d arrays found", len(cases))
	}
	ctx := context.Background()
	byPath := map[string]conformance.Case{}
	for _, c := range cases {
		byPath[c.Path] = c
	}
	for _, c := range cases {
		t.Run(c.Path, func(t *testing.T) {
			if c.Error == "" {
				if err := conformance.Check(ctx, root, c); err != nil {
					t.Error(err)
				}
				return
			}
			// zarrita cannot read float16; zarr-python wrote the same values
			// as the float32 array beside it, which zarrita does read.
			if c.Path != "1d.contiguous.f2.le" {
				t.Fatalf("oracle could not read it (%s) and there is no other expectation", c.Error)
			}
			s, _ := zarr.NewDirectoryStore(filepath.Join(root, "data.zarr"))
			f2, err := zarr.OpenArray(ctx, s, c.Path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f2.Read(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := byPath["1d.contiguous.f4.le"]
			wb, _ := base64.StdEncoding.DecodeString(*want.Bytes)
			for i := 0; i < got.Len(); i++ {
				g := dtype.Float16Value(binary.LittleEndian.Uint16(got.Bytes()[2*i:]))
				w := float64(math.Float32frombits(binary.LittleEndian.Uint32(wb[4*i:])))
				if g != w {
					t.Errorf("element %d: %v, want %v", i, g, w)
				}
			}
		})
	}
}

// TestZarritaV3ZippedFixtures reads the same v3 hierarchy from zarr-python's
// zip files through the zip store and compares with zarrita's reading of
// the directory.
func TestZarritaV3ZippedFixtures(t *testing.T) {
	testdata := peers.TestData()
	root := filepath.Join(testdata, "zarrita", "v3")
	cases := zarritaCases(t, root, "data.zarr")
	ctx := context.Background()
	dir, _ := zarr.NewDirectoryStore(root)
	for _, zipName := range []string{"data.zipped_from_within.zarr.zip", "data.zipped_from_parent.zarr.zip", "data.uncompressed.zarr.zip"} {
		t.Run(zipName, func(t *testing.T) {
			zs, err := store.NewZip(ctx, dir, zipName)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, c := range cases {
				if c.Error != "" {
					continue
				}
				arr, err := zarr.OpenArray(ctx, zs, c.Path)
				if err != nil {
					t.Errorf("%s: %v", c.Path, err)
					continue
				}
				got, err := arr.Read(ctx, nil)
				if err == nil {
					err = conformance.Compare(got, c)
				}
				if err != nil {
					t.Errorf("%s: %v", c.Path, err)
				}
				checked++
			}
			if checked < 40 {
				t.Errorf("only %d arrays checked", checked)
			}
		})
	}
}

// TestReadChunkInnerChunks reads inner chunks of zarr-python's sharded
// arrays by inner-chunk coordinates (as zarrita.js's getChunk numbers
// them): the values are those zarrita's own tests state for these fixtures.
func TestReadChunkInnerChunks(t *testing.T) {
	testdata := peers.TestData()
	s, err := zarr.NewDirectoryStore(filepath.Join(testdata, "zarrita", "v3", "data.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		path  string
		idx   []int
		shape []int
		want  []int16
	}{
		{"1d.chunked.compressed.sharded.i2", []int{1}, []int{1}, []int16{2}},
		{"1d.chunked.compressed.sharded.i2", []int{3}, []int{1}, []int16{4}},
		{"2d.chunked.compressed.sharded.i2", []int{1, 1}, []int{1, 1}, []int16{6}},
		{"2d.chunked.compressed.sharded.i2", []int{3, 2}, []int{1, 1}, []int16{15}},
		{"3d.chunked.compressed.sharded.i2", []int{1, 1, 1}, []int{1, 1, 1}, []int16{21}},
	} {
		arr, err := zarr.OpenArray(ctx, s, c.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := arr.ReadChunk(ctx, c.idx)
		if err != nil {
			t.Fatalf("%s %v: %v", c.path, c.idx, err)
		}
		if !slices.Equal(got.Shape(), c.shape) {
			t.Errorf("%s %v: shape %v, want %v", c.path, c.idx, got.Shape(), c.shape)
		}
		b := got.Bytes()
		for i, w := range c.want {
			if g := int16(binary.LittleEndian.Uint16(b[2*i:])); g != w {
				t.Errorf("%s %v: element %d = %d, want %d", c.path, c.idx, i, g, w)
			}
		}
		// Past the inner grid is a SELECTION error, not the shard grid's.
		far := slices.Clone(c.idx)
		far[0] = 1 << 20
		if _, err := arr.ReadChunk(ctx, far); errs.CodeOf(err) != errs.Selection {
			t.Errorf("%s %v: %v, want a SELECTION error", c.path, far, err)
		}
	}
}
