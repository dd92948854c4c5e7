//go:build !zarrcore

package codec

import (
	"encoding/base64"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// Two codecs the registry's pull requests propose, in the full build:
// "pad" (pull request 36: fixed bytes before or after a chunk, such as a
// TIFF or N5 header; reading drops them) and "singleton_dim" (pull request
// 58: dimensions of size 1 inserted or removed; the elements do not move).

func init() {
	Register(newPad, "pad")
	Register(newSingletonDim, "singleton_dim")
}

type padCodec struct {
	atStart bool
	n       int
	padding []byte
}

type padConfig struct {
	Location string  `json:"location"`
	NBytes   *int    `json:"nbytes"`
	Padding  *string `json:"padding"`
}

func (c *padConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("location", &c.Location), jsonx.F("nbytes", &c.NBytes), jsonx.F("padding", &c.Padding)}
}

// maxPad bounds the padding a document can ask for (headers are small).
const maxPad = 1 << 20

func newPad(cfg jsonx.RawMessage, _ Spec) (any, error) {
	var c padConfig
	if err := StrictConfig(cfg, &c); err != nil {
		return nil, err
	}
	k := &padCodec{}
	switch c.Location {
	case "start", "end":
		k.atStart = c.Location == "start"
	case "":
		return nil, fmtx.Errorf("configuration needs \"location\" (\"start\" or \"end\")")
	default:
		return nil, fmtx.Errorf("location %q is not \"start\" or \"end\"", c.Location)
	}
	if c.NBytes == nil {
		return nil, fmtx.Errorf("configuration needs \"nbytes\"")
	}
	if *c.NBytes < 0 || *c.NBytes > maxPad {
		return nil, fmtx.Errorf("nbytes %d is not between 0 and %d", *c.NBytes, maxPad)
	}
	k.n = *c.NBytes
	k.padding = make([]byte, k.n)
	if c.Padding != nil {
		p, err := base64.StdEncoding.DecodeString(*c.Padding)
		if err != nil {
			return nil, fmtx.Errorf("padding is not base64: %v", err)
		}
		if len(p) != k.n {
			return nil, fmtx.Errorf("padding has %d bytes, nbytes says %d", len(p), k.n)
		}
		k.padding = p
	}
	return k, nil
}

func (k *padCodec) Encode(b []byte) ([]byte, error) {
	out := make([]byte, 0, len(b)+k.n)
	if k.atStart {
		return append(append(out, k.padding...), b...), nil
	}
	return append(append(out, b...), k.padding...), nil
}

func (k *padCodec) Decode(b []byte) ([]byte, error) {
	if len(b) < k.n {
		return nil, Corrupt("pad", "a chunk of %d bytes is shorter than its %d bytes of padding", len(b), k.n)
	}
	if k.atStart {
		return b[k.n:], nil
	}
	return b[:len(b)-k.n], nil
}

// EncodedSize: the padding adds nbytes to any input.
func (k *padCodec) EncodedSize(n int) (int, bool) { return n + k.n, true }

// singletonDimCodec applies its operations in order when encoding, and
// their inverses in reverse order when decoding.
type singletonDimCodec struct {
	ops []singletonOp
}

type singletonOp struct {
	insert bool
	at     int
}

type singletonConfig struct {
	Operations []map[string]jsonx.RawMessage `json:"operations"`
}

func (c *singletonConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("operations", &c.Operations)}
}

func newSingletonDim(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c singletonConfig
	if err := StrictConfig(cfg, &c); err != nil {
		return nil, err
	}
	if c.Operations == nil {
		return nil, fmtx.Errorf("configuration needs \"operations\"")
	}
	k := &singletonDimCodec{}
	for i, op := range c.Operations {
		if len(op) != 1 {
			return nil, fmtx.Errorf("operations[%d] must have exactly one member, \"insert\" or \"remove\"", i)
		}
		for key, raw := range op {
			if key != "insert" && key != "remove" {
				return nil, fmtx.Errorf("operations[%d]: %q is not \"insert\" or \"remove\"", i, key)
			}
			var at int
			if err := jsonx.UnmarshalStrict(raw, &at); err != nil || at < 0 {
				return nil, fmtx.Errorf("operations[%d].%s must be an unsigned integer, got %s", i, key, short(raw))
			}
			k.ops = append(k.ops, singletonOp{insert: key == "insert", at: at})
		}
	}
	if in.Shape != nil {
		if _, err := k.encodedShape(in.Shape); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func (k *singletonDimCodec) encodedShape(in []int) ([]int, error) {
	shape := append([]int(nil), in...)
	for i, op := range k.ops {
		var err error
		if shape, err = op.apply(shape, op.insert); err != nil {
			return nil, fmtx.Errorf("operations[%d]: %v (chunk shape %v)", i, err, in)
		}
	}
	return shape, nil
}

// apply inserts (or removes) a dimension of size 1 at op.at.
func (op singletonOp) apply(shape []int, insert bool) ([]int, error) {
	if insert {
		if op.at > len(shape) {
			return nil, fmtx.Errorf("cannot insert at %d into %d dimensions", op.at, len(shape))
		}
		return append(shape[:op.at], append([]int{1}, shape[op.at:]...)...), nil
	}
	if op.at >= len(shape) {
		return nil, fmtx.Errorf("cannot remove dimension %d of %d", op.at, len(shape))
	}
	if shape[op.at] != 1 {
		return nil, fmtx.Errorf("dimension %d has size %d, not 1", op.at, shape[op.at])
	}
	return append(shape[:op.at], shape[op.at+1:]...), nil
}

func (k *singletonDimCodec) Encoded(in Spec) (Spec, error) {
	shape, err := k.encodedShape(in.Shape)
	if err != nil {
		return Spec{}, err
	}
	in.Shape = shape
	return in, nil
}

func (k *singletonDimCodec) Encode(a *nd.Array) (*nd.Array, error) {
	shape, err := k.encodedShape(a.Shape())
	if err != nil {
		return nil, err
	}
	return a.Reshape(shape)
}

func (k *singletonDimCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	shape := append([]int(nil), a.Shape()...)
	for i := len(k.ops) - 1; i >= 0; i-- {
		var err error
		if shape, err = k.ops[i].apply(shape, !k.ops[i].insert); err != nil {
			return nil, Corrupt("singleton_dim", "operations[%d] undone: %v", i, err)
		}
	}
	if a.Len() != nd.Size(out.Shape) || len(shape) != len(out.Shape) {
		return nil, Corrupt("singleton_dim", "decoded shape %v for a chunk of shape %v", shape, out.Shape)
	}
	return a.Reshape(out.Shape)
}
