// Command gen writes the demo viewer's sample data with the zarr-wasm
// engine: small, deterministic hierarchies that exercise what the viewer
// shows (v3 with blosc, a sharded zstd image, complex, bool and integer
// arrays, attributes; the same climate data as v2; a zipped store; one
// month of it as a v1 array; the v2 store as a kerchunk-style reference
// set over one binary file, a Parquet reference set from tests/refs, and
// the Icechunk repository committed in gen/icechunk, which the official
// Icechunk package wrote).
//
//	go run ./web/demo/gen -out web/demo/data
//
// The values are closed-form functions of the indices (see the functions
// below); tests/demo/demo.test.mjs computes the same values to check the
// colours the viewer draws, so change both together.
package main

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr"
)

func main() {
	out := flag.String("out", "web/demo/data", "directory to write the sample stores into (replaced)")
	flag.Parse()
	if err := run(*out); err != nil {
		log.Fatal(err)
	}
}

func run(out string) error {
	ctx := context.Background()
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	v3 := filepath.Join(out, "sample.zarr")
	if err := writeV3(ctx, v3); err != nil {
		return fmt.Errorf("sample.zarr: %w", err)
	}
	v2 := filepath.Join(out, "sample-v2.zarr")
	if err := writeV2(ctx, v2); err != nil {
		return fmt.Errorf("sample-v2.zarr: %w", err)
	}
	if err := zipDir(v2, filepath.Join(out, "sample-v2.zarr.zip")); err != nil {
		return fmt.Errorf("sample-v2.zarr.zip: %w", err)
	}
	if err := writeV1(filepath.Join(out, "sample-v1.zarr")); err != nil {
		return fmt.Errorf("sample-v1.zarr: %w", err)
	}
	if err := writeOME(ctx, filepath.Join(out, "sample-ome.zarr")); err != nil {
		return fmt.Errorf("sample-ome.zarr: %w", err)
	}
	if err := writeMovie(ctx, filepath.Join(out, "sample-movie.zarr")); err != nil {
		return fmt.Errorf("sample-movie.zarr: %w", err)
	}
	if err := writePlate(ctx, filepath.Join(out, "sample-plate.zarr")); err != nil {
		return fmt.Errorf("sample-plate.zarr: %w", err)
	}
	if err := writeRefs(v2, filepath.Join(out, "refs")); err != nil {
		return fmt.Errorf("refs: %w", err)
	}
	if err := copyParquetRefs(filepath.Join(out, "refs", "pq")); err != nil {
		return fmt.Errorf("refs/pq: %w", err)
	}
	if err := copyIcechunkSample(filepath.Join(out, "history.icechunk")); err != nil {
		return fmt.Errorf("history.icechunk: %w", err)
	}
	return report(out)
}

// ---- the values --------------------------------------------------------

const (
	nTime, nLat, nLon = 12, 180, 360
	cellsSize         = 2048
)

// Lat is the latitude of row i (north at the top), Lon the longitude of
// column j, both at cell centres of a 1° grid.
func Lat(i int) float64 { return 89.5 - float64(i) }
func Lon(j int) float64 { return -179.5 + float64(j) }

// Temperature in kelvin at month t, row i, column j: a pole-to-equator
// gradient, a season that flips between hemispheres, and travelling waves.
func Temperature(t, i, j int) float32 {
	lat := Lat(i) * math.Pi / 180
	lon := Lon(j) * math.Pi / 180
	s := math.Sin(lat)
	season := math.Cos(2 * math.Pi * float64(t) / 12)
	v := 300 - 50*s*s - 15*s*season + 4*math.Sin(3*lon+0.5*float64(t))*math.Cos(2*lat)
	// Rounded to 1/64 K, so the low mantissa bits are zero and blosc's
	// shuffle + lz4 compresses it well.
	return float32(math.Round(v*64) / 64)
}

// Land is a made-up land mask: a few ellipses.
func Land(i, j int) bool {
	lat, lon := Lat(i), Lon(j)
	in := func(clat, clon, rlat, rlon float64) bool {
		a, b := (lat-clat)/rlat, (lon-clon)/rlon
		return a*a+b*b <= 1
	}
	return in(45, -100, 22, 35) || in(-15, -60, 25, 18) || in(50, 60, 20, 70) ||
		in(5, 20, 30, 22) || in(-25, 135, 12, 18) || lat < -70
}

// hash mixes two grid indices into 32 bits (the test repeats it with Math.imul).
func hash(i, j int) uint32 {
	h := uint32(i)*0x9E3779B1 ^ uint32(j)*0x85EBCA77
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	h *= 0x297A2D39
	h ^= h >> 15
	return h
}

// cell is the cell of grid square (ci, cj) of the cells image: centre,
// radius and brightness.
func cell(ci, cj int) (cy, cx, r, b float64) {
	const g = 128
	h := hash(ci, cj)
	cy = float64(ci*g+g/2) + float64(h&0xff)/255*60 - 30
	cx = float64(cj*g+g/2) + float64((h>>8)&0xff)/255*60 - 30
	r = 10 + float64((h>>16)&0xff)/255*14
	b = 1500 + float64(h>>24)*40
	return
}

// eachCell calls f for the cells of the grid squares around (y, x) that
// can reach it, in row-major order (so sums are the same everywhere).
func eachCell(y, x int, f func(ci, cj int)) {
	const g = 128
	gy, gx := y/g, x/g
	for ci := gy - 1; ci <= gy+1; ci++ {
		for cj := gx - 1; cj <= gx+1; cj++ {
			if ci >= 0 && cj >= 0 && ci < cellsSize/g && cj < cellsSize/g {
				f(ci, cj)
			}
		}
	}
}

// quantize16 rounds v to a multiple of 16 within uint16.
func quantize16(v float64) uint16 {
	v = 16 * math.Round(v/16)
	if v > 65535 {
		v = 65535
	}
	return uint16(v)
}

// Cells is a synthetic fluorescence image (uint16): unevenly lit background
// and one cell per 128×128 grid square (jittered position, size and
// brightness) with a rim, in multiples of 16 like a 12-bit camera's data
// stored MSB-aligned. Compactly supported shapes keep the zstd chunks small.
func Cells(y, x int) uint16 {
	// Uneven illumination: brighter in the middle.
	ry, rx := float64(y)/cellsSize-0.5, float64(x)/cellsSize-0.5
	v := 180 + 400*(1-2*(ry*ry+rx*rx))
	eachCell(y, x, func(ci, cj int) {
		cy, cx, r, b := cell(ci, cj)
		dy, dx := float64(y)-cy, float64(x)-cx
		d := math.Sqrt(dy*dy + dx*dx)
		v += b*bump(d/r) + 0.6*b*bump((d-1.3*r)/3)
	})
	return quantize16(v)
}

// Nuclei is the second channel of sample-ome.zarr: a small bright core at
// each cell's centre on a dim, flat background.
func Nuclei(y, x int) uint16 {
	v := 96.0
	eachCell(y, x, func(ci, cj int) {
		cy, cx, r, _ := cell(ci, cj)
		dy, dx := float64(y)-cy, float64(x)-cx
		v += float64(800+(hash(ci, cj)>>20&0xff)*12) * bump(math.Sqrt(dy*dy+dx*dx)/(0.45*r))
	})
	return quantize16(v)
}

// CellLabel is the label image of sample-ome.zarr: 1 + the cell's number
// (row-major in the grid) inside its disk (distance below the radius),
// 0 outside every cell. Disks never overlap.
func CellLabel(y, x int) uint32 {
	var out uint32
	eachCell(y, x, func(ci, cj int) {
		cy, cx, r, _ := cell(ci, cj)
		dy, dx := float64(y)-cy, float64(x)-cx
		if out == 0 && math.Sqrt(dy*dy+dx*dx) < r {
			out = uint32(ci*(cellsSize/128)+cj) + 1
		}
	})
	return out
}

// LabelRGBA is the colour image-label lists for odd label values (even
// ones are left to viewers' own colours).
func LabelRGBA(v uint32) [4]int {
	h := hash(int(v), 7)
	return [4]int{int(h&0xff) | 0x40, int(h>>8&0xff) | 0x40, int(h>>16&0xff) | 0x40, 255}
}

// bump is a smooth bump with compact support: (1-u²)² for |u| < 1, else 0.
func bump(u float64) float64 {
	if u <= -1 || u >= 1 {
		return 0
	}
	w := 1 - u*u
	return w * w
}

// Wave is a complex field (complex64): two point sources interfering.
func Wave(i, j int) complex64 {
	var z complex128
	for _, s := range [][2]float64{{80, 90}, {170, 160}} {
		dy, dx := float64(i)-s[0], float64(j)-s[1]
		d := math.Sqrt(dy*dy+dx*dx) + 1
		z += complex(math.Cos(0.35*d), math.Sin(0.35*d)) * complex(20/math.Sqrt(d), 0)
	}
	return complex64(z)
}

// Counts is a signed integer field (int16) for diverging colormaps: a
// saddle, per band b.
func Counts(b, i, j int) int16 {
	x, y := float64(j-64)/64, float64(i-64)/64
	return int16(math.Round(1000 * (x*x - y*y) * float64(b+1) / 3))
}

// The movie: a time-lapse z-stack (t, z, y, x) of cells drifting on a dark
// background, 20 × 10 × 1024 × 1024 uint16 — the size of a typical
// confocal time series, for the viewer's slider and playback benchmark.
// Each cell sits in one 128×128 grid square (not every square has one),
// circles around its place over time and is in focus at its own depth:
// out of focus it is dimmer and wider. Values are multiples of 64 on a
// flat background so the 3,200 chunks stay small on disk.
const (
	movieT, movieZ, movieSize = 20, 10, 1024
	movieGrid                 = 128
	movieBackground           = 128
)

// movieCell is the cell of grid square (ci, cj) at time t and depth z, or
// ok=false when the square is empty.
func movieCell(ci, cj, t, z int) (cy, cx, r, b float64, ok bool) {
	h := hash(ci+1000, cj+2000)
	if h&3 == 0 {
		return 0, 0, 0, 0, false
	}
	phase := float64((h>>2)&0xff) / 256 * 2 * math.Pi
	angle := 2*math.Pi*float64(t)/movieT + phase
	cy = float64(ci*movieGrid+movieGrid/2) + float64((h>>10)&0xff)/255*40 - 20 + 10*math.Sin(angle)
	cx = float64(cj*movieGrid+movieGrid/2) + float64((h>>18)&0xff)/255*40 - 20 + 10*math.Cos(angle)
	focus := 1.5 + float64((h>>26)&0x3f)/63*6
	dz := (float64(z) - focus) / 2.5
	r = (8 + float64((h>>4)&0x3f)/63*8) * (1 + 0.1*math.Abs(float64(z)-focus))
	b = (3000 + float64((h>>12)&0xff)*30) / (1 + dz*dz)
	return cy, cx, r, b, true
}

// Movie is the movie's value at time t, depth z, row y, column x. A cell
// never reaches past its grid square's neighbours (centre within 30 px of
// the square's centre, radius under 28), so 3×3 squares are enough.
func Movie(t, z, y, x int) uint16 {
	v := float64(movieBackground)
	gy, gx := y/movieGrid, x/movieGrid
	for ci := gy - 1; ci <= gy+1; ci++ {
		for cj := gx - 1; cj <= gx+1; cj++ {
			if ci < 0 || cj < 0 || ci >= movieSize/movieGrid || cj >= movieSize/movieGrid {
				continue
			}
			cy, cx, r, b, ok := movieCell(ci, cj, t, z)
			if !ok {
				continue
			}
			dy, dx := float64(y)-cy, float64(x)-cx
			v += b * bump(math.Sqrt(dy*dy+dx*dx)/r)
		}
	}
	return uint16(64 * math.Round(v/64))
}

// movieFrame is one (t, z) frame, little-endian uint16, computed as Movie
// does (the same sums in the same order: cells in row-major order) but
// only over each cell's bounding box.
func movieFrame(t, z int) []byte {
	const n = movieSize
	v := make([]float64, n*n)
	for i := range v {
		v[i] = movieBackground
	}
	for ci := 0; ci < n/movieGrid; ci++ {
		for cj := 0; cj < n/movieGrid; cj++ {
			cy, cx, r, b, ok := movieCell(ci, cj, t, z)
			if !ok {
				continue
			}
			y0, y1 := max(0, int(math.Floor(cy-r)-1)), min(n-1, int(math.Ceil(cy+r)+1))
			x0, x1 := max(0, int(math.Floor(cx-r)-1)), min(n-1, int(math.Ceil(cx+r)+1))
			for y := y0; y <= y1; y++ {
				for x := x0; x <= x1; x++ {
					dy, dx := float64(y)-cy, float64(x)-cx
					if u := math.Sqrt(dy*dy+dx*dx) / r; u < 1 {
						v[y*n+x] += b * bump(u)
					}
				}
			}
		}
	}
	out := make([]byte, 2*n*n)
	for i, x := range v {
		binary.LittleEndian.PutUint16(out[2*i:], uint16(64*math.Round(x/64)))
	}
	return out
}

// writeMovie writes the movie as an OME-Zarr 0.4 image (Zarr v2, "/"
// chunk keys as ome-zarr-py writes them): chunks of one 256×256 tile of one
// frame, zstd; omero metadata with a contrast window and defaultZ.
func writeMovie(ctx context.Context, dir string) error {
	s, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		return err
	}
	if _, err := zarr.CreateGroup(ctx, s, "", zarr.GroupOptions{ZarrFormat: 2, Attributes: map[string]any{
		"multiscales": []any{map[string]any{
			"version": "0.4",
			"name":    "drifting cells",
			"axes": []any{
				map[string]any{"name": "t", "type": "time", "unit": "second"},
				map[string]any{"name": "z", "type": "space", "unit": "micrometer"},
				map[string]any{"name": "y", "type": "space", "unit": "micrometer"},
				map[string]any{"name": "x", "type": "space", "unit": "micrometer"},
			},
			"datasets": []any{map[string]any{
				"path":                      "0",
				"coordinateTransformations": []any{map[string]any{"type": "scale", "scale": []any{30.0, 2.0, 0.5, 0.5}}},
			}},
		}},
		"omero": map[string]any{
			"name": "drifting cells",
			"channels": []any{map[string]any{
				"label": "GFP", "color": "00FF00", "active": true,
				"window": map[string]any{"start": 128, "end": 6000, "min": 0, "max": 65535},
			}},
			"rdefs": map[string]any{"defaultT": 0, "defaultZ": 4, "model": "color"},
		},
	}}); err != nil {
		return err
	}
	a, err := zarr.CreateArray(ctx, s, "0", zarr.ArrayOptions{
		ZarrFormat: 2, Shape: []int{movieT, movieZ, movieSize, movieSize}, Chunks: []int{1, 1, 256, 256}, DType: "<u2",
		DimensionSeparator: "/", Compressor: map[string]any{"id": "zstd", "level": 3},
	})
	if err != nil {
		return err
	}
	for t := 0; t < movieT; t++ {
		for z := 0; z < movieZ; z++ {
			nd, err := zarr.NDArrayFromBytes(a.DType(), []int{1, 1, movieSize, movieSize}, movieFrame(t, z))
			if err != nil {
				return err
			}
			sel, err := zarr.ParseSelection(fmt.Sprintf("%d:%d, %d:%d", t, t+1, z, z+1))
			if err != nil {
				return err
			}
			if err := a.Write(ctx, sel, nd); err != nil {
				return err
			}
		}
	}
	return nil
}

// ---- writing -----------------------------------------------------------

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// level is an image at pyramid level k: every 2^k-th pixel of level 0 in
// both directions (NGFF's "nearest" downsampling), as little-endian
// integers of size bytes (2 or 4).
func level(k, size int, f func(y, x int) uint32) []byte {
	n := cellsSize >> k
	out := make([]byte, size*n*n)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			v := f(y<<k, x<<k)
			if size == 2 {
				binary.LittleEndian.PutUint16(out[2*(y*n+x):], uint16(v))
			} else {
				binary.LittleEndian.PutUint32(out[4*(y*n+x):], v)
			}
		}
	}
	return out
}

func cellsLevel(k int) []byte {
	return level(k, 2, func(y, x int) uint32 { return uint32(Cells(y, x)) })
}

// omeLevels is how many resolution levels sample-ome.zarr has.
const omeLevels = 3

// writeOME writes the cells image as an OME-Zarr 0.4 multiscale image (Zarr
// v2, as most OME-Zarr data is today): two channels (c, y, x: the cells
// and their nuclei) in levels 0, 1, 2, each half the size of the one
// before, omero rendering settings (green cells with a contrast window,
// magenta nuclei without one), and a label image of the cells
// (labels/cells, with image-label colours for the odd labels).
func writeOME(ctx context.Context, dir string) error {
	s, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		return err
	}
	datasets := func(axes int) []any {
		out := []any{}
		for k := 0; k < omeLevels; k++ {
			px := 0.325 * float64(int(1)<<k)
			scale := []any{px, px}
			if axes == 3 {
				scale = []any{1.0, px, px}
			}
			out = append(out, map[string]any{
				"path":                      strconv.Itoa(k),
				"coordinateTransformations": []any{map[string]any{"type": "scale", "scale": scale}},
			})
		}
		return out
	}
	yx := []any{
		map[string]any{"name": "y", "type": "space", "unit": "micrometer"},
		map[string]any{"name": "x", "type": "space", "unit": "micrometer"},
	}
	if _, err := zarr.CreateGroup(ctx, s, "", zarr.GroupOptions{ZarrFormat: 2, Attributes: map[string]any{
		"multiscales": []any{map[string]any{
			"version":  "0.4",
			"name":     "cells",
			"axes":     append([]any{map[string]any{"name": "c", "type": "channel"}}, yx...),
			"datasets": datasets(3),
			"type":     "nearest",
		}},
		"omero": map[string]any{
			"name": "cells",
			"channels": []any{
				map[string]any{"label": "cells", "color": "00FF00", "active": true, "window": map[string]any{"start": 300, "end": 6000, "min": 0, "max": 65535}},
				map[string]any{"label": "nuclei", "color": "FF00FF", "active": true},
			},
			"rdefs": map[string]any{"model": "color"},
		},
	}}); err != nil {
		return err
	}
	for k := 0; k < omeLevels; k++ {
		n := cellsSize >> k
		if err := writeArray(ctx, s, strconv.Itoa(k), zarr.ArrayOptions{
			ZarrFormat: 2, Shape: []int{2, n, n}, Chunks: []int{1, 256, 256}, DType: "<u2",
			Compressor: map[string]any{"id": "zstd", "level": 3},
		}, append(cellsLevel(k), level(k, 2, func(y, x int) uint32 { return uint32(Nuclei(y, x)) })...)); err != nil {
			return err
		}
	}
	if _, err := zarr.CreateGroup(ctx, s, "labels", zarr.GroupOptions{ZarrFormat: 2, Attributes: map[string]any{"labels": []any{"cells"}}}); err != nil {
		return err
	}
	colors := []any{}
	for v := uint32(1); v <= (cellsSize/128)*(cellsSize/128); v += 2 {
		c := LabelRGBA(v)
		colors = append(colors, map[string]any{"label-value": v, "rgba": []any{c[0], c[1], c[2], c[3]}})
	}
	if _, err := zarr.CreateGroup(ctx, s, "labels/cells", zarr.GroupOptions{ZarrFormat: 2, Attributes: map[string]any{
		"multiscales": []any{map[string]any{"version": "0.4", "name": "cells", "axes": yx, "datasets": datasets(2)}},
		"image-label": map[string]any{"version": "0.4", "colors": colors, "source": map[string]any{"image": "../../"}},
	}}); err != nil {
		return err
	}
	for k := 0; k < omeLevels; k++ {
		n := cellsSize >> k
		if err := writeArray(ctx, s, "labels/cells/"+strconv.Itoa(k), zarr.ArrayOptions{
			ZarrFormat: 2, Shape: []int{n, n}, Chunks: []int{256, 256}, DType: "<u4",
			Compressor: map[string]any{"id": "zstd", "level": 3},
		}, level(k, 4, CellLabel)); err != nil {
			return err
		}
	}
	return nil
}

// The plate: an OME-Zarr 0.4 high-content screening plate of 2 rows (A, B)
// and 3 columns (1–3), each well one field of view "0" (A/1 has a second,
// "1"): a 2-channel 128×128 uint16 image whose values tell the well,
// field and channel apart (PlateValue). Not consolidated: the viewer lists
// the wells from the plate's and wells' attributes.
const plateSize = 128

var plateRows, plateCols = []string{"A", "B"}, []string{"1", "2", "3"}

// PlateValue is the plate's value in well (row, col), field f, channel c,
// at (y, x): a checkerboard of 16-pixel squares whose levels encode the well.
func PlateValue(row, col, f, c, y, x int) uint16 {
	well := row*len(plateCols) + col
	base := 1000*(c+1) + 100*well + 50*f
	return uint16(base + 40*((y/16+x/16)%2))
}

func writePlate(ctx context.Context, dir string) error {
	s, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		return err
	}
	names := func(l []string) []any {
		out := []any{}
		for _, n := range l {
			out = append(out, map[string]any{"name": n})
		}
		return out
	}
	wells := []any{}
	for r, rn := range plateRows {
		for c, cn := range plateCols {
			wells = append(wells, map[string]any{"path": rn + "/" + cn, "rowIndex": r, "columnIndex": c})
		}
	}
	if _, err := zarr.CreateGroup(ctx, s, "", zarr.GroupOptions{ZarrFormat: 2, Attributes: map[string]any{
		"plate": map[string]any{
			"version": "0.4", "name": "sample plate", "rows": names(plateRows), "columns": names(plateCols),
			"wells": wells, "field_count": 2, "acquisitions": []any{map[string]any{"id": 0, "name": "only"}},
		},
	}}); err != nil {
		return err
	}
	for r, rn := range plateRows {
		for c, cn := range plateCols {
			fields := 1
			if r == 0 && c == 0 {
				fields = 2
			}
			images := []any{}
			for f := 0; f < fields; f++ {
				images = append(images, map[string]any{"path": strconv.Itoa(f), "acquisition": 0})
			}
			well := rn + "/" + cn
			if _, err := zarr.CreateGroup(ctx, s, well, zarr.GroupOptions{ZarrFormat: 2, Attributes: map[string]any{
				"well": map[string]any{"version": "0.4", "images": images},
			}}); err != nil {
				return err
			}
			for f := 0; f < fields; f++ {
				img := fmt.Sprintf("%s/%d", well, f)
				if _, err := zarr.CreateGroup(ctx, s, img, zarr.GroupOptions{ZarrFormat: 2, Attributes: map[string]any{
					"multiscales": []any{map[string]any{
						"version": "0.4", "name": fmt.Sprintf("well %s%s field %d", rn, cn, f),
						"axes": []any{
							map[string]any{"name": "c", "type": "channel"},
							map[string]any{"name": "y", "type": "space", "unit": "micrometer"},
							map[string]any{"name": "x", "type": "space", "unit": "micrometer"},
						},
						"datasets": []any{map[string]any{"path": "0", "coordinateTransformations": []any{map[string]any{"type": "scale", "scale": []any{1.0, 0.65, 0.65}}}}},
					}},
				}}); err != nil {
					return err
				}
				data := make([]byte, 2*2*plateSize*plateSize)
				for ch := 0; ch < 2; ch++ {
					for y := 0; y < plateSize; y++ {
						for x := 0; x < plateSize; x++ {
							binary.LittleEndian.PutUint16(data[2*((ch*plateSize+y)*plateSize+x):], PlateValue(r, c, f, ch, y, x))
						}
					}
				}
				if err := writeArray(ctx, s, img+"/0", zarr.ArrayOptions{
					ZarrFormat: 2, Shape: []int{2, plateSize, plateSize}, Chunks: []int{1, plateSize, plateSize}, DType: "<u2",
					Compressor: map[string]any{"id": "zlib", "level": 6},
				}, data); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func writeArray(ctx context.Context, s zarr.Store, path string, opt zarr.ArrayOptions, data []byte) error {
	a, err := zarr.CreateArray(ctx, s, path, opt)
	if err != nil {
		return err
	}
	nd, err := zarr.NDArrayFromBytes(a.DType(), opt.Shape, data)
	if err != nil {
		return err
	}
	sel, _ := zarr.ParseSelection("")
	return a.Write(ctx, sel, nd)
}

func temperatureBytes() []byte {
	v := make([]float32, 0, nTime*nLat*nLon)
	for t := 0; t < nTime; t++ {
		for i := 0; i < nLat; i++ {
			for j := 0; j < nLon; j++ {
				v = append(v, Temperature(t, i, j))
			}
		}
	}
	return f32Bytes(v)
}

func coords() (lat, lon []byte) {
	la := make([]float32, nLat)
	for i := range la {
		la[i] = float32(Lat(i))
	}
	lo := make([]float32, nLon)
	for j := range lo {
		lo[j] = float32(Lon(j))
	}
	return f32Bytes(la), f32Bytes(lo)
}

func landBytes() []byte {
	b := make([]byte, nLat*nLon)
	for i := 0; i < nLat; i++ {
		for j := 0; j < nLon; j++ {
			if Land(i, j) {
				b[i*nLon+j] = 1
			}
		}
	}
	return b
}

func monthsBytes() []byte {
	b := make([]byte, 4*nTime)
	for t := 0; t < nTime; t++ {
		binary.LittleEndian.PutUint32(b[4*t:], uint32(t))
	}
	return b
}

// midMonthDays is the v2 store's time: the middle of each month of a
// 365-day year, in days since 2000-01-01 (the noleap calendar).
func midMonthDays() []byte {
	days := []int{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365}
	b := make([]byte, 4*nTime)
	for t := 0; t < nTime; t++ {
		binary.LittleEndian.PutUint32(b[4*t:], uint32((days[t]+days[t+1])/2))
	}
	return b
}

var rootAttrs = map[string]any{
	"title":       "zarr-wasm sample data",
	"description": "Synthetic arrays written by web/demo/gen with the zarr-wasm Go engine.",
	"license":     "CC0-1.0",
}

var climateAttrs = map[string]any{
	"title":   "Synthetic monthly climate",
	"source":  "closed-form functions (web/demo/gen)",
	"history": "generated deterministically at build time",
	"grid":    map[string]any{"resolution_deg": 1, "lat": []any{-89.5, 89.5}, "lon": []any{-179.5, 179.5}},
}

func temperatureAttrs(v2 bool) map[string]any {
	a := map[string]any{
		"units":         "K",
		"long_name":     "Near-surface air temperature (synthetic)",
		"standard_name": "air_temperature",
		"valid_range":   []any{200, 330},
	}
	if v2 {
		a["_ARRAY_DIMENSIONS"] = []any{"time", "lat", "lon"}
	}
	return a
}

func writeV3(ctx context.Context, dir string) error {
	s, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		return err
	}
	if _, err := zarr.CreateGroup(ctx, s, "", zarr.GroupOptions{Attributes: rootAttrs}); err != nil {
		return err
	}
	if _, err := zarr.CreateGroup(ctx, s, "climate", zarr.GroupOptions{Attributes: climateAttrs}); err != nil {
		return err
	}
	blosc := func(typesize int) []map[string]any {
		return []map[string]any{
			{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
			{"name": "blosc", "configuration": map[string]any{"cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": typesize, "blocksize": 0}},
		}
	}
	if err := writeArray(ctx, s, "climate/temperature", zarr.ArrayOptions{
		Shape: []int{nTime, nLat, nLon}, Chunks: []int{1, 90, 90}, DType: "float32",
		FillValue: "NaN", Codecs: blosc(4), DimensionNames: []string{"time", "lat", "lon"},
		Attributes: temperatureAttrs(false),
	}, temperatureBytes()); err != nil {
		return err
	}
	lat, lon := coords()
	if err := writeArray(ctx, s, "climate/lat", zarr.ArrayOptions{
		Shape: []int{nLat}, Chunks: []int{nLat}, DType: "float32", DimensionNames: []string{"lat"},
		Attributes: map[string]any{"units": "degrees_north", "long_name": "latitude"},
	}, lat); err != nil {
		return err
	}
	if err := writeArray(ctx, s, "climate/lon", zarr.ArrayOptions{
		Shape: []int{nLon}, Chunks: []int{nLon}, DType: "float32", DimensionNames: []string{"lon"},
		Attributes: map[string]any{"units": "degrees_east", "long_name": "longitude"},
	}, lon); err != nil {
		return err
	}
	if err := writeArray(ctx, s, "climate/time", zarr.ArrayOptions{
		Shape: []int{nTime}, Chunks: []int{nTime}, DType: "int32", DimensionNames: []string{"time"},
		Attributes: map[string]any{"units": "months since 2000-01-01", "calendar": "360_day"},
	}, monthsBytes()); err != nil {
		return err
	}
	if err := writeArray(ctx, s, "climate/land", zarr.ArrayOptions{
		Shape: []int{nLat, nLon}, Chunks: []int{90, 180}, DType: "bool", DimensionNames: []string{"lat", "lon"},
		Attributes: map[string]any{"long_name": "land mask (made up)", "flag_values": []any{0, 1}, "flag_meanings": "ocean land"},
	}, landBytes()); err != nil {
		return err
	}

	// The group describes its image as OME-Zarr 0.5 does in Zarr v3 (an
	// "ome" attribute; one level here, sample-ome.zarr has a pyramid).
	if _, err := zarr.CreateGroup(ctx, s, "microscopy", zarr.GroupOptions{Attributes: map[string]any{
		"title": "Synthetic fluorescence", "pixel_size_um": 0.325, "channel": "GFP",
		"ome": map[string]any{"version": "0.5", "multiscales": []any{map[string]any{
			"name": "cells",
			"axes": []any{
				map[string]any{"name": "y", "type": "space", "unit": "micrometer"},
				map[string]any{"name": "x", "type": "space", "unit": "micrometer"},
			},
			"datasets": []any{map[string]any{
				"path":                      "cells",
				"coordinateTransformations": []any{map[string]any{"type": "scale", "scale": []any{0.325, 0.325}}},
			}},
		}}},
	}}); err != nil {
		return err
	}
	cells := cellsLevel(0)
	if err := writeArray(ctx, s, "microscopy/cells", zarr.ArrayOptions{
		Shape: []int{cellsSize, cellsSize}, Chunks: []int{256, 256}, ShardShape: []int{1024, 1024},
		DType: "uint16", DimensionNames: []string{"y", "x"},
		Codecs: []map[string]any{
			{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
			{"name": "zstd", "configuration": map[string]any{"level": 19, "checksum": false}},
		},
		Attributes: map[string]any{"long_name": "cells (synthetic)", "units": "counts"},
	}, cells); err != nil {
		return err
	}

	if _, err := zarr.CreateGroup(ctx, s, "signals", zarr.GroupOptions{Attributes: map[string]any{
		"title": "Other data types",
	}}); err != nil {
		return err
	}
	const nw = 256
	wave := make([]byte, 8*nw*nw)
	for i := 0; i < nw; i++ {
		for j := 0; j < nw; j++ {
			z := Wave(i, j)
			binary.LittleEndian.PutUint32(wave[8*(i*nw+j):], math.Float32bits(real(z)))
			binary.LittleEndian.PutUint32(wave[8*(i*nw+j)+4:], math.Float32bits(imag(z)))
		}
	}
	if err := writeArray(ctx, s, "signals/wavefield", zarr.ArrayOptions{
		Shape: []int{nw, nw}, Chunks: []int{128, 128}, DType: "complex64",
		Attributes: map[string]any{"long_name": "interfering point sources (complex amplitude)"},
	}, wave); err != nil {
		return err
	}
	const nb, nc = 3, 128
	counts := make([]byte, 2*nb*nc*nc)
	for b := 0; b < nb; b++ {
		for i := 0; i < nc; i++ {
			for j := 0; j < nc; j++ {
				binary.LittleEndian.PutUint16(counts[2*((b*nc+i)*nc+j):], uint16(Counts(b, i, j)))
			}
		}
	}
	if err := writeArray(ctx, s, "signals/saddle", zarr.ArrayOptions{
		Shape: []int{nb, nc, nc}, Chunks: []int{1, 64, 64}, DType: "int16",
		DimensionNames: []string{"band", "y", "x"},
		Codecs: []map[string]any{
			{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
			{"name": "gzip", "configuration": map[string]any{"level": 6}},
		},
		Attributes: map[string]any{"long_name": "saddle x² − y², scaled by band"},
	}, counts); err != nil {
		return err
	}
	if err := writeMaps(ctx, s); err != nil {
		return err
	}
	return zarr.Consolidate(ctx, s, "")
}

func writeV2(ctx context.Context, dir string) error {
	s, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		return err
	}
	if _, err := zarr.CreateGroup(ctx, s, "", zarr.GroupOptions{ZarrFormat: 2, Attributes: climateAttrs}); err != nil {
		return err
	}
	if err := writeArray(ctx, s, "temperature", zarr.ArrayOptions{
		ZarrFormat: 2, Shape: []int{nTime, nLat, nLon}, Chunks: []int{1, 90, 90}, DType: "<f4",
		FillValue:  "NaN",
		Compressor: map[string]any{"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 1, "blocksize": 0},
		Attributes: temperatureAttrs(true),
	}, temperatureBytes()); err != nil {
		return err
	}
	lat, lon := coords()
	if err := writeArray(ctx, s, "lat", zarr.ArrayOptions{
		ZarrFormat: 2, Shape: []int{nLat}, Chunks: []int{nLat}, DType: "<f4",
		Attributes: map[string]any{"units": "degrees_north", "_ARRAY_DIMENSIONS": []any{"lat"}},
	}, lat); err != nil {
		return err
	}
	if err := writeArray(ctx, s, "lon", zarr.ArrayOptions{
		ZarrFormat: 2, Shape: []int{nLon}, Chunks: []int{nLon}, DType: "<f4",
		Attributes: map[string]any{"units": "degrees_east", "_ARRAY_DIMENSIONS": []any{"lon"}},
	}, lon); err != nil {
		return err
	}
	if err := writeArray(ctx, s, "time", zarr.ArrayOptions{
		ZarrFormat: 2, Shape: []int{nTime}, Chunks: []int{nTime}, DType: "<i4",
		Attributes: map[string]any{"units": "days since 2000-01-01", "calendar": "noleap", "_ARRAY_DIMENSIONS": []any{"time"}},
	}, midMonthDays()); err != nil {
		return err
	}
	// January in one bz2 chunk: the codec the viewer's decode workers take.
	if err := writeArray(ctx, s, "january_bz2", zarr.ArrayOptions{
		ZarrFormat: 2, Shape: []int{nLat, nLon}, Chunks: []int{nLat, nLon}, DType: "<f4",
		FillValue:  "NaN",
		Compressor: map[string]any{"id": "bz2", "level": 9},
		Attributes: map[string]any{
			"long_name": "January near-surface air temperature (bz2: decoded in a worker)", "units": "K",
			"_ARRAY_DIMENSIONS": []any{"lat", "lon"},
		},
	}, temperatureBytes()[:nLat*nLon*4]); err != nil {
		return err
	}
	// Order F and zlib: the viewer reads it like any other.
	if err := writeArray(ctx, s, "land", zarr.ArrayOptions{
		ZarrFormat: 2, Shape: []int{nLat, nLon}, Chunks: []int{90, 180}, DType: "|b1", Order: "F",
		Compressor: map[string]any{"id": "zlib", "level": 6},
		Attributes: map[string]any{"_ARRAY_DIMENSIONS": []any{"lat", "lon"}},
	}, landBytes()); err != nil {
		return err
	}
	return zarr.Consolidate(ctx, s, "")
}

// writeV1 writes month 0 of the temperature as a Zarr v1 array by hand
// (the engine reads v1 but, like zarr-python, does not write it): a "meta"
// document, "attrs", and zlib-compressed chunks named "i.j".
func writeV1(dir string) error {
	const cy, cx = 90, 90
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	meta := `{
  "zarr_format": 1,
  "shape": [180, 360],
  "chunks": [90, 90],
  "dtype": "<f4",
  "compression": "zlib",
  "compression_opts": 1,
  "fill_value": null,
  "order": "C"
}
`
	if err := os.WriteFile(filepath.Join(dir, "meta"), []byte(meta), 0o644); err != nil {
		return err
	}
	attrs := `{"long_name": "Near-surface air temperature, month 0 (synthetic)", "units": "K"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "attrs"), []byte(attrs), 0o644); err != nil {
		return err
	}
	for ci := 0; ci < nLat/cy; ci++ {
		for cj := 0; cj < nLon/cx; cj++ {
			v := make([]float32, 0, cy*cx)
			for i := ci * cy; i < (ci+1)*cy; i++ {
				for j := cj * cx; j < (cj+1)*cx; j++ {
					v = append(v, Temperature(0, i, j))
				}
			}
			var buf bytes.Buffer
			zw, err := zlib.NewWriterLevel(&buf, 1)
			if err != nil {
				return err
			}
			if _, err := zw.Write(f32Bytes(v)); err != nil {
				return err
			}
			if err := zw.Close(); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.%d", ci, cj)), buf.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// zipDir writes a store directory as an uncompressed zip with its keys at
// the root (as zarr-python's ZipStore writes), deterministically.
func zipDir(dir, out string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	stamp := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: stamp})
		if err != nil {
			return err
		}
		src, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		_, err = io.Copy(w, src)
		src.Close()
		if err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func report(out string) error {
	var total int64
	sizes := map[string]int64{}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		top := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
		sizes[top] += info.Size()
		total += info.Size()
		return nil
	})
	if err != nil {
		return err
	}
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Printf("  %-22s %7.1f KiB\n", n, float64(sizes[n])/1024)
	}
	fmt.Printf("sample data in %s: %.1f MiB\n", out, float64(total)/(1<<20))
	return nil
}

// ---- reference sets ------------------------------------------------------

// writeRefs turns the v2 store into a kerchunk-style reference set
// (version 1, a "{{u}}" template for the target) over one binary file laid
// out the way an HDF5 or NetCDF file holds chunks: a header, then the
// chunks with padding between them. Metadata is inline JSON text and
// chunks of at most 64 bytes are inline base64 (kerchunk's inline
// threshold), as kerchunk writes them: refs/sample.json + refs/sample.bin.
func writeRefs(v2, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var files []string
	err := filepath.WalkDir(v2, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(v2, p)
		if err != nil {
			return err
		}
		if rel != ".zmetadata" {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	var bin bytes.Buffer
	bin.WriteString("\x89ZREF\r\n\x1a\n") // a made-up signature, as file formats have
	bin.Write(make([]byte, 512-bin.Len()))
	refs := map[string]any{}
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(v2, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		base := name[strings.LastIndexByte(name, '/')+1:]
		switch {
		case strings.HasPrefix(base, ".z"):
			refs[name] = string(data)
		case len(data) <= 64:
			refs[name] = "base64:" + base64.StdEncoding.EncodeToString(data)
		default:
			refs[name] = []any{"{{u}}", bin.Len(), len(data)}
			bin.Write(data)
			bin.Write(make([]byte, 24)) // padding between chunks
		}
	}
	doc := map[string]any{"version": 1, "templates": map[string]string{"u": "sample.bin"}, "refs": refs}
	text, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sample.json"), append(text, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sample.bin"), bin.Bytes(), 0o644)
}

// copyParquetRefs copies a Parquet reference set of tests/refs (written by
// hyparquet-writer, zstd) and its targets: refs/pq/refs.parq/ (the
// directory with .zmetadata) and p1.bin, p2.bin, whole.bin beside it, where
// its "../p1.bin" paths point. Skipped with a note when the repository's
// tests/refs is not there.
func copyParquetRefs(dst string) error {
	root, err := repoRoot()
	if err != nil {
		fmt.Println("  (no Parquet reference sample:", err, ")")
		return nil
	}
	src := filepath.Join(root, "tests", "refs", "data", "pq")
	for _, f := range []string{"p1.bin", "p2.bin", "whole.bin"} {
		if err := copyFile(filepath.Join(src, f), filepath.Join(dst, f)); err != nil {
			return err
		}
	}
	return copyTree(filepath.Join(src, "hyp_zstd"), filepath.Join(dst, "refs.parq"))
}

// repoRoot is the directory holding go.mod, from the working directory up.
func repoRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("go.mod not found above the working directory")
		}
		d = up
	}
}
