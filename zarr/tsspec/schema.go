package tsspec

import (
	"math"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// DataTypes are TensorStore's data type names.
var DataTypes = []string{"bool", "char", "byte", "int2", "int4", "int8", "uint8", "int16", "uint16",
	"int32", "uint32", "int64", "uint64", "float8_e3m4", "float8_e4m3fn", "float8_e4m3fnuz",
	"float8_e4m3b11fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn",
	"float16", "bfloat16", "float32", "float64", "complex64", "complex128", "string", "ustring", "json"}

func parseDataType(where string, raw jsonx.RawMessage) (string, error) {
	var s string
	if err := jsonx.UnmarshalStrict(raw, &s); err != nil {
		return "", invalid(where, "must be a data type name, got %s", short(raw))
	}
	for _, d := range DataTypes {
		if d == s {
			return s, nil
		}
	}
	return "", invalid(where, "unknown data type %q", s).WithSuggestion(s, DataTypes)
}

// Bound is one bound of an interval: finite or infinite, explicit or
// implicit (resizable; written [n] in JSON).
type Bound struct {
	Value    int64
	Infinite bool // -inf for a lower bound, +inf for an upper one
	Implicit bool
}

// Domain is an index domain: per dimension an inclusive lower and exclusive
// upper bound, and an optional label. A nil bound slice means "not given"
// (implicitly infinite).
type Domain struct {
	Rank         int
	InclusiveMin []Bound
	ExclusiveMax []Bound
	Labels       []string
}

// parseBounds reads a bounds list (n, [n], "-inf"/"+inf" strings).
func parseBounds(where string, raw jsonx.RawMessage) ([]Bound, error) {
	var items []jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(raw, &items); err != nil || items == nil {
		return nil, invalid(where, "must be a list of bounds, got %s", short(raw))
	}
	if len(items) > MaxRank {
		return nil, invalid(where, "has %d entries; the rank is at most %d", len(items), MaxRank)
	}
	out := make([]Bound, len(items))
	for i, it := range items {
		b, err := parseBound(fmtx.Sprintf("%s[%d]", where, i), it)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func parseBound(where string, raw jsonx.RawMessage) (Bound, error) {
	var inner []jsonx.RawMessage
	if jsonx.UnmarshalStrict(raw, &inner) == nil {
		if len(inner) != 1 {
			return Bound{}, invalid(where, "an implicit bound is [n], got %s", short(raw))
		}
		b, err := parseBound(where, inner[0])
		b.Implicit = true
		return b, err
	}
	var s string
	if jsonx.UnmarshalStrict(raw, &s) == nil {
		switch s {
		case "-inf", "+inf":
			return Bound{Infinite: true}, nil
		}
		return Bound{}, invalid(where, "a bound is an integer, [integer], \"-inf\" or \"+inf\", got %s", short(raw))
	}
	n, err := parseInt(where, raw, -maxIndex, maxIndex+1)
	return Bound{Value: n}, err
}

// parseDomainBounds reads the members IndexDomain and IndexTransform share
// (with a prefix: "" or "input_"): rank, inclusive_min, exclusive_max,
// inclusive_max, shape, labels.
func parseDomainBounds(o *object, prefix string) (*Domain, bool, error) {
	d := &Domain{Rank: -1}
	given := false
	setRank := func(n int, member string) error {
		if d.Rank >= 0 && d.Rank != n {
			return invalid(o.path(prefix+member), "has %d entries, but the rank is %d", n, d.Rank)
		}
		d.Rank = n
		return nil
	}
	if r, ok, err := o.int(prefix+"rank", 0, MaxRank); err != nil {
		return nil, false, err
	} else if ok {
		d.Rank, given = int(r), true
	}
	if raw, ok := o.get(prefix + "inclusive_min"); ok {
		b, err := parseBounds(o.path(prefix+"inclusive_min"), raw)
		if err != nil {
			return nil, false, err
		}
		if err := setRank(len(b), "inclusive_min"); err != nil {
			return nil, false, err
		}
		d.InclusiveMin, given = b, true
	}
	upper := ""
	for _, m := range []string{"exclusive_max", "inclusive_max", "shape"} {
		raw, ok := o.get(prefix + m)
		if !ok {
			continue
		}
		if upper != "" {
			return nil, false, invalid(o.path(prefix+m), "at most one of %sexclusive_max, %sinclusive_max and %sshape may be given", prefix, prefix, prefix)
		}
		upper = m
		b, err := parseBounds(o.path(prefix+m), raw)
		if err != nil {
			return nil, false, err
		}
		if err := setRank(len(b), m); err != nil {
			return nil, false, err
		}
		given = true
		if m == "shape" && d.InclusiveMin == nil {
			d.InclusiveMin = make([]Bound, len(b))
		}
		for i := range b {
			switch m {
			case "inclusive_max":
				if !b[i].Infinite {
					b[i].Value++
				}
			case "shape":
				lo := d.InclusiveMin[i]
				if b[i].Infinite || lo.Infinite {
					return nil, false, invalid(o.path(prefix+m), "a shape needs finite bounds")
				}
				if b[i].Value < 0 {
					return nil, false, invalid(o.path(prefix+m), "negative extent %d", b[i].Value)
				}
				b[i].Value += lo.Value
			}
		}
		d.ExclusiveMax = b
	}
	if raw, ok := o.get(prefix + "labels"); ok {
		if err := jsonx.UnmarshalStrict(raw, &d.Labels); err != nil {
			return nil, false, invalid(o.path(prefix+"labels"), "must be a list of strings")
		}
		if err := setRank(len(d.Labels), "labels"); err != nil {
			return nil, false, err
		}
		seen := map[string]bool{}
		for _, l := range d.Labels {
			if l != "" && seen[l] {
				return nil, false, invalid(o.path(prefix+"labels"), "label %q appears twice", l)
			}
			seen[l] = true
		}
		given = true
	}
	for i := range d.InclusiveMin {
		if i < len(d.ExclusiveMax) && !d.InclusiveMin[i].Infinite && !d.ExclusiveMax[i].Infinite && d.ExclusiveMax[i].Value < d.InclusiveMin[i].Value {
			return nil, false, invalid(o.path(prefix+"exclusive_max"), "dimension %d: upper bound %d is below the lower bound %d", i, d.ExclusiveMax[i].Value, d.InclusiveMin[i].Value)
		}
	}
	return d, given, nil
}

// ParseDomain reads an IndexDomain object.
func ParseDomain(where string, raw jsonx.RawMessage) (*Domain, error) {
	o, err := newObject(where, raw)
	if err != nil {
		return nil, err
	}
	d, _, err := parseDomainBounds(o, "")
	if err != nil {
		return nil, err
	}
	if err := o.finish(); err != nil {
		return nil, err
	}
	if d.Rank < 0 {
		return nil, invalid(where, "the rank is not given (rank, inclusive_min, exclusive_max, shape or labels)")
	}
	return d, nil
}

// Grid is one ChunkLayout/Grid: hard and soft constraints on a chunk shape.
type Grid struct {
	Shape, ShapeSoft             []int64 // 0: no constraint; -1: the full extent
	AspectRatio, AspectRatioSoft []float64
	Elements, ElementsSoft       int64 // 0: no preference
}

// ChunkLayout is the chunk layout part of a schema.
type ChunkLayout struct {
	Rank                         int
	GridOrigin, GridOriginSoft   []*int64 // nil entry: no constraint
	InnerOrder, InnerOrderSoft   []int
	Chunk, ReadChunk, WriteChunk Grid
	CodecChunk                   Grid
	given                        bool
}

func parseGrid(where string, raw jsonx.RawMessage, rank *int) (Grid, error) {
	var g Grid
	o, err := newObject(where, raw)
	if err != nil {
		return g, err
	}
	check := func(member string, n int) error {
		if *rank >= 0 && *rank != n {
			return invalid(o.path(member), "has %d entries, but the rank is %d", n, *rank)
		}
		*rank = n
		return nil
	}
	shape := func(member string) ([]int64, error) {
		raw, ok := o.get(member)
		if !ok {
			return nil, nil
		}
		var items []jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(raw, &items); err != nil || items == nil {
			return nil, invalid(o.path(member), "must be a list of chunk sizes")
		}
		out := make([]int64, len(items))
		for i, it := range items {
			if string(it) == "null" {
				continue
			}
			n, err := parseInt(o.path(member), it, -1, maxIndex)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, check(member, len(out))
	}
	aspect := func(member string) ([]float64, error) {
		raw, ok := o.get(member)
		if !ok {
			return nil, nil
		}
		var items []*float64
		if err := jsonx.UnmarshalStrict(raw, &items); err != nil || items == nil {
			return nil, invalid(o.path(member), "must be a list of numbers")
		}
		out := make([]float64, len(items))
		for i, v := range items {
			if v != nil {
				if *v < 0 || math.IsNaN(*v) || math.IsInf(*v, 0) {
					return nil, invalid(o.path(member), "%v is not a non-negative number", *v)
				}
				out[i] = *v
			}
		}
		return out, check(member, len(out))
	}
	elements := func(member string) (int64, error) {
		raw, ok := o.get(member)
		if !ok || string(raw) == "null" {
			return 0, nil
		}
		return parseInt(o.path(member), raw, 1, maxIndex)
	}
	if g.Shape, err = shape("shape"); err != nil {
		return g, err
	}
	if g.ShapeSoft, err = shape("shape_soft_constraint"); err != nil {
		return g, err
	}
	if g.AspectRatio, err = aspect("aspect_ratio"); err != nil {
		return g, err
	}
	if g.AspectRatioSoft, err = aspect("aspect_ratio_soft_constraint"); err != nil {
		return g, err
	}
	if g.Elements, err = elements("elements"); err != nil {
		return g, err
	}
	if g.ElementsSoft, err = elements("elements_soft_constraint"); err != nil {
		return g, err
	}
	return g, o.finish()
}

// ParseChunkLayout reads a ChunkLayout object.
func ParseChunkLayout(where string, raw jsonx.RawMessage) (*ChunkLayout, error) {
	o, err := newObject(where, raw)
	if err != nil {
		return nil, err
	}
	c := &ChunkLayout{Rank: -1, given: true}
	if r, ok, err := o.int("rank", 0, MaxRank); err != nil {
		return nil, err
	} else if ok {
		c.Rank = int(r)
	}
	check := func(member string, n int) error {
		if c.Rank >= 0 && c.Rank != n {
			return invalid(o.path(member), "has %d entries, but the rank is %d", n, c.Rank)
		}
		c.Rank = n
		return nil
	}
	origin := func(member string) ([]*int64, error) {
		raw, ok := o.get(member)
		if !ok {
			return nil, nil
		}
		var items []*int64
		if err := jsonx.UnmarshalStrict(raw, &items); err != nil || items == nil {
			return nil, invalid(o.path(member), "must be a list of integers or nulls")
		}
		for i, v := range items {
			if v != nil && *v == math.MinInt64 {
				items[i] = nil
			}
		}
		return items, check(member, len(items))
	}
	order := func(member string) ([]int, error) {
		raw, ok := o.get(member)
		if !ok {
			return nil, nil
		}
		var p []int
		if err := jsonx.UnmarshalStrict(raw, &p); err != nil || !isPermutation(p) {
			return nil, invalid(o.path(member), "must be a permutation of 0..rank-1, got %s", short(raw))
		}
		return p, check(member, len(p))
	}
	if c.GridOrigin, err = origin("grid_origin"); err != nil {
		return nil, err
	}
	if c.GridOriginSoft, err = origin("grid_origin_soft_constraint"); err != nil {
		return nil, err
	}
	if c.InnerOrder, err = order("inner_order"); err != nil {
		return nil, err
	}
	if c.InnerOrderSoft, err = order("inner_order_soft_constraint"); err != nil {
		return nil, err
	}
	for _, g := range []struct {
		member string
		dst    *Grid
	}{{"chunk", &c.Chunk}, {"read_chunk", &c.ReadChunk}, {"write_chunk", &c.WriteChunk}, {"codec_chunk", &c.CodecChunk}} {
		if raw, ok := o.get(g.member); ok {
			if *g.dst, err = parseGrid(o.path(g.member), raw, &c.Rank); err != nil {
				return nil, err
			}
		}
	}
	return c, o.finish()
}

func isPermutation(p []int) bool {
	seen := make([]bool, len(p))
	for _, v := range p {
		if v < 0 || v >= len(p) || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// Schema holds the schema constraints of a spec (its "schema" member merged
// with the top-level "dtype" and "rank").
type Schema struct {
	Rank        int    // -1: not given
	DType       string // TensorStore data type name; "" not given
	Domain      *Domain
	ChunkLayout *ChunkLayout
	// Codec is the codec object ({"driver": "zarr", "compressor": ...}).
	Codec map[string]jsonx.RawMessage
	// FillValue is the fill value JSON (a number, or nested lists).
	FillValue jsonx.RawMessage
	// DimensionUnits lists each dimension's unit (nil entries: unknown).
	DimensionUnits []jsonx.RawMessage
}

// ParseSchema reads a Schema object into s (already holding any top-level
// dtype and rank).
func parseSchemaInto(s *Schema, where string, raw jsonx.RawMessage) error {
	o, err := newObject(where, raw)
	if err != nil {
		return err
	}
	if r, ok, err := o.int("rank", 0, MaxRank); err != nil {
		return err
	} else if ok {
		if err := s.setRank(o.path("rank"), int(r)); err != nil {
			return err
		}
	}
	if raw, ok := o.get("dtype"); ok {
		d, err := parseDataType(o.path("dtype"), raw)
		if err != nil {
			return err
		}
		if err := s.setDType(o.path("dtype"), d); err != nil {
			return err
		}
	}
	if raw, ok := o.get("domain"); ok {
		if s.Domain, err = ParseDomain(o.path("domain"), raw); err != nil {
			return err
		}
		if err := s.setRank(o.path("domain"), s.Domain.Rank); err != nil {
			return err
		}
	}
	if raw, ok := o.get("chunk_layout"); ok {
		if s.ChunkLayout, err = ParseChunkLayout(o.path("chunk_layout"), raw); err != nil {
			return err
		}
		if s.ChunkLayout.Rank >= 0 {
			if err := s.setRank(o.path("chunk_layout"), s.ChunkLayout.Rank); err != nil {
				return err
			}
		}
	}
	if raw, ok := o.get("codec"); ok {
		if err := jsonx.UnmarshalStrict(raw, &s.Codec); err != nil || s.Codec == nil {
			return invalid(o.path("codec"), "must be an object with a \"driver\"")
		}
	}
	if raw, ok := o.get("fill_value"); ok && string(raw) != "null" {
		s.FillValue = raw
	}
	if raw, ok := o.get("dimension_units"); ok {
		if err := jsonx.UnmarshalStrict(raw, &s.DimensionUnits); err != nil {
			return invalid(o.path("dimension_units"), "must be a list of units or nulls")
		}
		if err := s.setRank(o.path("dimension_units"), len(s.DimensionUnits)); err != nil {
			return err
		}
	}
	return o.finish()
}

func (s *Schema) setRank(where string, r int) error {
	if s.Rank >= 0 && s.Rank != r {
		return invalid(where, "rank %d does not match rank %d given elsewhere", r, s.Rank)
	}
	s.Rank = r
	return nil
}

func (s *Schema) setDType(where, d string) error {
	if s.DType != "" && s.DType != d {
		return invalid(where, "data type %q does not match %q given elsewhere", d, s.DType)
	}
	s.DType = d
	return nil
}

// hasUnits reports whether some dimension unit is given (not null).
func (s *Schema) hasUnits() bool {
	for _, u := range s.DimensionUnits {
		if string(u) != "null" {
			return true
		}
	}
	return false
}
