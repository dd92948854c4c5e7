package tsspec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// Transform is the supported part of an IndexTransform: an input domain
// (bounds and labels) and, per output (array) dimension, either one input
// dimension plus an offset (stride 1) or a constant index. That covers
// translation (input_inclusive_min with offsets), labels, transposition
// (a permutation of input dimensions) and fixing a dimension at one index.
type Transform struct {
	Domain *Domain // input domain; bounds may be nil (implicit, unbounded)
	// Output lists, per output dimension, the input dimension it follows
	// (-1: constant) and the offset: output = input + Offset, or Offset.
	Output []OutputMap
}

// OutputMap is one output dimension of a Transform.
type OutputMap struct {
	InputDim int
	Offset   int64
}

// ParseTransform reads an IndexTransform object. Index arrays, strides
// other than 1, and input dimensions used twice are refused as UNSUPPORTED,
// naming the member.
func ParseTransform(where string, raw jsonx.RawMessage) (*Transform, error) {
	o, err := newObject(where, raw)
	if err != nil {
		return nil, err
	}
	d, _, err := parseDomainBounds(o, "input_")
	if err != nil {
		return nil, err
	}
	if d.Rank < 0 {
		return nil, invalid(where, "the input rank is not given (input_rank, input_inclusive_min, input_shape, ...)")
	}
	t := &Transform{Domain: d}
	if raw, ok := o.get("output"); ok {
		var items []jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(raw, &items); err != nil || items == nil {
			return nil, invalid(o.path("output"), "must be a list of output index maps")
		}
		if len(items) > MaxRank {
			return nil, invalid(o.path("output"), "has %d entries; the rank is at most %d", len(items), MaxRank)
		}
		used := make([]bool, d.Rank)
		for i, it := range items {
			w := fmtx.Sprintf("%s[%d]", o.path("output"), i)
			m, err := parseOutputMap(w, it, d.Rank)
			if err != nil {
				return nil, err
			}
			if m.InputDim >= 0 {
				if used[m.InputDim] {
					return nil, unsupported(w+".input_dimension", "input dimension %d feeds two output dimensions (a diagonal); not supported", m.InputDim)
				}
				used[m.InputDim] = true
			}
			t.Output = append(t.Output, m)
		}
		for i, u := range used {
			if !u {
				return nil, unsupported(o.path("output"), "input dimension %d maps to no output dimension (a broadcast dimension); not supported", i)
			}
		}
	} else {
		for i := 0; i < d.Rank; i++ {
			t.Output = append(t.Output, OutputMap{InputDim: i})
		}
	}
	return t, o.finish()
}

func parseOutputMap(where string, raw jsonx.RawMessage, inputRank int) (OutputMap, error) {
	o, err := newObject(where, raw)
	if err != nil {
		return OutputMap{}, err
	}
	m := OutputMap{InputDim: -1}
	if off, ok, err := o.int("offset", -maxIndex, maxIndex); err != nil {
		return m, err
	} else if ok {
		m.Offset = off
	}
	if _, ok := o.get("index_array"); ok {
		return m, unsupported(o.path("index_array"), "index array output maps are not supported")
	}
	if _, ok := o.get("index_array_bounds"); ok {
		return m, unsupported(o.path("index_array_bounds"), "index array output maps are not supported")
	}
	dim, hasDim, err := o.int("input_dimension", 0, MaxRank-1)
	if err != nil {
		return m, err
	}
	if hasDim {
		if int(dim) >= inputRank {
			return m, invalid(o.path("input_dimension"), "%d is not below the input rank %d", dim, inputRank)
		}
		m.InputDim = int(dim)
	}
	if stride, ok, err := o.int("stride", -maxIndex, maxIndex); err != nil {
		return m, err
	} else if ok {
		if !hasDim {
			return m, invalid(o.path("stride"), "needs input_dimension")
		}
		if stride != 1 {
			return m, unsupported(o.path("stride"), "strides other than 1 are not supported, got %d", stride)
		}
	}
	return m, o.finish()
}

// Identity returns the identity transform over rank dimensions with
// unbounded (implicit) domain.
func Identity(rank int) *Transform {
	t := &Transform{Domain: &Domain{Rank: rank}}
	for i := 0; i < rank; i++ {
		t.Output = append(t.Output, OutputMap{InputDim: i})
	}
	return t
}

// IsIdentity reports whether t maps every input dimension to the same
// output dimension with offset 0 and has no labels.
func (t *Transform) IsIdentity() bool {
	for i, m := range t.Output {
		if m.InputDim != i || m.Offset != 0 {
			return false
		}
	}
	for _, l := range t.Domain.Labels {
		if l != "" {
			return false
		}
	}
	return len(t.Output) == t.Domain.Rank
}

// View is a transform resolved against an array's domain (zero origin,
// extents Shape, the chunked ones resizable): the input domain's bounds,
// with every implicit bound taken from the array.
type View struct {
	Rank          int
	Origin        []int64 // inclusive lower bound per input dimension
	Extent        []int64 // extent per input dimension
	ImplicitUpper []bool  // the upper bound follows the array's (resizable)
	Labels        []string
	// ToBase is, per input dimension, the array dimension it indexes;
	// Offset adds to an input index to give the array index.
	ToBase []int
	Offset []int64
	// Fixed lists array dimensions held at one index (constant output maps).
	Fixed map[int]int64
}

// Resolve binds t to an array of the given shape whose first resizable
// dimensions are resizable. Bounds outside the array are an error.
func (t *Transform) Resolve(shape []int64, resizable int) (*View, error) {
	if len(t.Output) != len(shape) {
		return nil, invalid("transform.output", "has %d output dimensions; the array has %d", len(t.Output), len(shape))
	}
	d := t.Domain
	v := &View{Rank: d.Rank, Origin: make([]int64, d.Rank), Extent: make([]int64, d.Rank),
		ImplicitUpper: make([]bool, d.Rank), Labels: make([]string, d.Rank),
		ToBase: make([]int, d.Rank), Offset: make([]int64, d.Rank), Fixed: map[int]int64{}}
	copy(v.Labels, d.Labels)
	for out, m := range t.Output {
		if m.InputDim < 0 {
			if m.Offset < 0 || m.Offset >= shape[out] {
				return nil, errsOutOfRange(fmtx.Sprintf("transform.output[%d].offset", out), m.Offset, 0, shape[out])
			}
			v.Fixed[out] = m.Offset
			continue
		}
		i := m.InputDim
		v.ToBase[i], v.Offset[i] = out, m.Offset
		// The array's bounds seen from the input side.
		lo, hi := -m.Offset, shape[out]-m.Offset
		min, max := lo, hi
		v.ImplicitUpper[i] = out < resizable
		if d.InclusiveMin != nil && !d.InclusiveMin[i].Infinite && !d.InclusiveMin[i].Implicit {
			min = d.InclusiveMin[i].Value
		}
		if d.ExclusiveMax != nil && !d.ExclusiveMax[i].Infinite && !d.ExclusiveMax[i].Implicit {
			max = d.ExclusiveMax[i].Value
			v.ImplicitUpper[i] = false
		}
		if min < lo || max > hi || max < min {
			return nil, invalid(fmtx.Sprintf("transform input dimension %d", i),
				"domain [%d, %d) maps to array indices [%d, %d), outside the array's [0, %d)", min, max, min+m.Offset, max+m.Offset, shape[out])
		}
		v.Origin[i], v.Extent[i] = min, max-min
	}
	return v, nil
}

func errsOutOfRange(where string, i, lo, hi int64) error {
	return invalid(where, "index %d is outside [%d, %d)", i, lo, hi)
}

// JSON is the transform of the view in TensorStore's form: the input
// domain (implicit bounds as [n]), labels when any, and the output maps
// when the view is not the identity.
func (v *View) JSON(baseRank int) map[string]any {
	m := map[string]any{}
	mins := make([]any, v.Rank)
	maxs := make([]any, v.Rank)
	for i := 0; i < v.Rank; i++ {
		mins[i] = boundJSON(v.Origin[i], false)
		maxs[i] = boundJSON(v.Origin[i]+v.Extent[i], v.ImplicitUpper[i])
	}
	m["input_inclusive_min"] = mins
	m["input_exclusive_max"] = maxs
	for _, l := range v.Labels {
		if l != "" {
			labels := make([]any, v.Rank)
			for i, s := range v.Labels {
				labels[i] = s
			}
			m["input_labels"] = labels
			break
		}
	}
	if !v.identity(baseRank) {
		out := make([]any, baseRank)
		for d := 0; d < baseRank; d++ {
			if c, ok := v.Fixed[d]; ok {
				out[d] = map[string]any{"offset": c}
				continue
			}
			for i := 0; i < v.Rank; i++ {
				if v.ToBase[i] == d {
					om := map[string]any{"input_dimension": i}
					if v.Offset[i] != 0 {
						om["offset"] = v.Offset[i]
					}
					out[d] = om
				}
			}
		}
		m["output"] = out
	}
	return m
}

func (v *View) identity(baseRank int) bool {
	if v.Rank != baseRank || len(v.Fixed) > 0 {
		return false
	}
	for i := 0; i < v.Rank; i++ {
		if v.ToBase[i] != i || v.Offset[i] != 0 {
			return false
		}
	}
	return true
}

func boundJSON(n int64, implicit bool) any {
	if implicit {
		return []any{n}
	}
	return n
}
