package pcodec_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// fixtureCase is one array of tests/fixtures/pcodec/cases.json.
type fixtureCase struct {
	Path   string `json:"path"`
	Npy    string `json:"npy"`    // numcodecs' array holding the values
	Arange int    `json:"arange"` // or: float32 0, 1, …, Arange-1
}

const fixtureDir = "../../../tests/fixtures/pcodec"

func fixtureCases(t *testing.T) []fixtureCase {
	b, err := os.ReadFile(filepath.Join(fixtureDir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []fixtureCase
	if err := jsonx.UnmarshalStrict(b, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// expectedBytes is a case's values in C order, little-endian.
func (c fixtureCase) expectedBytes(t *testing.T) []byte {
	if c.Npy == "" {
		b := make([]byte, 4*c.Arange)
		for i := 0; i < c.Arange; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(i)))
		}
		return b
	}
	a := readNpy(t, filepath.Join("testdata/numcodecs", c.Npy))
	if !a.fortran {
		return a.data
	}
	// A Fortran-order 2-D array: transpose its memory into C order.
	rows, cols := a.shape[0], a.shape[1]
	size := len(a.data) / (rows * cols)
	out := make([]byte, len(a.data))
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			copy(out[(i*cols+j)*size:], a.data[(j*rows+i)*size:(j*rows+i+1)*size])
		}
	}
	return out
}

// TestZarrArrays reads numcodecs' streams as one-chunk v2 and v3 arrays and
// zarrs' pcodec arrays (v2, v3 written by zarrs, v3 written by zarr-python)
// through zarr.OpenArray.
func TestZarrArrays(t *testing.T) {
	ctx := context.Background()
	cases := fixtureCases(t)
	if len(cases) != 25 {
		t.Fatalf("%d cases, expected 25", len(cases))
	}
	for _, c := range cases {
		store, err := zarr.NewDirectoryStore(filepath.Join(fixtureDir, c.Path))
		if err != nil {
			t.Fatal(err)
		}
		arr, err := zarr.OpenArray(ctx, store, "")
		if err != nil {
			t.Errorf("%s: %v", c.Path, err)
			continue
		}
		sel, _ := zarr.ParseSelection("")
		got, err := arr.Read(ctx, sel)
		if err != nil {
			t.Errorf("%s: %v", c.Path, err)
			continue
		}
		if want := c.expectedBytes(t); string(got.Bytes()) != string(want) {
			t.Errorf("%s: values differ", c.Path)
		}
	}
}

// TestZarrWrite writes numcodecs' arrays through zarr.CreateArray, v2 with
// the compressor and v3 with the codec pco 1.0 used for numcodecs' codec.10
// (delta_spec no_op): the stored chunks must equal numcodecs' streams byte
// for byte, and read back.
func TestZarrWrite(t *testing.T) {
	ctx := context.Background()
	cfg := map[string]any{"id": "pcodec", "level": 8, "mode_spec": "auto", "delta_spec": "no_op",
		"paging_spec": "equal_pages_up_to", "delta_encoding_order": nil, "equal_pages_up_to": 262144}
	v3cfg := map[string]any{}
	for k, v := range cfg {
		if k != "id" {
			v3cfg[k] = v
		}
	}
	for m := 0; m < 10; m++ {
		a := readNpy(t, fmt.Sprintf("testdata/numcodecs/array.%02d.npy", m))
		if a.fortran {
			continue // numcodecs encoded Fortran memory; a C-order chunk differs
		}
		want, _ := os.ReadFile(fmt.Sprintf("testdata/numcodecs/codec.10/encoded.%02d.dat", m))
		for _, format := range []int{2, 3} {
			store := zarr.NewMemoryStore()
			opts := zarr.ArrayOptions{Shape: a.shape, Chunks: a.shape, DType: a.descr, ZarrFormat: format}
			key := strings.Repeat("0.", len(a.shape)-1) + "0"
			if format == 2 {
				opts.Compressor = cfg
			} else {
				opts.Codecs = []map[string]any{{"name": "numcodecs.pcodec", "configuration": v3cfg}}
				key = "c/" + strings.Repeat("0/", len(a.shape)-1) + "0"
			}
			arr, err := zarr.CreateArray(ctx, store, "", opts)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := zarr.NDArrayFromBytes(arr.DType(), a.shape, a.data)
			sel, _ := zarr.ParseSelection("")
			if err := arr.Write(ctx, sel, v); err != nil {
				t.Fatalf("array.%02d v%d: %v", m, format, err)
			}
			got, ok, err := store.Get(ctx, key)
			if err != nil || !ok {
				t.Fatalf("array.%02d v%d: chunk %s: %v", m, format, key, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("array.%02d v%d: stored chunk differs from numcodecs' stream", m, format)
			}
			back, err := arr.Read(ctx, sel)
			if err != nil || !bytes.Equal(back.Bytes(), a.data) {
				t.Errorf("array.%02d v%d: read back: %v", m, format, err)
			}
		}
	}
}
