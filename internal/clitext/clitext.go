// Package clitext writes what the zarr commands print, for both: the Go
// command (cmd/zarr) calls it directly, the npm package's zarr-wasm command
// through the bridge (jsbridge/cli.go, in the engine's full build). Tree is
// a hierarchy as a tree (shape, data type, chunks, codecs, attributes), Cat
// an array's values in NumPy-like nested brackets, Log an Icechunk
// repository's history.
//
// Numbers are written as the engine writes JSON numbers (jsonx.AppendFloat:
// the fewest digits that read back as the same float32 or float64), with
// NumPy's nan, inf and -0.0; JSON values (attributes, objects, codec
// settings) compact with sorted keys, numbers as stored, NaN and the
// infinities as the strings "NaN", "Infinity", "-Infinity".
package clitext

import (
	"context"
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/icechunk"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// Tree is node n, named name, and (for a group) everything below it, one
// line a node, drawn as a tree. A child that cannot be opened, or a group
// whose children cannot be listed, is a line saying why.
func Tree(ctx context.Context, n zarr.Node, name string) string {
	var out []string
	tree(ctx, n, name, "", "", &out)
	return strings.Join(out, "\n")
}

func tree(ctx context.Context, n zarr.Node, name, prefix, childPrefix string, out *[]string) {
	g, isGroup := n.(*zarr.Group)
	slash := ""
	if isGroup {
		slash = "/"
	}
	*out = append(*out, prefix+name+slash+"  "+describe(ctx, n))
	if !isGroup {
		return
	}
	kids, err := g.Children(ctx)
	if err != nil {
		*out = append(*out, childPrefix+"└── (children not listed: "+ErrorText(err)+")")
		return
	}
	for i, k := range kids {
		branch, more := "├── ", "│   "
		if i == len(kids)-1 {
			branch, more = "└── ", "    "
		}
		if k.Err != nil || k.Node == nil {
			*out = append(*out, childPrefix+branch+k.Name+"  (cannot be opened: "+ErrorText(k.Err)+")")
			continue
		}
		tree(ctx, k.Node, k.Name, childPrefix+branch, childPrefix+more, out)
	}
}

// ErrorText is "CODE: message" (STORE for an error without a code).
func ErrorText(err error) string {
	code := errs.CodeOf(err)
	if code == "" {
		code = errs.Store
	}
	return string(code) + ": " + strings.TrimPrefix(err.Error(), string(code)+": ")
}

func describe(ctx context.Context, n zarr.Node) string {
	switch x := n.(type) {
	case *zarr.Group:
		c := ""
		// (a tree lists the group's children next, which looks for the same document)
		if ok, _ := x.Consolidated(ctx); ok {
			c = " (consolidated)"
		}
		return "group v" + strconv.Itoa(x.ZarrFormat()) + c + attrText(x.Attrs())
	case *zarr.Array:
		chunks := ""
		if rc := x.ReadChunks(); rc != nil {
			chunks = tuple(rc)
		} else {
			sizes := make([]any, len(x.ChunkSizes()))
			for i, d := range x.ChunkSizes() {
				if d != nil {
					sizes[i] = ints(d)
				}
			}
			chunks = jsonText(sizes)
		}
		shards := ""
		if s := x.Shards(); s != nil {
			shards = "  shards " + tuple(s)
		}
		codecs := make([]string, len(x.Codecs()))
		for i, c := range x.Codecs() {
			codecs[i] = codecText(c)
		}
		return "array v" + strconv.Itoa(x.ZarrFormat()) + "  shape " + tuple(x.Shape()) + "  dtype " + dtypeText(x) +
			"  chunks " + chunks + shards + "  codecs " + strings.Join(codecs, ", ") + attrText(x.Attrs())
	}
	return ""
}

// tuple is a shape as Python writes a tuple: (3,), (2, 3).
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

func ints(v []int) []any {
	out := make([]any, len(v))
	for i, n := range v {
		out[i] = n
	}
	return out
}

// codecText is name(setting=value, ...), the settings sorted.
func codecText(c codec.Config) string {
	var m map[string]any
	if jsonx.Unmarshal(c.Configuration, &m) != nil || len(m) == 0 {
		return c.Name
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "id" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := m[k]
		if s, ok := v.(string); ok {
			parts[i] = k + "=" + s
		} else {
			parts[i] = k + "=" + jsonText(v)
		}
	}
	if len(parts) == 0 {
		return c.Name
	}
	return c.Name + "(" + strings.Join(parts, ", ") + ")"
}

func attrText(a map[string]any) string {
	if len(a) == 0 {
		return ""
	}
	return "  attrs " + jsonText(a)
}

// dtypeText is the data type's name, with the stored v2 typestr (or v3
// data_type) beside it when it says more (a byte order).
func dtypeText(a *zarr.Array) string {
	name := ""
	switch d := a.DTypeName().(type) {
	case string:
		name = d
	case map[string]any:
		name, _ = d["name"].(string)
	}
	fields := a.Metadata().Fields()
	raw, ok := fields["data_type"]
	if !ok {
		raw, ok = fields["dtype"]
	}
	if !ok {
		return name
	}
	stored, err := jsonx.Value(raw)
	if err != nil || stored == name {
		return name
	}
	if s, isString := stored.(string); isString {
		return name + " (" + s + ")"
	}
	return name + " (" + jsonText(stored) + ")"
}

// jsonText is v as compact JSON.
func jsonText(v any) string { return string(appendJSON(nil, v)) }

func appendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return appendQuoted(b, x)
	case jsonx.Number:
		return append(b, x...)
	case float64:
		switch {
		case math.IsNaN(x):
			return append(b, `"NaN"`...)
		case math.IsInf(x, 1):
			return append(b, `"Infinity"`...)
		case math.IsInf(x, -1):
			return append(b, `"-Infinity"`...)
		}
		return jsonx.AppendFloat(b, x, 64)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, k)
			b = append(b, ':')
			b = appendJSON(b, x[k])
		}
		return append(b, '}')
	}
	return appendQuoted(b, fmtx.Sprint(v))
}

// appendQuoted writes s as a JSON string: the two-character escapes, other
// control characters as \u00XX, everything else as it is (invalid UTF-8 as
// U+FFFD).
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch r {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if r < 0x20 {
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&0xf])
			} else {
				b = utf8.AppendRune(b, r)
			}
		}
	}
	return append(b, '"')
}

// Cat reads the selection (zarr.ParseSelection's syntax; "" the whole
// array) and writes its shape, the array's data type and the values; with
// more than 1000 values and not all, long dimensions show their first and
// last three.
func Cat(ctx context.Context, a *zarr.Array, selection string, all bool) (string, error) {
	sel, err := zarr.ParseSelection(selection)
	if err != nil {
		return "", err
	}
	res, err := a.Read(ctx, sel)
	if err != nil {
		return "", err
	}
	text, err := elementText(res)
	if err != nil {
		return "", err
	}
	return "shape " + tuple(res.Shape()) + "  dtype " + dtypeText(a) + "\n" + formatArray(res.Shape(), text, all), nil
}

// elementText gives element i of a as text.
func elementText(a *nd.Array) (func(int) string, error) {
	dt := a.DType()
	switch dt.Kind {
	case dtype.Bytes, dtype.Unicode, dtype.String:
		s, err := a.Strings()
		if err != nil {
			return nil, err
		}
		return func(i int) string { return string(appendQuoted(nil, s[i])) }, nil
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
				return "<" + strconv.Itoa(len(b)) + " bytes>"
			}
			return jsonText(objs[i])
		}, nil
	case dtype.Struct:
		return structText(a)
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
		bits := 64
		if size <= 4 {
			bits = 32 // float32 and the smaller floats: float32's digits
		}
		return func(i int) string { return floatText(dt.LoadFloat64(b[i*size:]), bits) }, nil
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
			if im < 0 || im == 0 && math.Signbit(im) {
				sign = "-"
			}
			return floatText(re, bits) + sign + floatText(math.Abs(im), bits) + "j"
		}, nil
	}
	return func(i int) string { return bytesText(b[i*size : (i+1)*size]) }, nil
}

// floatText is an element of a float type of the given bits: NumPy's nan,
// inf, -inf and -0.0, else the fewest digits that read back as the value.
func floatText(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case x == 0 && math.Signbit(x):
		return "-0.0"
	}
	return string(jsonx.AppendFloat(nil, x, bits))
}

// bytesText is b as Python writes bytes: b'a\x00'.
func bytesText(b []byte) string {
	s := []byte("b'")
	for _, c := range b {
		if c >= 32 && c < 127 && c != '\'' && c != '\\' {
			s = append(s, c)
		} else {
			s = append(s, '\\', 'x', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		}
	}
	return string(append(s, '\''))
}

// structText gives a structured element as a tuple of its fields (a
// subarray field as a list).
func structText(a *nd.Array) (func(int) string, error) {
	dt := a.DType()
	parts := make([]func(int) string, len(dt.Fields))
	for fi, f := range dt.Fields {
		fa, err := a.Field(f.Name)
		if err != nil {
			return nil, err
		}
		inner, err := elementText(fa)
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

// Log is an Icechunk version's ancestry, newest first, one line a
// snapshot: id, time (UTC, milliseconds), message.
func Log(list []icechunk.SnapshotInfo) string {
	var b strings.Builder
	for i, a := range list {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(a.ID)
		b.WriteString("  ")
		b.WriteString(a.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
		b.WriteString("  ")
		b.WriteString(a.Message)
	}
	return b.String()
}
