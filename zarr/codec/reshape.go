//go:build !zarrcore

package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// Codecs that change a chunk's shape and keep its elements in C order (the
// bytes do not move): the registry's "reshape" and zarrs' "zarrs.squeeze"
// (every dimension of size 1 dropped; the reshape codec supersedes it).
// Both are in the full build only (few arrays use them: 28 KB less in the
// core build).

func init() {
	Register(newReshape, "reshape")
	Register(newSqueeze, "zarrs.squeeze")
}

// reshapeCodec: each output dimension is a size, -1 (what the others leave)
// or the list of input dimensions whose sizes multiply into it.
type reshapeCodec struct {
	dims []reshapeDim
}

type reshapeDim struct {
	size   int   // > 0, or -1; unused when inputs is set
	inputs []int // input dimensions, when given as a list
	list   bool
}

type reshapeConfig struct {
	Shape []jsonx.RawMessage `json:"shape"`
}

func (c *reshapeConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("shape", &c.Shape)}
}

func newReshape(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c reshapeConfig
	if err := StrictConfig(cfg, &c); err != nil {
		return nil, err
	}
	if c.Shape == nil {
		return nil, fmtx.Errorf("configuration needs \"shape\"")
	}
	k := &reshapeCodec{}
	auto, last := false, -1
	for i, raw := range c.Shape {
		var d reshapeDim
		if jsonx.UnmarshalStrict(raw, &d.size) == nil {
			if d.size == 0 || d.size < -1 {
				return nil, fmtx.Errorf("shape[%d] is %d: a size is positive, or -1", i, d.size)
			}
			if d.size == -1 {
				if auto {
					return nil, fmtx.Errorf("shape has -1 more than once")
				}
				auto = true
			}
		} else if jsonx.UnmarshalStrict(raw, &d.inputs) == nil {
			d.list = true
			for _, n := range d.inputs {
				if n <= last {
					return nil, fmtx.Errorf("shape[%d]: the input dimensions of all entries must increase (%d after %d)", i, n, last)
				}
				last = n
			}
		} else {
			return nil, fmtx.Errorf("shape[%d] must be a size, -1 or a list of input dimensions, got %s", i, short(raw))
		}
		k.dims = append(k.dims, d)
	}
	if len(k.dims) == 0 {
		return nil, fmtx.Errorf("shape is empty")
	}
	if in.Shape != nil {
		if _, err := k.outShape(in.Shape); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// outShape is the encoded shape of a chunk of shape in.
func (k *reshapeCodec) outShape(in []int) ([]int, error) {
	out := make([]int, len(k.dims))
	auto := -1
	known := 1
	for i, d := range k.dims {
		switch {
		case d.list:
			n := 1
			for _, j := range d.inputs {
				if j >= len(in) {
					return nil, fmtx.Errorf("shape[%d] names input dimension %d of a %d-dimensional chunk", i, j, len(in))
				}
				n *= in[j]
			}
			out[i] = n
		case d.size == -1:
			auto = i
			continue
		default:
			out[i] = d.size
		}
		known *= out[i]
	}
	total := nd.Size(in)
	if auto >= 0 {
		if known == 0 || total%known != 0 {
			return nil, fmtx.Errorf("shape %v cannot hold the %d elements of a chunk of shape %v", k.describe(), total, in)
		}
		out[auto] = total / known
		known *= out[auto]
	}
	if known != total {
		return nil, fmtx.Errorf("shape %v has %d elements, a chunk of shape %v has %d", k.describe(), known, in, total)
	}
	// An entry given as input dimensions must cover exactly their span.
	for i, d := range k.dims {
		if !d.list || len(d.inputs) == 0 {
			continue
		}
		before, after := nd.Size(out[:i]), nd.Size(out[i+1:])
		if before != nd.Size(in[:d.inputs[0]]) || after != nd.Size(in[d.inputs[len(d.inputs)-1]+1:]) {
			return nil, fmtx.Errorf("shape[%d] %v: the dimensions before and after it do not match the input's around those dimensions (chunk shape %v)", i, d.inputs, in)
		}
	}
	return out, nil
}

func (k *reshapeCodec) describe() []any {
	out := make([]any, len(k.dims))
	for i, d := range k.dims {
		if d.list {
			out[i] = d.inputs
		} else {
			out[i] = d.size
		}
	}
	return out
}

func (k *reshapeCodec) Encoded(in Spec) (Spec, error) {
	shape, err := k.outShape(in.Shape)
	if err != nil {
		return Spec{}, err
	}
	in.Shape = shape
	return in, nil
}

func (k *reshapeCodec) Encode(a *nd.Array) (*nd.Array, error) {
	shape, err := k.outShape(a.Shape())
	if err != nil {
		return nil, err
	}
	return a.Reshape(shape)
}

func (k *reshapeCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if a.Len() != nd.Size(out.Shape) {
		return nil, Corrupt("reshape", "%d elements decoded for a chunk of shape %v", a.Len(), out.Shape)
	}
	return a.Reshape(out.Shape)
}

// squeezeCodec drops every dimension of size 1 (a chunk of only such
// dimensions becomes shape [1]).
type squeezeCodec struct{}

type emptyConfig struct{}

func (*emptyConfig) JSONFields() []jsonx.Field { return nil }

func newSqueeze(cfg jsonx.RawMessage, _ Spec) (any, error) {
	if err := StrictConfig(cfg, &emptyConfig{}); err != nil {
		return nil, err
	}
	return squeezeCodec{}, nil
}

func squeezed(in []int) []int {
	var out []int
	for _, n := range in {
		if n != 1 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = []int{1}
	}
	return out
}

func (squeezeCodec) Encoded(in Spec) (Spec, error) {
	in.Shape = squeezed(in.Shape)
	return in, nil
}

func (squeezeCodec) Encode(a *nd.Array) (*nd.Array, error) { return a.Reshape(squeezed(a.Shape())) }

func (squeezeCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if a.Len() != nd.Size(out.Shape) {
		return nil, Corrupt("zarrs.squeeze", "%d elements decoded for a chunk of shape %v", a.Len(), out.Shape)
	}
	return a.Reshape(out.Shape)
}
