package zarr_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// Writing into arrays with variable chunk grids (the rectangular v3 grid
// and a v2 .zarray whose "chunks" holds lists): no other implementation here
// reads them, so the check is on the stored bytes. The fixtures' chunks are
// raw little-endian, and the test itself computes, from the grid's edges,
// what every chunk file must hold after the write.

func copyFixture(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// edgesOf turns chunk sizes into boundaries: [1 2 2 5] → [0 1 3 5 10].
func edgesOf(sizes []int) []int {
	e := []int{0}
	for _, s := range sizes {
		e = append(e, e[len(e)-1]+s)
	}
	return e
}

func TestWriteVariableChunkGrids(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join("..", "tests", "fixtures", "v3", "data")
	cases := []struct {
		name, dir, path, sel string
		rows, cols           []int // chunk sizes along each dimension (the edge chunk stored whole)
		r0, r1, c0, c1       int   // the written region
		float                bool  // float32, else int32 (both 4 bytes, little-endian)
		key                  func(i, j int) string
	}{
		{"v3 rectangular", "v3.zarr", "grids/rectangular", "3:40, 4:22",
			[]int{5, 5, 5, 15, 15, 20, 35}, []int{10, 10, 10}, 3, 40, 4, 22, true,
			func(i, j int) string { return filepath.Join("c", strconv.Itoa(i), strconv.Itoa(j)) }},
		{"v2 list chunks", "v2_varchunks.zarr", "a", "2:7, 3:8",
			[]int{1, 2, 2, 5}, []int{5, 5}, 2, 7, 3, 8, false,
			func(i, j int) string { return strconv.Itoa(i) + "." + strconv.Itoa(j) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixture(t, filepath.Join(root, c.dir))
			arrDir := filepath.Join(dir, filepath.FromSlash(c.path))
			// The chunk files before the write.
			before := map[string][]byte{}
			for i := range c.rows {
				for j := range c.cols {
					k := c.key(i, j)
					if b, err := os.ReadFile(filepath.Join(arrDir, k)); err == nil {
						before[k] = b
					}
				}
			}
			s, err := zarr.NewDirectoryStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			arr, err := zarr.OpenArray(ctx, s, c.path)
			if err != nil {
				t.Fatal(err)
			}
			h, w := c.r1-c.r0, c.c1-c.c0
			value := func(r, col int) uint32 { // element bits at array position (r, col)
				if c.float {
					return math.Float32bits(float32(r*1000 + col))
				}
				return uint32(r*1000 + col)
			}
			data := make([]byte, h*w*4)
			for r := 0; r < h; r++ {
				for col := 0; col < w; col++ {
					binary.LittleEndian.PutUint32(data[(r*w+col)*4:], value(c.r0+r, c.c0+col))
				}
			}
			nda, err := zarr.NDArrayFromBytes(arr.DType(), []int{h, w}, data)
			if err != nil {
				t.Fatal(err)
			}
			sel, err := zarr.ParseSelection(c.sel)
			if err != nil {
				t.Fatal(err)
			}
			if err := arr.Write(ctx, sel, nda); err != nil {
				t.Fatal(err)
			}
			re, ce := edgesOf(c.rows), edgesOf(c.cols)
			touched := 0
			for i := range c.rows {
				for j := range c.cols {
					k := c.key(i, j)
					got, err := os.ReadFile(filepath.Join(arrDir, k))
					hits := re[i] < c.r1 && re[i+1] > c.r0 && ce[j] < c.c1 && ce[j+1] > c.c0
					if !hits {
						if string(got) != string(before[k]) {
							t.Errorf("chunk %s is outside the region but changed", k)
						}
						continue
					}
					touched++
					if err != nil {
						t.Fatalf("chunk %s: %v", k, err)
					}
					cw := c.cols[j]
					want := append([]byte(nil), before[k]...)
					if before[k] == nil { // a missing chunk was the fill value: NaN (the v3 "NaN", 0x7fc00000) or 0
						want = make([]byte, c.rows[i]*cw*4)
						for off := 0; c.float && off < len(want); off += 4 {
							binary.LittleEndian.PutUint32(want[off:], 0x7fc00000)
						}
					}
					for r := max(re[i], c.r0); r < min(re[i+1], c.r1); r++ {
						for col := max(ce[j], c.c0); col < min(ce[j+1], c.c1); col++ {
							off := ((r-re[i])*cw + (col - ce[j])) * 4
							binary.LittleEndian.PutUint32(want[off:], value(r, col))
						}
					}
					if string(got) != string(want) {
						t.Errorf("chunk %s holds different bytes than the write implies", k)
					}
				}
			}
			if touched < 4 {
				t.Fatalf("the region touched only %d chunks", touched)
			}
		})
	}
}
