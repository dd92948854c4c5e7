package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
)

// The sample stores read back through the engine hold what the formulas
// say (the browser test relies on it), and generating twice gives the same
// bytes.
func TestSampleData(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	f32 := func(nd *zarr.NDArray, k int) float32 {
		return math.Float32frombits(binary.LittleEndian.Uint32(nd.Bytes()[4*k:]))
	}
	read := func(s zarr.Store, path, sel string) *zarr.NDArray {
		t.Helper()
		a, err := zarr.OpenArray(ctx, s, path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		q, err := zarr.ParseSelection(sel)
		if err != nil {
			t.Fatal(err)
		}
		nd, err := a.Read(ctx, q)
		if err != nil {
			t.Fatalf("%s[%s]: %v", path, sel, err)
		}
		return nd
	}

	v3, err := zarr.NewDirectoryStore(filepath.Join(dir, "sample.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	nd := read(v3, "climate/temperature", "7, 40:43, 100:103")
	for k := 0; k < 9; k++ {
		if got, want := f32(nd, k), Temperature(7, 40+k/3, 100+k%3); got != want {
			t.Errorf("v3 temperature[7, %d, %d] = %v, want %v", 40+k/3, 100+k%3, got, want)
		}
	}
	nd = read(v3, "microscopy/cells", "1000:1002, 1500:1502")
	for k := 0; k < 4; k++ {
		if got, want := binary.LittleEndian.Uint16(nd.Bytes()[2*k:]), Cells(1000+k/2, 1500+k%2); got != want {
			t.Errorf("cells = %d, want %d", got, want)
		}
	}
	ome, err := zarr.NewDirectoryStore(filepath.Join(dir, "sample-ome.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < omeLevels; k++ {
		nd = read(ome, strconv.Itoa(k), ":, 300:302, 77:79")
		lab := read(ome, "labels/cells/"+strconv.Itoa(k), "300:302, 77:79")
		for e := 0; e < 4; e++ {
			y, x := 300+e/2, 77+e%2
			if got, want := binary.LittleEndian.Uint16(nd.Bytes()[2*e:]), Cells(y<<k, x<<k); got != want {
				t.Errorf("sample-ome.zarr level %d [0, %d, %d] = %d, want %d", k, y, x, got, want)
			}
			if got, want := binary.LittleEndian.Uint16(nd.Bytes()[2*(4+e):]), Nuclei(y<<k, x<<k); got != want {
				t.Errorf("sample-ome.zarr level %d [1, %d, %d] = %d, want %d", k, y, x, got, want)
			}
			if got, want := binary.LittleEndian.Uint32(lab.Bytes()[4*e:]), CellLabel(y<<k, x<<k); got != want {
				t.Errorf("labels/cells level %d [%d, %d] = %d, want %d", k, y, x, got, want)
			}
		}
	}
	// Every cell has its label somewhere (at its centre), and only there.
	for ci := 0; ci < cellsSize/128; ci += 5 {
		for cj := 0; cj < cellsSize/128; cj += 3 {
			cy, cx, _, _ := cell(ci, cj)
			if got, want := CellLabel(int(cy), int(cx)), uint32(ci*16+cj+1); got != want {
				t.Errorf("label at the centre of cell (%d, %d) = %d, want %d", ci, cj, got, want)
			}
		}
	}
	plate, err := zarr.NewDirectoryStore(filepath.Join(dir, "sample-plate.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	nd = read(plate, "B/3/0/0", "1, 20, 40")
	if got, want := binary.LittleEndian.Uint16(nd.Bytes()), PlateValue(1, 2, 0, 1, 20, 40); got != want {
		t.Errorf("plate B/3 = %d, want %d", got, want)
	}
	g, err := zarr.OpenGroup(ctx, ome, "")
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := g.Attrs()["multiscales"].([]any)
	if len(ms) != 1 || len(ms[0].(map[string]any)["datasets"].([]any)) != omeLevels {
		t.Errorf("multiscales attribute: %v", g.Attrs()["multiscales"])
	}
	// The movie: whole frames, as written, against the per-pixel formula
	// (the writer sums over bounding boxes), and the v2 "/" chunk keys.
	movie, err := zarr.NewDirectoryStore(filepath.Join(dir, "sample-movie.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tz := range [][2]int{{0, 4}, {13, 9}} {
		nd = read(movie, "0", fmt.Sprintf("%d, %d", tz[0], tz[1]))
		bad := 0
		for y := 0; y < movieSize; y++ {
			for x := 0; x < movieSize; x++ {
				if got, want := binary.LittleEndian.Uint16(nd.Bytes()[2*(y*movieSize+x):]), Movie(tz[0], tz[1], y, x); got != want && bad < 5 {
					bad++
					t.Errorf("movie[%d, %d, %d, %d] = %d, want %d", tz[0], tz[1], y, x, got, want)
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sample-movie.zarr", "0", "19", "9", "3", "3")); err != nil {
		t.Errorf("movie chunk keys: %v", err)
	}
	nd = read(v3, "climate/land", "")
	if got, want := nd.Bytes()[45*nLon+80] == 1, Land(45, 80); got != want {
		t.Errorf("land[45, 80] = %v", got)
	}
	nd = read(v3, "signals/saddle", "2, 0, 0")
	if got := int16(binary.LittleEndian.Uint16(nd.Bytes())); got != Counts(2, 0, 0) {
		t.Errorf("saddle[2, 0, 0] = %d", got)
	}

	v2, err := zarr.NewDirectoryStore(filepath.Join(dir, "sample-v2.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	if g, err := zarr.OpenGroup(ctx, v2, ""); err != nil {
		t.Error(err)
	} else if c, err := g.Consolidated(ctx); err != nil || !c {
		t.Errorf("v2 root: consolidated=%v, %v", c, err)
	}
	nd = read(v2, "temperature", "11, 179, 359")
	if got, want := f32(nd, 0), Temperature(11, 179, 359); got != want {
		t.Errorf("v2 temperature = %v, want %v", got, want)
	}

	zipped, err := zarr.NewZipStore(ctx, v2Parent(t, dir), "sample-v2.zarr.zip")
	if err != nil {
		t.Fatal(err)
	}
	nd = read(zipped, "temperature", "3, 10, 20")
	if got, want := f32(nd, 0), Temperature(3, 10, 20); got != want {
		t.Errorf("zipped temperature = %v, want %v", got, want)
	}

	v1, err := zarr.NewDirectoryStore(filepath.Join(dir, "sample-v1.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	nd = read(v1, "", "91, 359")
	if got, want := f32(nd, 0), Temperature(0, 91, 359); got != want {
		t.Errorf("v1 = %v, want %v", got, want)
	}

	// The reference sets: the JSON one over its binary file, and the
	// Parquet one copied from tests/refs.
	refDir, err := zarr.NewDirectoryStore(filepath.Join(dir, "refs"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "refs", "sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := refs.FromJSON(ctx, text, refs.Options{BaseURL: "file:///refs/sample.json", Fetcher: refs.StoreFetcher{Prefix: "file:///refs/", Store: refDir}})
	if err != nil {
		t.Fatal(err)
	}
	nd = read(rs, "temperature", "5, 100:102, 7")
	for k := 0; k < 2; k++ {
		if got, want := f32(nd, k), Temperature(5, 100+k, 7); got != want {
			t.Errorf("refs temperature[5, %d, 7] = %v, want %v", 100+k, got, want)
		}
	}
	nd = read(rs, "time", "")
	// (December's middle in the noleap calendar: days 334 to 365 since 2000-01-01)
	if got := binary.LittleEndian.Uint32(nd.Bytes()[4*11:]); got != (334+365)/2 {
		t.Errorf("refs time[11] = %d (an inline base64 chunk), want %d", got, (334+365)/2)
	}
	pq, err := refs.FromParquet(ctx, "file:///refs/pq/refs.parq/", refs.Options{Fetcher: refs.StoreFetcher{Prefix: "file:///refs/", Store: refDir}})
	if err != nil {
		t.Fatal(err)
	}
	if nd = read(pq, "a/big", ""); len(nd.Shape()) != 2 || nd.Shape()[0] != 50 {
		t.Errorf("Parquet a/big shape %v", nd.Shape())
	}

	// Deterministic: a second run writes the same zip byte for byte.
	dir2 := t.TempDir()
	if err := run(dir2); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "sample-v2.zarr.zip"))
	b, _ := os.ReadFile(filepath.Join(dir2, "sample-v2.zarr.zip"))
	if !bytes.Equal(a, b) {
		t.Error("two runs wrote different zips")
	}
	a, _ = os.ReadFile(filepath.Join(dir, "refs", "sample.json"))
	b, _ = os.ReadFile(filepath.Join(dir2, "refs", "sample.json"))
	if !bytes.Equal(a, b) {
		t.Error("two runs wrote different reference sets")
	}
}

func v2Parent(t *testing.T, dir string) zarr.Store {
	s, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
