// Package grid maps array indices to chunks. A chunk grid is one Dim per
// array dimension; indexing always asks the Dim, so regular and variable
// (rectilinear) grids share every read and write path.
package grid

import (
	"sort"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// Dim is the chunking of one dimension.
type Dim interface {
	// Count returns the number of chunks covering extent elements.
	Count(extent int) int
	// Locate returns the chunk holding index i and i's offset inside it.
	Locate(i int) (chunk, offset int)
	// Start returns the first index of chunk c.
	Start(c int) int
	// Size returns the stored size of chunk c (for a regular grid, the
	// chunk size, even where it overhangs the array).
	Size(c int) int
}

// Grid is the chunk grid of an array.
type Grid []Dim

// Shape returns the number of chunks along each dimension.
func (g Grid) Shape(arrayShape []int) []int {
	out := make([]int, len(g))
	for i, d := range g {
		out[i] = d.Count(arrayShape[i])
	}
	return out
}

// ChunkShape returns the stored shape of chunk idx.
func (g Grid) ChunkShape(idx []int) []int {
	out := make([]int, len(g))
	for i, d := range g {
		out[i] = d.Size(idx[i])
	}
	return out
}

// Regular is a dimension of equal chunks.
type Regular int

func (r Regular) Count(extent int) int    { return (extent + int(r) - 1) / int(r) }
func (r Regular) Locate(i int) (int, int) { return i / int(r), i % int(r) }
func (r Regular) Start(c int) int         { return c * int(r) }
func (r Regular) Size(int) int            { return int(r) }

// NewRegular returns a regular grid; every chunk size must be positive.
func NewRegular(chunks []int) (Grid, error) {
	g := make(Grid, len(chunks))
	for i, c := range chunks {
		if c <= 0 {
			return nil, fmtx.Errorf("chunk size %d in dimension %d must be positive", c, i)
		}
		g[i] = Regular(c)
	}
	return g, nil
}

// Explicit is a dimension with listed chunk sizes (rectilinear grids). The
// sizes may cover more than the array extent.
type Explicit struct {
	sizes []int
	ends  []int // ends[c] = Start(c) + sizes[c]
}

// NewExplicit returns a dimension with the given chunk sizes (all positive).
func NewExplicit(sizes []int) (*Explicit, error) {
	e := &Explicit{sizes: sizes, ends: make([]int, len(sizes))}
	acc := 0
	for i, s := range sizes {
		if s <= 0 {
			return nil, fmtx.Errorf("chunk size %d at position %d must be positive", s, i)
		}
		acc += s
		e.ends[i] = acc
	}
	return e, nil
}

func (e *Explicit) Sizes() []int { return e.sizes }

func (e *Explicit) Count(extent int) int {
	if extent <= 0 {
		return 0
	}
	c := sort.SearchInts(e.ends, extent) // first c with ends[c] >= extent
	if c >= len(e.ends) {
		return len(e.ends)
	}
	return c + 1
}

func (e *Explicit) Locate(i int) (int, int) {
	c := sort.Search(len(e.ends), func(k int) bool { return e.ends[k] > i })
	if c >= len(e.ends) {
		c = len(e.ends) - 1
	}
	return c, i - e.Start(c)
}

func (e *Explicit) Start(c int) int {
	if c == 0 {
		return 0
	}
	return e.ends[c-1]
}

func (e *Explicit) Size(c int) int {
	if c < 0 || c >= len(e.sizes) {
		return 0
	}
	return e.sizes[c]
}

// Covers reports whether the sizes reach extent.
func (e *Explicit) Covers(extent int) bool {
	return extent == 0 || (len(e.ends) > 0 && e.ends[len(e.ends)-1] >= extent)
}

// Piece is the part of a selection that falls into one chunk along one
// dimension: positions In inside the chunk go to positions Out of the result.
type Piece struct {
	Chunk   int
	In, Out nd.Range
}

// Pieces splits a selected range of one dimension by chunk.
func Pieces(d Dim, r nd.Range) []Piece {
	if r.Count == 0 {
		return nil
	}
	first := r.Start
	last := r.Start + (r.Count-1)*r.Step
	c0, _ := d.Locate(first)
	c1, _ := d.Locate(last)
	var out []Piece
	if c1-c0+1 <= r.Count {
		for c := c0; c <= c1; c++ {
			s := d.Start(c)
			e := s + d.Size(c) - 1
			lo := max(s, first)
			hi := min(e, last)
			if lo > hi {
				continue
			}
			kFirst := (lo - first + r.Step - 1) / r.Step
			kLast := (hi - first) / r.Step
			if kFirst > kLast {
				continue
			}
			n := kLast - kFirst + 1
			out = append(out, Piece{c, nd.Range{Start: first + kFirst*r.Step - s, Step: r.Step, Count: n}, nd.Range{Start: kFirst, Step: 1, Count: n}})
		}
		return out
	}
	// Sparse selection (step larger than chunks): walk the elements.
	for k := 0; k < r.Count; k++ {
		c, off := d.Locate(first + k*r.Step)
		if n := len(out); n > 0 && out[n-1].Chunk == c {
			out[n-1].In.Count++
			out[n-1].Out.Count++
			continue
		}
		out = append(out, Piece{c, nd.Range{Start: off, Step: r.Step, Count: 1}, nd.Range{Start: k, Step: 1, Count: 1}})
	}
	return out
}
