package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// transposeCodec permutes dimensions: encoded.shape[i] = in.shape[order[i]].
// v2 order "F" is a transpose with the reversed permutation.
type transposeCodec struct{ order []int }

func init() { Register(newTranspose, "transpose") }

type transposeConfig struct {
	Order jsonx.RawMessage `json:"order"`
}

func (c *transposeConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("order", &c.Order)}
}

func newTranspose(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c transposeConfig
	if err := ParseConfig(cfg, &c); err != nil {
		return nil, err
	}
	n := len(in.Shape)
	var order []int
	var s string
	if jsonx.UnmarshalStrict(c.Order, &s) == nil {
		// Legacy forms written before the spec settled on permutations.
		order = make([]int, n)
		for i := range order {
			switch s {
			case "C":
				order[i] = i
			case "F":
				order[i] = n - 1 - i
			default:
				return nil, fmtx.Errorf("order must be a permutation, \"C\" or \"F\", got %q", s)
			}
		}
	} else if err := jsonx.UnmarshalStrict(c.Order, &order); err != nil {
		return nil, fmtx.Errorf("order must be a list of dimension indices")
	}
	if len(order) != n {
		return nil, fmtx.Errorf("order %v has %d entries, the array has %d dimensions", order, len(order), n)
	}
	seen := make([]bool, n)
	for _, p := range order {
		if p < 0 || p >= n || seen[p] {
			return nil, fmtx.Errorf("order %v is not a permutation of 0..%d", order, n-1)
		}
		seen[p] = true
	}
	return &transposeCodec{order: order}, nil
}

// Transpose returns the transpose codec for a permutation.
func Transpose(order []int) ArrayToArray { return &transposeCodec{order: order} }

func (c *transposeCodec) Encoded(in Spec) (Spec, error) {
	shape := make([]int, len(c.order))
	for i, p := range c.order {
		shape[i] = in.Shape[p]
	}
	in.Shape = shape
	return in, nil
}

func (c *transposeCodec) Encode(a *nd.Array) (*nd.Array, error) {
	return nd.Transpose(a, c.order), nil
}

func (c *transposeCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	return nd.Transpose(a, nd.InversePermutation(c.order)), nil
}
