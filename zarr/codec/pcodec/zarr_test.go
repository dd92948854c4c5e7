package pcodec_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
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
	if err := json.Unmarshal(b, &cases); err != nil {
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
