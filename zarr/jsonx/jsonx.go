// Package jsonx reads and writes the JSON that Zarr implementations produce in
// practice: zarr-python writes NaN, Infinity and -Infinity as bare tokens
// (Python's allow_nan), and 64-bit integers must survive without passing
// through float64. Decoded numbers are Number; non-finite tokens become
// float64 values. The package has its own decoder and encoder (decode.go,
// encode.go): encoding/json is not linked into the WebAssembly builds.
package jsonx

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// Decoded numbers are Number: error messages name their type with %T.
func init() {
	fmtx.NameType(func(v any) string {
		if _, ok := v.(Number); ok {
			return "jsonx.Number"
		}
		return ""
	})
}

// Object decodes a JSON object into raw members: each the value's original
// text (bare NaN/Infinity tokens included), a sub-slice of data. The whole
// document is checked (the scanner in scan.go, far faster than
// encoding/json for large documents).
func Object(data []byte) (map[string]RawMessage, error) {
	m := map[string]RawMessage{}
	err := EachMember(data, func(k string, v []byte) error {
		m[k] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Value decodes any JSON value.
func Value(data []byte) (any, error) {
	var v any
	err := Unmarshal(data, &v)
	return v, err
}

// Marshal encodes v like zarr-python does: non-finite floats as bare NaN /
// Infinity / -Infinity tokens, object keys sorted, Number written as is.
// indent "" gives compact output.
func Marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	if err := encode(&b, v, indent, ""); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func encode(b *bytes.Buffer, v any, indent, cur string) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case float64:
		writeFloat(b, x)
	case float32:
		writeFloat(b, float64(x))
	case Number:
		b.WriteString(string(x))
	case RawMessage:
		b.Write(x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		next := cur + indent
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent, next)
			b.Write(appendString(nil, k))
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			if err := encode(b, x[k], indent, next); err != nil {
				return err
			}
		}
		newline(b, indent, cur)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		next := cur + indent
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent, next)
			if err := encode(b, e, indent, next); err != nil {
				return err
			}
		}
		newline(b, indent, cur)
		b.WriteByte(']')
	default:
		// Typed values (structs, typed slices, ints, strings): round trip
		// through MarshalStrict into generic values so the same rules apply.
		raw, err := MarshalStrict(x)
		if err != nil {
			return err
		}
		var g any
		if err := Unmarshal(raw, &g); err != nil {
			return err
		}
		switch g.(type) {
		case map[string]any, []any:
			return encode(b, g, indent, cur)
		}
		b.Write(raw)
	}
	return nil
}

func newline(b *bytes.Buffer, indent, cur string) {
	if indent != "" {
		b.WriteByte('\n')
		b.WriteString(cur)
	}
}

func writeFloat(b *bytes.Buffer, f float64) {
	switch {
	case math.IsNaN(f):
		b.WriteString("NaN")
	case math.IsInf(f, 1):
		b.WriteString("Infinity")
	case math.IsInf(f, -1):
		b.WriteString("-Infinity")
	default:
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		b.WriteString(s)
	}
}
