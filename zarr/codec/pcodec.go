//go:build !zarrcore

package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec/pcodec"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// pcodecCodec is numcodecs' PCodec ("pcodec" in v2, "numcodecs.pcodec" in
// v3) and zarrs' pcodec codec (also "pcodec" in v3 before zarrs 0.20): an
// array→bytes codec storing a chunk as one standalone pco file. The stream
// describes itself, so no configuration member changes decoding; they only
// steer encoding.
type pcodecCodec struct {
	opts   pcodec.Options
	optErr error // a configuration the writer would refuse when encoding
}

func init() {
	Register(newPcodec, "numcodecs.pcodec")
}

func newPcodec(cfg jsonx.RawMessage, in Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	if in.DType != nil {
		if _, _, err := pcodecElement(in.DType); err != nil {
			return nil, err
		}
	}
	c := &pcodecCodec{}
	c.opts, c.optErr = pcodecOptions(m)
	return c, nil
}

// pcodecOptions reads the members numcodecs (every version) and zarrs write:
// level, mode_spec, delta_spec, paging_spec, delta_encoding_order,
// equal_pages_up_to, and the older int_mult_spec, float_mult_spec and
// max_page_n.
func pcodecOptions(m map[string]jsonx.RawMessage) (pcodec.Options, error) {
	o := pcodec.DefaultOptions()
	var err error
	if o.Level, err = intOption(m["level"], "level", o.Level); err != nil {
		return o, err
	}
	mode, err := stringOption(m["mode_spec"], "mode_spec", "auto")
	if err != nil {
		return o, err
	}
	switch mode {
	case "auto":
	case "classic":
		o.Classic = true
	default:
		return o, fmtx.Errorf("mode_spec %q is not supported (auto, classic)", mode)
	}
	for _, k := range []string{"int_mult_spec", "float_mult_spec"} { // numcodecs 0.12, zarrs < 0.12
		if raw, ok := m[k]; ok {
			var s string
			var b bool
			if jsonx.UnmarshalStrict(raw, &s) == nil && s == "disabled" || jsonx.UnmarshalStrict(raw, &b) == nil && !b {
				o.Classic = true
			}
		}
	}
	order := -1
	if raw := m["delta_encoding_order"]; len(raw) > 0 && string(raw) != "null" {
		if order, err = intOption(raw, "delta_encoding_order", 0); err != nil {
			return o, err
		}
		if order < 0 || order > 7 {
			return o, fmtx.Errorf("delta_encoding_order must be 0 to 7, got %d", order)
		}
	}
	delta, err := stringOption(m["delta_spec"], "delta_spec", "auto")
	if err != nil {
		return o, err
	}
	switch {
	case delta == "auto" && order >= 0, delta == "try_consecutive":
		// numcodecs: an order with delta_spec auto is the older way of
		// asking for try_consecutive.
		o.Delta, o.DeltaOrder = pcodec.DeltaConsecutive, max(order, 0)
	case order >= 0:
		return o, fmtx.Errorf("delta_encoding_order can only be set for delta_spec \"try_consecutive\", not %q", delta)
	case delta == "auto":
		o.Delta = pcodec.DeltaAuto
	case delta == "none", delta == "no_op":
		o.Delta = pcodec.DeltaNoOp
	case delta == "try_lookback":
		o.Delta = pcodec.DeltaLookback
	default:
		return o, fmtx.Errorf("delta_spec %q is not supported (auto, no_op, none, try_consecutive, try_lookback)", delta)
	}
	paging, err := stringOption(m["paging_spec"], "paging_spec", "equal_pages_up_to")
	if err != nil {
		return o, err
	}
	if paging != "equal_pages_up_to" {
		return o, fmtx.Errorf("paging_spec %q is not supported (equal_pages_up_to)", paging)
	}
	pageKey := "equal_pages_up_to"
	if _, ok := m[pageKey]; !ok {
		pageKey = "max_page_n" // zarrs < 0.15
	}
	if o.MaxPageN, err = intOption(m[pageKey], pageKey, o.MaxPageN); err != nil {
		return o, err
	}
	return o, o.Validate()
}

// pcodecElement maps a data type to the pco number type storing it and how
// many numbers make one element (complex numbers are stored as their real
// and imaginary parts, datetimes as int64 ticks, as zarrs does).
func pcodecElement(t *dtype.DataType) (pcodec.NumberType, int, error) {
	if t.Kind == dtype.Complex {
		if nt, n, err := pcodecElement(t.ComplexPart()); err == nil && n == 1 {
			return nt, 2, nil
		}
	} else if t.Format == "" {
		switch t.Kind {
		case dtype.Int, dtype.Uint, dtype.Float:
			ints := map[int]pcodec.NumberType{1: pcodec.I8, 2: pcodec.I16, 4: pcodec.I32, 8: pcodec.I64}
			uints := map[int]pcodec.NumberType{1: pcodec.U8, 2: pcodec.U16, 4: pcodec.U32, 8: pcodec.U64}
			floats := map[int]pcodec.NumberType{2: pcodec.F16, 4: pcodec.F32, 8: pcodec.F64}
			nt, ok := map[dtype.Kind]map[int]pcodec.NumberType{dtype.Int: ints, dtype.Uint: uints, dtype.Float: floats}[t.Kind][t.Size]
			if ok {
				return nt, 1, nil
			}
		case dtype.Datetime, dtype.Timedelta:
			return pcodec.I64, 1, nil
		}
	}
	return 0, 0, errs.New(errs.Unsupported, "pcodec", "pcodec cannot store %s (it stores integers, floats, complex numbers and datetimes)", t)
}

func (c *pcodecCodec) Decode(b []byte, out Spec) (*nd.Array, error) {
	nt, _, err := pcodecElement(out.DType)
	if err != nil {
		return nil, err
	}
	n, ok := nd.CheckedSize(out.Shape, out.DType.Size)
	if !ok || n > maxDecodedSize {
		return nil, Corrupt("pcodec", "chunk of shape %v is too large", out.Shape)
	}
	dst := make([]byte, n)
	if err := pcodec.Decode(b, nt, dst); err != nil {
		return nil, Corrupt("pcodec", "chunk of %d bytes (%d %s numbers expected): %v", len(b), n/nt.Size(), nt, err)
	}
	return nd.FromBytes(out.DType, out.Shape, dst)
}

func (c *pcodecCodec) Encode(a *nd.Array) ([]byte, error) {
	if c.optErr != nil {
		return nil, errs.New(errs.InvalidMetadata, "pcodec", "%v", c.optErr)
	}
	nt, _, err := pcodecElement(a.DType())
	if err != nil {
		return nil, err
	}
	out, err := pcodec.Encode(nt, a.Bytes(), c.opts)
	if err != nil {
		return nil, errs.New(errs.Codec, "pcodec", "%v", err)
	}
	return out, nil
}
