package codec

import (
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// categorizeCodec is numcodecs "categorize": each string becomes the
// 1-based index of the label it equals (the last one, if labels repeat), 0
// when none matches; decoding maps indices back to labels and anything else
// to "". dtype is a NumPy unicode type ("<U5") or object ("|O").
type categorizeCodec struct {
	labels []string
	dt     *dtype.DataType // Unicode or Object, in memory
	as     *dtype.DataType // in memory
	an     ntype
	// cfgDT, cfgAs are the types as configured, with their byte orders.
	cfgDT, cfgAs *dtype.DataType
}

// ViewTypes returns dtype and astype as configured.
func (c *categorizeCodec) ViewTypes() (in, out *dtype.DataType) { return c.cfgDT, c.cfgAs }

func init() { Register(newCategorize, "numcodecs.categorize") }

func newCategorize(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	c := &categorizeCodec{}
	if c.dt, err = parseFilterDType(m["dtype"], "dtype"); err != nil {
		return nil, err
	}
	if c.dt.Kind != dtype.Unicode && c.dt.Kind != dtype.Object {
		return nil, fmtx.Errorf("dtype must be a unicode ('U') or object ('O') type, got %s", c.dt)
	}
	if raw := m["astype"]; len(raw) == 0 || string(raw) == "null" {
		c.as = dtype.NewUint(1)
		c.as.Name = "|u1"
	} else if c.as, err = parseFilterDType(raw, "astype"); err != nil {
		return nil, err
	}
	c.cfgDT, c.cfgAs = c.dt, c.as
	c.dt, c.as = memType(c.dt), memType(c.as)
	var ok bool
	if c.an, ok = ntypeOf(c.as); !ok {
		return nil, fmtx.Errorf("astype %s is not a numeric type", c.as)
	}
	if len(m["labels"]) == 0 {
		return nil, fmtx.Errorf("labels is required")
	}
	if err := jsonx.UnmarshalStrict(m["labels"], &c.labels); err != nil {
		return nil, fmtx.Errorf("labels must be a list of strings")
	}
	return c, nil
}

func (c *categorizeCodec) checkInput(t *dtype.DataType) error {
	if c.dt.Kind == dtype.Object {
		if t.Kind != dtype.Object && t.Kind != dtype.String {
			return fmtx.Errorf("categorize with dtype %s needs an object or string array, not %s", c.dt, t)
		}
		return nil
	}
	if t.Variable() {
		return fmtx.Errorf("categorize with dtype %s needs fixed-size unicode elements, not %s", c.dt, t)
	}
	return nil
}

func (c *categorizeCodec) Encoded(in Spec) (Spec, error) {
	if in.DType == nil {
		return Spec{}, fmtx.Errorf("categorize needs a data type")
	}
	if err := c.checkInput(in.DType); err != nil {
		return Spec{}, err
	}
	shape := append([]int(nil), in.Shape...)
	if c.dt.Kind == dtype.Unicode {
		var err error
		if shape, err = viewShape(in.Shape, in.DType, c.dt); err != nil {
			return Spec{}, err
		}
	}
	return Spec{Shape: shape, DType: c.as, Fill: encodeFill(in, c.as, c.Encode)}, nil
}

func (c *categorizeCodec) strings(a *nd.Array) ([]any, []int, error) {
	if err := c.checkInput(a.DType()); err != nil {
		return nil, nil, err
	}
	if c.dt.Kind == dtype.Object {
		objs, _ := a.Objects()
		return objs, a.Shape(), nil
	}
	v, err := viewArray(a, c.dt)
	if err != nil {
		return nil, nil, err
	}
	n, w := v.Len(), c.dt.Size
	vals := make([]any, n)
	for i := 0; i < n; i++ {
		vals[i] = dtype.UnicodeString(v.Bytes()[i*w : (i+1)*w])
	}
	return vals, v.Shape(), nil
}

func (c *categorizeCodec) Encode(a *nd.Array) (*nd.Array, error) {
	vals, shape, err := c.strings(a)
	if err != nil {
		return nil, err
	}
	index := map[string]int64{}
	for i, l := range c.labels {
		index[l] = int64(i + 1) // later duplicates win, as in numcodecs
	}
	as := c.as.Size
	out := make([]byte, len(vals)*as)
	i64 := ntype{'i', 8}
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue // only strings can equal a label
		}
		if k, ok := index[s]; ok {
			store(c.an, out[i*as:], cast(num{i: k}, i64, c.an))
		}
	}
	return nd.FromBytes(c.as, shape, out)
}

// label returns the label an encoded value stands for ("" for none).
func (c *categorizeCodec) label(v num) string {
	var k int64
	switch c.an.kind {
	case 'i':
		k = v.i
	case 'u', 'b':
		if v.u > uint64(len(c.labels)) {
			return ""
		}
		k = int64(v.u)
	default:
		f := v.f
		if c.an.kind == 'c' && v.im != 0 {
			return ""
		}
		if f != float64(int64(f)) || f < 1 || f > float64(len(c.labels)) {
			return ""
		}
		k = int64(f)
	}
	if k < 1 || k > int64(len(c.labels)) {
		return ""
	}
	return c.labels[k-1]
}

func (c *categorizeCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if a.DType().Variable() || a.DType().Size != c.as.Size {
		return nil, Corrupt("categorize", "expected %s elements, got %s", c.as, a.DType())
	}
	n := a.Len()
	src := a.Bytes()
	as := c.as.Size
	if c.dt.Kind == dtype.Object {
		if !out.DType.Variable() {
			return nil, Corrupt("categorize", "cannot decode object labels into %s", out.DType)
		}
		if n != nd.Size(out.Shape) {
			return nil, Corrupt("categorize", "%d elements, expected %d", n, nd.Size(out.Shape))
		}
		vals := make([]any, n)
		for i := range vals {
			vals[i] = c.label(load(c.an, src[i*as:]))
		}
		return nd.FromObjects(out.DType, out.Shape, vals)
	}
	w := c.dt.Size
	dec := make([]byte, n*w)
	for i := 0; i < n; i++ {
		// NumPy truncates a label longer than the unicode width.
		s := truncateRunes(c.label(load(c.an, src[i*as:])), w/4)
		_ = dtype.PutUnicode(dec[i*w:(i+1)*w], s)
	}
	return finish("categorize", dec, out)
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
