package zarr

import (
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// Selection is a NumPy-style basic selection: one item per dimension, with
// at most one Ellipsis. Missing trailing dimensions are selected whole; a
// nil Selection selects everything.
type Selection []SelItem

// SelKind is the kind of a selection item.
type SelKind int

const (
	SelIndex    SelKind = iota // one index; the dimension is dropped
	SelSlice                   // start:stop:step
	SelEllipsis                // ... : as many whole dimensions as needed
)

// SelItem is one entry of a Selection. Start and Stop are nil for "from the
// beginning" / "to the end"; Step 0 means 1.
type SelItem struct {
	Kind        SelKind
	Index       int
	Start, Stop *int
	Step        int
}

// Index selects one position (negative counts from the end).
func Index(i int) SelItem { return SelItem{Kind: SelIndex, Index: i} }

// Slice selects start:stop:step; pass nil for an open end.
func Slice(start, stop *int, step int) SelItem {
	return SelItem{Kind: SelSlice, Start: start, Stop: stop, Step: step}
}

// All selects a whole dimension.
func All() SelItem { return SelItem{Kind: SelSlice} }

// Ellipsis stands for as many whole dimensions as needed.
func Ellipsis() SelItem { return SelItem{Kind: SelEllipsis} }

// ParseSelection parses "1:5, ::2, -1", "...", "2, ..., 0:3". An empty
// string or "..." selects everything.
func ParseSelection(s string) (Selection, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "[")
	s = strings.TrimSuffix(s, "]")
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var sel Selection
	for _, part := range strings.Split(s, ",") {
		p := strings.TrimSpace(part)
		switch {
		case p == "...":
			sel = append(sel, Ellipsis())
		case p == "":
			return nil, errs.New(errs.Selection, s, "empty item in selection")
		case strings.Contains(p, ":"):
			fields := strings.Split(p, ":")
			if len(fields) > 3 {
				return nil, errs.New(errs.Selection, p, "a slice has at most start:stop:step")
			}
			item := SelItem{Kind: SelSlice}
			ptrs := []**int{&item.Start, &item.Stop}
			for i, f := range fields {
				f = strings.TrimSpace(f)
				if f == "" {
					continue
				}
				n, err := strconv.Atoi(f)
				if err != nil {
					return nil, errs.New(errs.Selection, p, "%q is not an integer", f)
				}
				if i < 2 {
					v := n
					*ptrs[i] = &v
				} else {
					if n == 0 {
						return nil, errs.New(errs.Selection, p, "slice step cannot be zero")
					}
					item.Step = n
				}
			}
			sel = append(sel, item)
		default:
			n, err := strconv.Atoi(p)
			if err != nil {
				return nil, errs.New(errs.Selection, p, "not an integer, slice or \"...\"")
			}
			sel = append(sel, Index(n))
		}
	}
	return sel, nil
}

// String formats the selection in the syntax ParseSelection reads.
func (s Selection) String() string {
	parts := make([]string, len(s))
	for i, it := range s {
		switch it.Kind {
		case SelIndex:
			parts[i] = strconv.Itoa(it.Index)
		case SelEllipsis:
			parts[i] = "..."
		default:
			var b strings.Builder
			if it.Start != nil {
				b.WriteString(strconv.Itoa(*it.Start))
			}
			b.WriteByte(':')
			if it.Stop != nil {
				b.WriteString(strconv.Itoa(*it.Stop))
			}
			if it.Step != 0 && it.Step != 1 {
				b.WriteByte(':')
				b.WriteString(strconv.Itoa(it.Step))
			}
			parts[i] = b.String()
		}
	}
	return strings.Join(parts, ", ")
}

// resolved is a selection applied to a shape: one Range per array
// dimension, and which dimensions an integer index dropped.
type resolved struct {
	ranges  []nd.Range
	dropped []bool
}

// outShape is the shape of the selection's result.
func (r resolved) outShape() []int {
	var out []int
	for i, rg := range r.ranges {
		if !r.dropped[i] {
			out = append(out, rg.Count)
		}
	}
	if out == nil {
		out = []int{}
	}
	return out
}

// fullShape is the result shape with dropped dimensions kept as 1.
func (r resolved) fullShape() []int {
	out := make([]int, len(r.ranges))
	for i, rg := range r.ranges {
		out[i] = rg.Count
	}
	return out
}

func (s Selection) resolve(shape []int) (resolved, error) {
	expanded, err := s.expand(len(shape))
	if err != nil {
		return resolved{}, err
	}
	r := resolved{ranges: make([]nd.Range, len(shape)), dropped: make([]bool, len(shape))}
	for d, it := range expanded {
		n := shape[d]
		if it.Kind == SelIndex {
			i := it.Index
			if i < 0 {
				i += n
			}
			if i < 0 || i >= n {
				return resolved{}, errs.New(errs.Selection, s.String(), "index %d is out of bounds for dimension %d of length %d", it.Index, d, n)
			}
			r.ranges[d] = nd.Range{Start: i, Step: 1, Count: 1}
			r.dropped[d] = true
			continue
		}
		step, err := s.step(it, d)
		if err != nil {
			return resolved{}, err
		}
		start, stop := 0, n
		if it.Start != nil {
			start = clampIndex(*it.Start, n)
		}
		if it.Stop != nil {
			stop = clampIndex(*it.Stop, n)
		}
		count := 0
		if stop > start {
			count = (stop - start + step - 1) / step
		}
		r.ranges[d] = nd.Range{Start: start, Step: step, Count: count}
	}
	return r, nil
}

// step is a slice item's step (0 means 1); negative steps are refused.
func (s Selection) step(it SelItem, d int) (int, error) {
	switch {
	case it.Step == 0:
		return 1, nil
	case it.Step < 0:
		return 0, errs.New(errs.Selection, s.String(), "negative steps are not supported (dimension %d)", d)
	}
	return it.Step, nil
}

// expand gives one item per dimension: "..." and missing trailing items
// become whole dimensions.
func (s Selection) expand(ndim int) ([]SelItem, error) {
	items := s
	ellipses := 0
	explicit := 0
	for _, it := range items {
		if it.Kind == SelEllipsis {
			ellipses++
		} else {
			explicit++
		}
	}
	if ellipses > 1 {
		return nil, errs.New(errs.Selection, s.String(), "at most one \"...\" is allowed")
	}
	if explicit > ndim {
		return nil, errs.New(errs.Selection, s.String(), "%d items for an array of %d dimensions", explicit, ndim)
	}
	var expanded []SelItem
	for _, it := range items {
		if it.Kind == SelEllipsis {
			for k := 0; k < ndim-explicit; k++ {
				expanded = append(expanded, All())
			}
			continue
		}
		expanded = append(expanded, it)
	}
	for len(expanded) < ndim {
		expanded = append(expanded, All())
	}
	return expanded, nil
}

// clampIndex applies NumPy slice bound rules for positive steps.
func clampIndex(i, n int) int {
	if i < 0 {
		i += n
		if i < 0 {
			i = 0
		}
	}
	if i > n {
		i = n
	}
	return i
}
