package codec

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// json2Codec is numcodecs "json2": the chunk as nested JSON lists (C order)
// followed by the NumPy dtype string and the shape, encoded as UTF-8, e.g.
// [["a","b"],["c","d"],"|O",[2,2]]. Encoding reproduces Python's json
// module byte for byte (sort_keys, ensure_ascii, separators, indent, float
// repr, NaN/Infinity). Decoded values: nil, bool, int64 (uint64 or float64
// beyond the int64 range), float64, string, []any, map[string]any.
type json2Codec struct {
	ensureASCII bool
	sortKeys    bool
	allowNaN    bool
	itemSep     string
	keySep      string
	indent      *string
}

func init() { Register(newJSON2, "numcodecs.json2") }

func newJSON2(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	enc, err := stringOption(m["encoding"], "encoding", "utf-8")
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(strings.ReplaceAll(enc, "_", "-")) {
	case "utf-8", "utf8", "ascii", "us-ascii":
	default:
		return nil, errs.New(errs.Unsupported, "json2", "text encoding %q is not supported (only utf-8)", enc)
	}
	c := &json2Codec{}
	if c.ensureASCII, err = boolOption(m["ensure_ascii"], "ensure_ascii", true); err != nil {
		return nil, err
	}
	if c.sortKeys, err = boolOption(m["sort_keys"], "sort_keys", true); err != nil {
		return nil, err
	}
	if c.allowNaN, err = boolOption(m["allow_nan"], "allow_nan", true); err != nil {
		return nil, err
	}
	if raw := strings.TrimSpace(string(m["indent"])); raw != "" && raw != "null" {
		var n int
		var s string
		var b bool
		switch {
		case jsonx.UnmarshalStrict(m["indent"], &n) == nil:
			s = strings.Repeat(" ", max(n, 0))
		case jsonx.UnmarshalStrict(m["indent"], &b) == nil:
			// Python's bool is an int: indent=True is 1 space, False 0
			// (newlines only), as the json module writes them.
			if b {
				s = " "
			}
		case jsonx.UnmarshalStrict(m["indent"], &s) == nil:
		default:
			return nil, fmtx.Errorf("indent must be null, an integer, a boolean or a string")
		}
		c.indent = &s
	}
	c.itemSep, c.keySep = ",", ":"
	if c.indent != nil {
		c.itemSep, c.keySep = ", ", ": "
	}
	if raw := strings.TrimSpace(string(m["separators"])); raw != "" && raw != "null" {
		var seps []string
		if err := jsonx.UnmarshalStrict(m["separators"], &seps); err != nil || len(seps) != 2 {
			return nil, fmtx.Errorf("separators must be a pair of strings")
		}
		c.itemSep, c.keySep = seps[0], seps[1]
	}
	return c, nil
}

// ---- encoding ----

func (c *json2Codec) Encode(a *nd.Array) ([]byte, error) {
	items, err := listItems("json2", a)
	if err != nil {
		return nil, err
	}
	w := &pyJSONWriter{c: c}
	if err := w.value(items, 0); err != nil {
		return nil, fmtx.Errorf("json2: %v", err)
	}
	return []byte(w.sb.String()), nil
}

// listItems is what json2 and msgpack2 serialise: the chunk as nested lists
// (NumPy's tolist()), then the dtype string and the shape.
func listItems(name string, a *nd.Array) ([]any, error) {
	vals, err := listValues(name, a)
	if err != nil {
		return nil, err
	}
	typestr, err := a.DType().V2String()
	if err != nil {
		return nil, fmtx.Errorf("%s: %v", name, err)
	}
	shape := a.Shape()
	items := nestList(vals, shape)
	shapeList := make([]any, len(shape))
	for i, s := range shape {
		shapeList[i] = int64(s)
	}
	return append(items, typestr, shapeList), nil
}

// listValues returns the elements as Python's tolist() gives them.
func listValues(name string, a *nd.Array) ([]any, error) {
	t := a.DType()
	if t.Variable() {
		objs, _ := a.Objects()
		return objs, nil
	}
	n := a.Len()
	vals := make([]any, n)
	if t.Kind == dtype.Unicode {
		strs, _ := a.Strings()
		for i, s := range strs {
			vals[i] = s
		}
		return vals, nil
	}
	nt, ok := ntypeOf(t)
	if !ok || nt.kind == 'c' || t.Kind == dtype.Datetime || t.Kind == dtype.Timedelta {
		return nil, fmtx.Errorf("%s cannot encode %s elements", name, t)
	}
	for i := 0; i < n; i++ {
		v := load(nt, a.Bytes()[i*t.Size:])
		if nt.kind == 'u' {
			vals[i] = v.u // tolist gives Python ints
		} else {
			vals[i] = numValue(nt, v)
		}
	}
	return vals, nil
}

// nestList turns C-order values into nested lists of shape (a 0-d array
// becomes a one-element list).
func nestList(vals []any, shape []int) []any {
	if len(shape) <= 1 {
		return append([]any(nil), vals...)
	}
	inner := nd.Size(shape[1:])
	out := make([]any, shape[0])
	for i := range out {
		out[i] = nestList(vals[i*inner:(i+1)*inner], shape[1:])
	}
	return out
}

type pyJSONWriter struct {
	c  *json2Codec
	sb strings.Builder
}

func (w *pyJSONWriter) newline(depth int) {
	if w.c.indent != nil {
		w.sb.WriteByte('\n')
		for i := 0; i < depth; i++ {
			w.sb.WriteString(*w.c.indent)
		}
	}
}

func (w *pyJSONWriter) value(v any, depth int) error {
	if depth > 1000 {
		return fmtx.Errorf("values nested too deeply")
	}
	switch x := v.(type) {
	case nil:
		w.sb.WriteString("null")
	case bool:
		if x {
			w.sb.WriteString("true")
		} else {
			w.sb.WriteString("false")
		}
	case string:
		w.str(x)
	case int:
		w.sb.WriteString(strconv.Itoa(x))
	case int64:
		w.sb.WriteString(strconv.FormatInt(x, 10))
	case int32:
		w.sb.WriteString(strconv.FormatInt(int64(x), 10))
	case uint64:
		w.sb.WriteString(strconv.FormatUint(x, 10))
	case float32:
		return w.float(float64(x))
	case float64:
		return w.float(x)
	case jsonx.Number:
		w.sb.WriteString(x.String())
	case []any:
		if len(x) == 0 {
			w.sb.WriteString("[]")
			return nil
		}
		w.sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.sb.WriteString(w.c.itemSep)
			}
			w.newline(depth + 1)
			if err := w.value(e, depth+1); err != nil {
				return err
			}
		}
		w.newline(depth)
		w.sb.WriteByte(']')
	case []string:
		l := make([]any, len(x))
		for i, s := range x {
			l[i] = s
		}
		return w.value(l, depth)
	case map[string]any:
		if len(x) == 0 {
			w.sb.WriteString("{}")
			return nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		// Go maps have no order, so keys are always sorted (Python compares
		// code points, which is the byte order of UTF-8).
		sort.Strings(keys)
		w.sb.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.sb.WriteString(w.c.itemSep)
			}
			w.newline(depth + 1)
			w.str(k)
			w.sb.WriteString(w.c.keySep)
			if err := w.value(x[k], depth+1); err != nil {
				return err
			}
		}
		w.newline(depth)
		w.sb.WriteByte('}')
	default:
		return fmtx.Errorf("%T values cannot be written as JSON", v)
	}
	return nil
}

func (w *pyJSONWriter) float(f float64) error {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		if !w.c.allowNaN {
			return fmtx.Errorf("out of range float values are not JSON compliant")
		}
		switch {
		case math.IsNaN(f):
			w.sb.WriteString("NaN")
		case f > 0:
			w.sb.WriteString("Infinity")
		default:
			w.sb.WriteString("-Infinity")
		}
		return nil
	}
	w.sb.WriteString(pyFloatRepr(f))
	return nil
}

// pyFloatRepr formats f as Python's repr(float): the shortest digits that
// round-trip, positional when the decimal exponent is in [-4, 16), else
// d.ddde±XX.
func pyFloatRepr(f float64) string {
	s := strconv.FormatFloat(f, 'e', -1, 64) // e.g. -1.2345e+06
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := exp + 1 // value = 0.digits × 10^decpt
	var out string
	switch {
	case decpt > 16 || decpt < -3:
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		out = fmtx.Sprintf("%se%s%02d", m, sign, exp)
	case decpt <= 0:
		out = "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= len(digits):
		out = digits + strings.Repeat("0", decpt-len(digits)) + ".0"
	default:
		out = digits[:decpt] + "." + digits[decpt:]
	}
	if neg {
		out = "-" + out
	}
	return out
}

// str writes a string as Python's json does.
func (w *pyJSONWriter) str(s string) {
	const hex = "0123456789abcdef"
	w.sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			w.sb.WriteString(`\"`)
		case '\\':
			w.sb.WriteString(`\\`)
		case '\n':
			w.sb.WriteString(`\n`)
		case '\r':
			w.sb.WriteString(`\r`)
		case '\t':
			w.sb.WriteString(`\t`)
		case '\b':
			w.sb.WriteString(`\b`)
		case '\f':
			w.sb.WriteString(`\f`)
		default:
			if r < 0x20 || (w.c.ensureASCII && r > 0x7e) {
				u := func(c rune) {
					w.sb.WriteString(`\u`)
					w.sb.WriteByte(hex[c>>12&15])
					w.sb.WriteByte(hex[c>>8&15])
					w.sb.WriteByte(hex[c>>4&15])
					w.sb.WriteByte(hex[c&15])
				}
				if r > 0xffff {
					r1, r2 := utf16.EncodeRune(r)
					u(r1)
					u(r2)
				} else {
					u(r)
				}
			} else {
				w.sb.WriteRune(r)
			}
		}
	}
	w.sb.WriteByte('"')
}

// ---- decoding ----

func (c *json2Codec) Decode(b []byte, out Spec) (*nd.Array, error) {
	if !utf8.Valid(b) {
		return nil, Corrupt("json2", "data is not valid UTF-8")
	}
	p := &jsonParser{s: string(b)}
	v, err := p.parse()
	if err != nil {
		return nil, Corrupt("json2", "invalid JSON: %v", err)
	}
	return itemsToArray("json2", v, out)
}

// itemsToArray inverts listItems: v is the decoded list.
func itemsToArray(name string, v any, out Spec) (*nd.Array, error) {
	items, ok := v.([]any)
	if !ok || len(items) < 2 {
		return nil, Corrupt(name, "expected a list ending with the dtype and the shape")
	}
	switch items[len(items)-2].(type) {
	case string, []byte: // bytes when msgpack2 decodes with raw
	default:
		return nil, Corrupt(name, "the second-to-last item must be the dtype string")
	}
	shapeList, ok := items[len(items)-1].([]any)
	if !ok {
		return nil, Corrupt(name, "the last item must be the shape list")
	}
	shape := make([]int, len(shapeList))
	for i, s := range shapeList {
		n, ok := s.(int64)
		if !ok || n < 0 || n > math.MaxInt32 {
			return nil, Corrupt(name, "invalid shape %v", shapeList)
		}
		shape[i] = int(n)
	}
	var flat []any
	data := items[:len(items)-2]
	if len(shape) == 0 {
		flat = data
	} else if err := flatten(data, shape, &flat); err != nil {
		return nil, Corrupt(name, "values do not match shape %v: %v", shape, err)
	}
	if want := nd.Size(out.Shape); len(flat) != want {
		return nil, Corrupt(name, "%d values, expected %d for shape %v", len(flat), want, out.Shape)
	}
	return valuesToArray(name, flat, out)
}

func flatten(list []any, shape []int, out *[]any) error {
	if len(list) != shape[0] {
		return fmtx.Errorf("a list has %d items, expected %d", len(list), shape[0])
	}
	if len(shape) == 1 {
		*out = append(*out, list...)
		return nil
	}
	for _, e := range list {
		sub, ok := e.([]any)
		if !ok {
			return fmtx.Errorf("expected a nested list, found %T", e)
		}
		if err := flatten(sub, shape[1:], out); err != nil {
			return err
		}
	}
	return nil
}

// valuesToArray stores decoded JSON values into the requested
// representation: as they are for object arrays, as text for string and
// unicode arrays, cast for numeric arrays (as NumPy's dec[:] = items does).
func valuesToArray(name string, vals []any, out Spec) (*nd.Array, error) {
	t := out.DType
	switch t.Kind {
	case dtype.Object:
		return nd.FromObjects(t, out.Shape, vals)
	case dtype.String:
		for i, v := range vals {
			switch x := v.(type) {
			case string:
			case nil:
				vals[i] = ""
			default:
				return nil, Corrupt(name, "value %d is %T, not a string", i, x)
			}
		}
		return nd.FromObjects(t, out.Shape, vals)
	case dtype.Unicode:
		data := make([]byte, len(vals)*t.Size)
		for i, v := range vals {
			s, ok := v.(string)
			if !ok {
				return nil, Corrupt(name, "value %d is %T, not a string", i, v)
			}
			_ = dtype.PutUnicode(data[i*t.Size:(i+1)*t.Size], truncateRunes(s, t.Size/4))
		}
		return nd.FromBytes(t, out.Shape, data)
	}
	nt, ok := ntypeOf(t)
	if !ok || t.Variable() {
		return nil, Corrupt(name, "cannot decode values into %s", t)
	}
	data := make([]byte, len(vals)*t.Size)
	for i, v := range vals {
		n, from, err := scalarNum(v)
		if err != nil {
			return nil, Corrupt(name, "value %d: %v", i, err)
		}
		store(nt, data[i*t.Size:], cast(n, from, nt))
	}
	return nd.FromBytes(t, out.Shape, data)
}

// jsonParser reads JSON as Python's json module does: NaN, Infinity and
// -Infinity are numbers; integers without fraction or exponent stay
// integers; control characters in strings are accepted.
type jsonParser struct {
	s     string
	p     int
	depth int
}

func (p *jsonParser) parse() (any, error) {
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.p != len(p.s) {
		return nil, fmtx.Errorf("extra data at offset %d", p.p)
	}
	return v, nil
}

func (p *jsonParser) ws() {
	for p.p < len(p.s) {
		switch p.s[p.p] {
		case ' ', '\t', '\n', '\r':
			p.p++
		default:
			return
		}
	}
}

func (p *jsonParser) errf(format string, args ...any) error {
	return fmtx.Errorf("offset %d: %s", p.p, fmtx.Sprintf(format, args...))
}

func (p *jsonParser) value() (any, error) {
	p.ws()
	if p.p >= len(p.s) {
		return nil, p.errf("unexpected end of data")
	}
	switch c := p.s[p.p]; {
	case c == '[':
		return p.list()
	case c == '{':
		return p.object()
	case c == '"':
		return p.str()
	case strings.HasPrefix(p.s[p.p:], "null"):
		p.p += 4
		return nil, nil
	case strings.HasPrefix(p.s[p.p:], "true"):
		p.p += 4
		return true, nil
	case strings.HasPrefix(p.s[p.p:], "false"):
		p.p += 5
		return false, nil
	case strings.HasPrefix(p.s[p.p:], "NaN"):
		p.p += 3
		return math.NaN(), nil
	case strings.HasPrefix(p.s[p.p:], "Infinity"):
		p.p += 8
		return math.Inf(1), nil
	case strings.HasPrefix(p.s[p.p:], "-Infinity"):
		p.p += 9
		return math.Inf(-1), nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, p.errf("unexpected character %q", p.s[p.p])
}

func (p *jsonParser) enter() error {
	p.depth++
	if p.depth > 1000 {
		return p.errf("nested too deeply")
	}
	return nil
}

func (p *jsonParser) list() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.p++ // [
	out := []any{}
	p.ws()
	if p.p < len(p.s) && p.s[p.p] == ']' {
		p.p++
		return out, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.ws()
		if p.p >= len(p.s) {
			return nil, p.errf("unterminated list")
		}
		switch p.s[p.p] {
		case ',':
			p.p++
		case ']':
			p.p++
			return out, nil
		default:
			return nil, p.errf("expected ',' or ']'")
		}
	}
}

func (p *jsonParser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.p++ // {
	out := map[string]any{}
	p.ws()
	if p.p < len(p.s) && p.s[p.p] == '}' {
		p.p++
		return out, nil
	}
	for {
		p.ws()
		if p.p >= len(p.s) || p.s[p.p] != '"' {
			return nil, p.errf("expected a string key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.p >= len(p.s) || p.s[p.p] != ':' {
			return nil, p.errf("expected ':'")
		}
		p.p++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out[k.(string)] = v
		p.ws()
		if p.p >= len(p.s) {
			return nil, p.errf("unterminated object")
		}
		switch p.s[p.p] {
		case ',':
			p.p++
		case '}':
			p.p++
			return out, nil
		default:
			return nil, p.errf("expected ',' or '}'")
		}
	}
}

func (p *jsonParser) number() (any, error) {
	start := p.p
	if p.s[p.p] == '-' {
		p.p++
	}
	digits := func() int {
		n := 0
		for p.p < len(p.s) && p.s[p.p] >= '0' && p.s[p.p] <= '9' {
			p.p++
			n++
		}
		return n
	}
	intStart := p.p
	if digits() == 0 {
		return nil, p.errf("invalid number")
	}
	if p.s[intStart] == '0' && p.p-intStart > 1 {
		p.p = intStart + 1 // "01": Python reads 0, then fails on extra data
	}
	isInt := true
	if p.p < len(p.s) && p.s[p.p] == '.' {
		save := p.p
		p.p++
		if digits() == 0 {
			p.p = save
		} else {
			isInt = false
		}
	}
	if p.p < len(p.s) && (p.s[p.p] == 'e' || p.s[p.p] == 'E') {
		save := p.p
		p.p++
		if p.p < len(p.s) && (p.s[p.p] == '+' || p.s[p.p] == '-') {
			p.p++
		}
		if digits() == 0 {
			p.p = save
		} else {
			isInt = false
		}
	}
	text := p.s[start:p.p]
	if isInt {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(text, 10, 64); err == nil {
			return u, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !isRangeErr(err) {
		return nil, p.errf("invalid number %q", text)
	}
	return f, nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (p *jsonParser) str() (any, error) {
	p.p++ // opening quote
	var sb strings.Builder
	for {
		if p.p >= len(p.s) {
			return nil, p.errf("unterminated string")
		}
		c := p.s[p.p]
		switch {
		case c == '"':
			p.p++
			return sb.String(), nil
		case c == '\\':
			if p.p+1 >= len(p.s) {
				return nil, p.errf("unterminated string")
			}
			e := p.s[p.p+1]
			p.p += 2
			switch e {
			case '"', '\\', '/':
				sb.WriteByte(e)
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			case 't':
				sb.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return nil, p.errf("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					if r < 0xdc00 && strings.HasPrefix(p.s[p.p:], `\u`) {
						save := p.p
						p.p += 2
						if r2, ok := p.hex4(); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
							r = utf16.DecodeRune(r, r2)
						} else {
							p.p = save
							r = utf8.RuneError
						}
					} else {
						r = utf8.RuneError // a lone surrogate has no UTF-8 form
					}
				}
				sb.WriteRune(r)
			default:
				return nil, p.errf("invalid escape \\%c", e)
			}
		default:
			sb.WriteByte(c)
			p.p++
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.p+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.p:p.p+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.p += 4
	return rune(v), true
}

// jsonLegacyCodec is numcodecs' "json" codec before json2 replaced it
// (numcodecs 0.5): the chunk's values as nested lists, then its dtype
// string, with no shape (the chunk's shape is used). Read only.
type jsonLegacyCodec struct{}

func init() {
	Register(func(jsonx.RawMessage, Spec) (any, error) { return jsonLegacyCodec{}, nil }, "numcodecs.json")
}

func (jsonLegacyCodec) Encode(*nd.Array) ([]byte, error) {
	return nil, errs.New(errs.Unsupported, "json", "numcodecs' legacy json codec is read, not written: use json2")
}

func (jsonLegacyCodec) Decode(b []byte, out Spec) (*nd.Array, error) {
	if !utf8.Valid(b) {
		return nil, Corrupt("json", "data is not valid UTF-8")
	}
	p := &jsonParser{s: string(b)}
	v, err := p.parse()
	if err != nil {
		return nil, Corrupt("json", "invalid JSON: %v", err)
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, Corrupt("json", "expected a list ending with the dtype")
	}
	if _, ok := list[len(list)-1].(string); !ok {
		return nil, Corrupt("json", "the last item must be the dtype string")
	}
	list = list[:len(list)-1]
	var flat []any
	switch {
	case len(out.Shape) == 0:
		flat = list
	default:
		if err := flatten(list, out.Shape, &flat); err != nil {
			return nil, Corrupt("json", "values do not match shape %v: %v", out.Shape, err)
		}
	}
	return valuesToArray("json", flat, out)
}
