package main

// The npm command's text, written from Go: numbers as JavaScript prints
// them, JSON as JSON.stringify writes it, NumPy-like nested brackets. The
// side-by-side test (tests/node/cli.test.mjs) compares the two outputs.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

func tuple(a []int) string {
	parts := make([]string, len(a))
	for i, n := range a {
		parts[i] = strconv.Itoa(n)
	}
	if len(a) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// maxSafe is JavaScript's largest exact integer: beyond it the package
// gives a BigInt.
const maxSafe = 1<<53 - 1

// jsNumber is String(x) of a JavaScript number.
func jsNumber(x float64) string { return jsFloat(x, 64) }

// jsFloat formats x as JavaScript's Number.prototype.toString does, with
// the shortest digits that read back as the same float of the given bits.
func jsFloat(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		return "0"
	}
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	e := strconv.FormatFloat(x, 'e', -1, bits) // d.ddde±XX
	mant, expText, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expText)
	k, n := len(digits), exp+1 // x = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ev := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return sign + digits + "e" + es + ev
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es + ev
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// jsString is JSON.stringify of a string.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// nonFinite says how JSON text shows NaN and ±Infinity: attributes as the
// strings "NaN", "Infinity" (the npm command's choice), elsewhere null
// (JSON.stringify's).
type nonFinite int

const (
	nonFiniteNull nonFinite = iota
	nonFiniteString
)

// jsJSON is JSON.stringify of a value as the package hands it to
// JavaScript: objects with sorted keys, integers beyond 2^53 as BigInts
// (written as strings), other numbers as JavaScript prints them.
func jsJSON(v any, nf nonFinite) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case string:
		return jsString(x)
	case jsonx.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return jsInt(big.NewInt(i))
		}
		if bi, ok := new(big.Int).SetString(string(x), 10); ok {
			return jsInt(bi)
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return jsString(string(x))
		}
		return jsJSON(f, nf)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if nf == nonFiniteString {
				return jsString(jsNumber(x))
			}
			return "null"
		}
		return jsNumber(x)
	case float32:
		return jsJSON(float64(x), nf)
	case int:
		return jsInt(big.NewInt(int64(x)))
	case int64:
		return jsInt(big.NewInt(x))
	case uint64:
		return jsInt(new(big.Int).SetUint64(x))
	case *big.Int:
		return jsInt(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = jsJSON(e, nf)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case []string:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = jsString(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = jsString(k) + ":" + jsJSON(x[k], nf)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []byte:
		// A Uint8Array: JSON.stringify writes its elements as an object.
		parts := make([]string, len(x))
		for i, c := range x {
			parts[i] = fmt.Sprintf(`"%d":%d`, i, c)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return jsString(fmt.Sprint(v))
}

// jsInt is an integer as JSON.stringify writes it with the package's
// BigInt replacer: a number when exact, else its digits as a string.
func jsInt(i *big.Int) string {
	if i.IsInt64() && i.Int64() <= maxSafe && i.Int64() >= -maxSafe {
		return i.String()
	}
	return jsString(i.String())
}

// jsValue is String(v) of a value as the package hands it to JavaScript.
func jsValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case jsonx.Number:
		if bi, ok := new(big.Int).SetString(string(x), 10); ok {
			return bi.String()
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return string(x)
		}
		return jsNumber(f)
	case float64:
		return jsNumber(x)
	case map[string]any, []any:
		return jsJSON(x, nonFiniteNull)
	}
	return fmt.Sprint(v)
}

// decodeJSON reads JSON as the package does for JavaScript (integers kept
// exact).
func decodeJSON(raw []byte) (any, error) {
	var v any
	err := jsonx.Unmarshal(raw, &v)
	return v, err
}

func codecText(c codec.Config) string {
	cfg, _ := decodeJSON(c.Configuration)
	m, _ := cfg.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "id" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return c.Name
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + jsValue(m[k])
	}
	return c.Name + "(" + strings.Join(parts, ", ") + ")"
}

func attrText(a map[string]any) string {
	if len(a) == 0 {
		return ""
	}
	return "  attrs " + jsJSON(a, nonFiniteString)
}

// dtypeText is the data type's name, with the stored v2 typestr (or v3
// data_type) beside it when it says more.
func dtypeText(a *zarr.Array) string {
	name := ""
	switch d := a.DTypeName().(type) {
	case string:
		name = d
	case map[string]any:
		name, _ = d["name"].(string)
	}
	doc, err := a.Metadata().Document()
	if err != nil {
		return name
	}
	m, _ := decodeJSON(doc)
	obj, _ := m.(map[string]any)
	stored, ok := obj["data_type"]
	if !ok {
		stored, ok = obj["dtype"]
	}
	if !ok || stored == name {
		return name
	}
	if s, isString := stored.(string); isString {
		return name + " (" + s + ")"
	}
	return name + " (" + jsJSON(stored, nonFiniteNull) + ")"
}

func describe(n zarr.Node) string {
	switch x := n.(type) {
	case *zarr.Group:
		c := ""
		if x.Consolidated() {
			c = " (consolidated)"
		}
		return fmt.Sprintf("group v%d%s%s", x.ZarrFormat(), c, attrText(x.Attrs()))
	case *zarr.Array:
		chunks := ""
		if rc := x.ReadChunks(); rc != nil {
			chunks = tuple(rc)
		} else {
			sizes := make([]any, len(x.ChunkSizes()))
			for i, d := range x.ChunkSizes() {
				if d == nil {
					continue
				}
				l := make([]any, len(d))
				for k, v := range d {
					l[k] = v
				}
				sizes[i] = l
			}
			chunks = jsJSON(sizes, nonFiniteNull)
		}
		shards := ""
		if s := x.Shards(); s != nil {
			shards = "  shards " + tuple(s)
		}
		codecs := make([]string, len(x.Codecs()))
		for i, c := range x.Codecs() {
			codecs[i] = codecText(c)
		}
		return fmt.Sprintf("array v%d  shape %s  dtype %s  chunks %s%s  codecs %s%s", x.ZarrFormat(), tuple(x.Shape()), dtypeText(x), chunks, shards, strings.Join(codecs, ", "), attrText(x.Attrs()))
	}
	return ""
}

// errText is "CODE: message" of an error as the npm command shows it.
func errText(err error) string {
	code := errs.CodeOf(err)
	if code == "" {
		code = errs.Store
	}
	return fmt.Sprintf("%s: %s", code, strings.TrimPrefix(err.Error(), string(code)+": "))
}

func printTree(ctx context.Context, n zarr.Node, name, prefix, childPrefix string, out *[]string) {
	slash := ""
	if _, ok := n.(*zarr.Group); ok {
		slash = "/"
	}
	*out = append(*out, prefix+name+slash+"  "+describe(n))
	g, ok := n.(*zarr.Group)
	if !ok {
		return
	}
	kids, err := g.Children(ctx)
	if err != nil {
		*out = append(*out, childPrefix+"└── (children not listed: "+errText(err)+")")
		return
	}
	for i, k := range kids {
		last := i == len(kids)-1
		branch, more := "├── ", "│   "
		if last {
			branch, more = "└── ", "    "
		}
		if k.Err != nil || k.Node == nil {
			*out = append(*out, childPrefix+branch+k.Name+"  (cannot be opened: "+errText(k.Err)+")")
			continue
		}
		printTree(ctx, k.Node, k.Name, childPrefix+branch, childPrefix+more, out)
	}
}

// ---- values ----------------------------------------------------------------

// elementText gives element i of a as text, as the npm command prints the
// array the package hands to JavaScript: described is the data type's
// description (a struct's names its fields' types).
func elementText(a *nd.Array, described any) (func(int) string, error) {
	dt := a.DType()
	switch dt.Kind {
	case dtype.Bytes, dtype.Unicode, dtype.String:
		s, err := a.Strings()
		if err != nil {
			return nil, err
		}
		return func(i int) string { return jsString(s[i]) }, nil
	case dtype.Void:
		b := a.Bytes()
		return func(i int) string { return bytesText(b[i*dt.Size : (i+1)*dt.Size]) }, nil
	case dtype.VarBytes:
		objs, err := a.Objects()
		if err != nil {
			return nil, err
		}
		return func(i int) string { b, _ := objs[i].([]byte); return bytesText(b) }, nil
	case dtype.Object:
		objs, err := a.Objects()
		if err != nil {
			return nil, err
		}
		return func(i int) string {
			if b, ok := objs[i].([]byte); ok {
				return fmt.Sprintf("<%d bytes>", len(b))
			}
			return objectText(objs[i])
		}, nil
	case dtype.Struct:
		return structText(a, described)
	}
	b := a.Bytes()
	size := dt.Size
	switch dt.Kind {
	case dtype.Bool:
		return func(i int) string {
			if b[i] != 0 {
				return "True"
			}
			return "False"
		}, nil
	case dtype.Int, dtype.Datetime, dtype.Timedelta:
		return func(i int) string { return strconv.FormatInt(dt.LoadInt64(b[i*size:]), 10) }, nil
	case dtype.Uint:
		return func(i int) string { return strconv.FormatUint(dt.LoadUint64(b[i*size:]), 10) }, nil
	case dtype.Float:
		bits := floatBits(dt)
		return func(i int) string { return numberText(dt.LoadFloat64(b[i*size:]), bits) }, nil
	case dtype.Complex:
		bits := 8 * size / 2
		part := func(e []byte) float64 {
			if bits == 32 {
				return float64(math.Float32frombits(binary.LittleEndian.Uint32(e)))
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(e))
		}
		return func(i int) string {
			re, im := part(b[i*size:]), part(b[i*size+size/2:])
			sign := "+"
			if im < 0 || (im == 0 && math.Signbit(im)) {
				sign = "-"
			}
			return numberText(re, bits) + sign + numberText(math.Abs(im), bits) + "j"
		}, nil
	}
	return func(i int) string { return fmt.Sprintf("% x", b[i*size:(i+1)*size]) }, nil
}

// floatBits is 32 for the types the package gives JavaScript as a
// Float32Array (float32 and the smaller floats), else 64.
func floatBits(dt *dtype.DataType) int {
	if n := dt.Numeric(); n != nil && n.JSArray == "Float32Array" {
		return 32
	}
	return 64
}

// numberText is an element as the npm command prints it: NumPy's nan, inf
// and -0.0, else the JavaScript text of the float64, or for a float32 the
// fewest digits whose correct rounding (toPrecision) reads back as it.
func numberText(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case x == 0 && math.Signbit(x):
		return "-0.0"
	case x == 0 || bits == 64:
		return jsFloat(x, 64)
	}
	for p := 1; p <= 9; p++ {
		v, _ := strconv.ParseFloat(toPrecision(x, p), 64)
		if float32(v) == float32(x) {
			return jsFloat(v, 64)
		}
	}
	return jsFloat(x, 64)
}

// toPrecision is x with p significant digits as JavaScript's toPrecision
// rounds: to nearest, a tie to the larger magnitude (exact on x's binary
// value).
func toPrecision(x float64, p int) string {
	exact := new(big.Float).SetFloat64(math.Abs(x)).Text('e', 1100) // every digit of a float64
	mant, expText, _ := strings.Cut(exact, "e")
	digits := []byte(strings.Replace(mant, ".", "", 1))
	exp, _ := strconv.Atoi(expText)
	kept := digits[:p]
	rest := strings.TrimRight(string(digits[p:]), "0")
	if rest != "" && rest[0] >= '5' {
		// round up (a tie, "5" alone, goes up too)
		i := p - 1
		for ; i >= 0 && kept[i] == '9'; i-- {
			kept[i] = '0'
		}
		if i < 0 {
			kept = append([]byte{'1'}, kept[:p-1]...)
			exp++
		} else {
			kept[i]++
		}
	}
	sign := ""
	if x < 0 {
		sign = "-"
	}
	return fmt.Sprintf("%s%c.%se%d", sign, kept[0], kept[1:], exp)
}

func bytesText(b []byte) string {
	var s strings.Builder
	s.WriteString("b'")
	for _, c := range b {
		if c >= 32 && c < 127 && c != '\'' && c != '\\' {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, `\x%02x`, c)
		}
	}
	s.WriteString("'")
	return s.String()
}

// objectText is an object array's element (a decoded JSON value or a
// string) as JSON.stringify writes it.
func objectText(v any) string {
	if s, ok := v.(string); ok && !utf8.ValidString(s) {
		return jsString(strings.ToValidUTF8(s, "\uFFFD"))
	}
	return jsJSON(v, nonFiniteNull)
}

func structText(a *nd.Array, described any) (func(int) string, error) {
	dt := a.DType()
	desc, _ := described.(map[string]any)
	fieldDescs, _ := desc["fields"].([]any)
	parts := make([]func(int) string, len(dt.Fields))
	for fi, f := range dt.Fields {
		fa, err := a.Field(f.Name)
		if err != nil {
			return nil, err
		}
		var fd any
		if fi < len(fieldDescs) {
			if m, ok := fieldDescs[fi].(map[string]any); ok {
				fd = m["dtype"]
			}
		}
		inner, err := elementText(fa, fd)
		if err != nil {
			return nil, err
		}
		n := nd.Size(f.Shape)
		if len(f.Shape) == 0 {
			parts[fi] = inner
			continue
		}
		parts[fi] = func(i int) string {
			items := make([]string, n)
			for k := range items {
				items[k] = inner(i*n + k)
			}
			return "[" + strings.Join(items, ", ") + "]"
		}
	}
	return func(i int) string {
		items := make([]string, len(parts))
		for k, p := range parts {
			items[k] = p(i)
		}
		return "(" + strings.Join(items, ", ") + ")"
	}, nil
}

// formatArray writes NumPy-like nested brackets; with more than 1000
// elements (and not all), long dimensions show their first and last three.
func formatArray(shape []int, text func(int) string, all bool) string {
	if len(shape) == 0 {
		return text(0)
	}
	const edge = 3
	summarise := !all && nd.Size(shape) > 1000
	strides := make([]int, len(shape))
	for d := range shape {
		strides[d] = nd.Size(shape[d+1:])
	}
	var rec func(d, offset int, indent string) string
	rec = func(d, offset int, indent string) string {
		if d == len(shape) {
			return text(offset)
		}
		n := shape[d]
		var idx []int
		if summarise && n > 2*edge {
			for i := 0; i < edge; i++ {
				idx = append(idx, i)
			}
			idx = append(idx, -1)
			for i := n - edge; i < n; i++ {
				idx = append(idx, i)
			}
		} else {
			for i := 0; i < n; i++ {
				idx = append(idx, i)
			}
		}
		parts := make([]string, len(idx))
		for k, i := range idx {
			if i < 0 {
				parts[k] = "..."
			} else {
				parts[k] = rec(d+1, offset+i*strides[d], indent+" ")
			}
		}
		if d == len(shape)-1 {
			return "[" + strings.Join(parts, " ") + "]"
		}
		sep := "\n" + strings.Repeat("\n", max(0, len(shape)-d-2)) + indent + " "
		return "[" + strings.Join(parts, sep) + "]"
	}
	return rec(0, 0, "")
}
