//go:build !zarrcore

package codec

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec/zfp"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// zfpCodec is ZFP compression of a chunk (package zfp) as an array→bytes
// codec: numcodecs' "zfpy" (the v2 compressor; "numcodecs.zfpy" in v3),
// whose streams carry zfp's header, and zarrs' "zfp", whose streams do not
// (the mode is in the configuration).
//
// zfp takes float32, float64, int32 and int64; 8- and 16-bit integers and
// unsigned integers are promoted to int32/int64 as zarrs does (zfp's
// promotion functions), so arrays zarrs writes read back.
type zfpCodec struct {
	name   string
	header bool
	// wordBits pads the end of a stream: zfpy's streams end on a byte as
	// Debian's zfpy writes them (PyPI's pads to 8 bytes; both read alike),
	// zarrs' on a 64-bit word as its zfp build does.
	wordBits int
	native   zfp.Type
	dt       *dtype.DataType
	// params gives the encoding parameters for chunks of dims dimensions;
	// for a headerless stream also the decoding ones.
	params func(dims int) (zfp.Params, error)
}

func init() {
	Register(newZfpy, "numcodecs.zfpy")
	Register(newZarrsZfp, "zfp")
}

// zfpNative is the zfp type a data type is coded as.
func zfpNative(t *dtype.DataType) (zfp.Type, error) {
	if t != nil && t.Endian != dtype.Big && t.Format == "" {
		switch {
		case t.Kind == dtype.Float && t.Size == 4:
			return zfp.Float, nil
		case t.Kind == dtype.Float && t.Size == 8:
			return zfp.Double, nil
		case t.Kind == dtype.Int && t.Size <= 4, t.Kind == dtype.Uint && t.Size <= 4:
			return zfp.Int32, nil
		case t.Kind == dtype.Int && t.Size == 8, t.Kind == dtype.Uint && t.Size == 8,
			t.Kind == dtype.Datetime, t.Kind == dtype.Timedelta: // their int64 ticks, as zarrs codes them
			return zfp.Int64, nil
		}
	}
	return 0, errs.New(errs.Unsupported, "zfp", "ZFP compresses little-endian float32, float64, (8- to 64-bit) integers and datetimes, not %s", t)
}

// zfpyModes are numcodecs' zfpy mode numbers (zfp_mode).
const (
	zfpyRate       = 2
	zfpyPrecision  = 3
	zfpyAccuracy   = 4
	zfpyReversible = 5 // zarrs writes it; numcodecs reaches it with the others' -1
)

func newZfpy(cfg jsonx.RawMessage, in Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	mode, err := intOption(m["mode"], "mode", zfpyAccuracy)
	if err != nil {
		return nil, err
	}
	tolerance, err := floatOption(m["tolerance"], "tolerance", -1)
	if err != nil {
		return nil, err
	}
	rate, err := floatOption(m["rate"], "rate", -1)
	if err != nil {
		return nil, err
	}
	precision, err := intOption(m["precision"], "precision", -1)
	if err != nil {
		return nil, err
	}
	native, err := zfpNative(in.DType)
	if err != nil {
		return nil, err
	}
	c := &zfpCodec{name: "zfpy", header: true, wordBits: 8, native: native, dt: in.DType}
	c.params = func(dims int) (zfp.Params, error) {
		// numcodecs passes zfpy only the parameter of its mode; zfpy takes
		// the first of tolerance, rate, precision that is not negative, and
		// reversible mode when none is.
		tol, r, prec := -1.0, -1.0, -1
		switch mode {
		case zfpyAccuracy:
			tol = tolerance
		case zfpyRate:
			r = rate
		case zfpyPrecision:
			prec = precision
		case zfpyReversible:
		default:
			return zfp.Params{}, errs.New(errs.Unsupported, "zfpy", "cannot encode with zfpy mode %d (numcodecs encodes modes 2, 3 and 4, zarrs also 5)", mode)
		}
		switch {
		case tol >= 0:
			return zfp.FixedAccuracy(tol), nil
		case r >= 0:
			return zfp.FixedRate(r, 0, dims), nil
		case prec >= 0:
			return zfp.FixedPrecision(uint32(prec)), nil
		}
		return zfp.Reversible(), nil
	}
	return c, nil
}

func newZarrsZfp(cfg jsonx.RawMessage, in Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	mode, err := stringOption(m["mode"], "mode", "")
	if err != nil {
		return nil, err
	}
	native, err := zfpNative(in.DType)
	if err != nil {
		return nil, err
	}
	if len(in.Shape) < 1 || len(in.Shape) > 4 {
		return nil, errs.New(errs.Unsupported, "zfp", "zfp takes chunks of 1 to 4 dimensions, not %d", len(in.Shape))
	}
	uint32Of := func(name string) (uint32, error) {
		v, err := intOption(m[name], name, -1)
		if err == nil && (v < 0 || m[name] == nil) {
			err = fmtx.Errorf("%s must be a non-negative integer, got %s", name, orMissing(m[name]))
		}
		return uint32(v), err
	}
	var p zfp.Params
	switch mode {
	case "fixed_rate":
		rate, err := floatOption(m["rate"], "rate", math.NaN())
		if err != nil || !(rate >= 0) {
			return nil, fmtx.Errorf("rate must be a non-negative number, got %s", orMissing(m["rate"]))
		}
		// zarrs sets the rate for 3-d blocks whatever the chunk's dimensions.
		p = zfp.FixedRate(rate, native, 3)
	case "fixed_precision":
		prec, err := uint32Of("precision")
		if err != nil {
			return nil, err
		}
		p = zfp.FixedPrecision(prec)
	case "fixed_accuracy":
		tol, err := floatOption(m["tolerance"], "tolerance", math.NaN())
		if err != nil || math.IsNaN(tol) {
			return nil, fmtx.Errorf("tolerance must be a number, got %s", orMissing(m["tolerance"]))
		}
		if native != zfp.Float && native != zfp.Double {
			return nil, errs.New(errs.Unsupported, "zfp", "fixed_accuracy mode takes float32 or float64, not %s", in.DType)
		}
		p = zfp.FixedAccuracy(tol)
	case "reversible":
		p = zfp.Reversible()
	case "expert":
		var v [3]uint32
		for i, name := range []string{"minbits", "maxbits", "maxprec"} {
			if v[i], err = uint32Of(name); err != nil {
				return nil, err
			}
		}
		minexp, err := intOption(m["minexp"], "minexp", math.MinInt32)
		if err != nil || minexp == math.MinInt32 {
			return nil, fmtx.Errorf("minexp must be an integer, got %s", orMissing(m["minexp"]))
		}
		if p, err = zfp.Expert(v[0], v[1], v[2], int32(minexp)); err != nil {
			return nil, err
		}
	default:
		modes := []string{"expert", "fixed_rate", "fixed_precision", "fixed_accuracy", "reversible"}
		return nil, errs.New(errs.InvalidMetadata, "zfp", "mode must be one of %s, got %s", strings.Join(modes, ", "), orMissing(m["mode"])).WithSuggestion(mode, modes)
	}
	return &zfpCodec{name: "zfp", wordBits: 64, native: native, dt: in.DType,
		params: func(int) (zfp.Params, error) { return p, nil }}, nil
}

func orMissing(raw jsonx.RawMessage) string {
	if raw == nil {
		return "nothing"
	}
	return string(raw)
}

// floatOption reads an optional number (null or absent gives def).
func floatOption(raw jsonx.RawMessage, name string, def float64) (float64, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return def, nil
	}
	var f float64
	if err := jsonx.UnmarshalStrict(raw, &f); err != nil {
		return 0, fmtx.Errorf("%s must be a number, got %s", name, s)
	}
	return f, nil
}

func (c *zfpCodec) fail(err error) error {
	if e, ok := err.(*errs.Error); ok {
		e.Where = c.name
		return e
	}
	return errs.Wrap(errs.Codec, c.name, err, "")
}

func (c *zfpCodec) Decode(b []byte, out Spec) (*nd.Array, error) {
	n := nd.Size(out.Shape)
	var data []byte
	if c.header {
		var err error
		if data, _, err = zfp.DecodeWithHeader(b, c.native, n); err != nil {
			return nil, c.fail(err)
		}
	} else {
		p, err := c.params(len(out.Shape))
		if err != nil {
			return nil, c.fail(err)
		}
		data = make([]byte, n*c.native.Size())
		if err := zfp.Decode(data, b, 0, zfp.Field{Type: c.native, Shape: out.Shape}, p); err != nil {
			return nil, c.fail(err)
		}
	}
	return nd.FromBytes(out.DType, out.Shape, zfpDemote(c.dt, data))
}

func (c *zfpCodec) Encode(a *nd.Array) ([]byte, error) {
	shape := a.Shape()
	p, err := c.params(len(shape))
	if err != nil {
		return nil, c.fail(err)
	}
	out, err := zfp.Encode(nil, zfpPromote(c.dt, a.Bytes()), zfp.Field{Type: c.native, Shape: shape}, p, c.header, c.wordBits)
	if err != nil {
		return nil, c.fail(err)
	}
	return out, nil
}

// zfpPromote turns 8- to 32-bit integers into zfp's int32 and unsigned 64-bit
// ones into int64 (zfp_promote_*; unsigned 32/64-bit values clamped).
func zfpPromote(t *dtype.DataType, b []byte) []byte {
	le := binary.LittleEndian
	n := len(b) / t.Size
	switch {
	case t.Size == 8 && t.Kind == dtype.Uint:
		out := make([]byte, 8*n)
		for i := 0; i < n; i++ {
			le.PutUint64(out[8*i:], min(le.Uint64(b[8*i:]), math.MaxInt64))
		}
		return out
	case t.Size == 4 && t.Kind == dtype.Uint:
		out := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			le.PutUint32(out[4*i:], min(le.Uint32(b[4*i:]), math.MaxInt32))
		}
		return out
	case t.Size >= 4:
		return b
	}
	out := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		var v int32
		switch {
		case t.Size == 1 && t.Kind == dtype.Int:
			v = int32(int8(b[i])) << 23
		case t.Size == 1:
			v = (int32(b[i]) - 0x80) << 23
		case t.Kind == dtype.Int:
			v = int32(int16(le.Uint16(b[2*i:]))) << 15
		default:
			v = (int32(le.Uint16(b[2*i:])) - 0x8000) << 15
		}
		le.PutUint32(out[4*i:], uint32(v))
	}
	return out
}

// zfpDemote inverts zfpPromote, clamping values zfp's error pushed out of range.
func zfpDemote(t *dtype.DataType, b []byte) []byte {
	le := binary.LittleEndian
	switch {
	case t.Size == 8 && t.Kind == dtype.Uint:
		for i := 0; i+8 <= len(b); i += 8 {
			le.PutUint64(b[i:], uint64(max(int64(le.Uint64(b[i:])), 0)))
		}
		return b
	case t.Size == 4 && t.Kind == dtype.Uint:
		for i := 0; i+4 <= len(b); i += 4 {
			le.PutUint32(b[i:], uint32(max(int32(le.Uint32(b[i:])), 0)))
		}
		return b
	case t.Size >= 4:
		return b
	}
	n := len(b) / 4
	out := make([]byte, n*t.Size)
	for i := 0; i < n; i++ {
		v := int32(le.Uint32(b[4*i:]))
		switch {
		case t.Size == 1 && t.Kind == dtype.Int:
			out[i] = byte(int8(min(max(v>>23, -0x80), 0x7f)))
		case t.Size == 1:
			out[i] = byte(min(max((v>>23)+0x80, 0), 0xff))
		case t.Kind == dtype.Int:
			le.PutUint16(out[2*i:], uint16(int16(min(max(v>>15, -0x8000), 0x7fff))))
		default:
			le.PutUint16(out[2*i:], uint16(min(max((v>>15)+0x8000, 0), 0xffff)))
		}
	}
	return out
}
