// Package jsonx reads and writes the JSON that Zarr implementations produce in
// practice: zarr-python writes NaN, Infinity and -Infinity as bare tokens
// (Python's allow_nan), and 64-bit integers must survive without passing
// through float64. Decoded numbers are json.Number; non-finite tokens become
// float64 values.
package jsonx

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// sentinel strings stand in for bare non-finite tokens during decoding. They
// contain a NUL, which no JSON document can carry inside a string unescaped.
const (
	nanSentinel    = "\x00NaN"
	posInfSentinel = "\x00Infinity"
	negInfSentinel = "\x00-Infinity"
)

// Decoded numbers are json.Number: error messages name their type with %T.
func init() {
	fmtx.NameType(func(v any) string {
		if _, ok := v.(json.Number); ok {
			return "json.Number"
		}
		return ""
	})
}

// quoted returns the JSON string literal of s (NUL escaped as \u0000).
func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Normalize rewrites bare NaN / Infinity / -Infinity tokens (outside strings)
// into sentinel strings so encoding/json accepts the document. It returns the
// input unchanged when there is nothing to rewrite.
func normalize(data []byte) ([]byte, bool) {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data, false
	}
	var out []byte
	changed := false
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			out = append(out, c)
		case bytes.HasPrefix(data[i:], []byte("NaN")):
			out = append(out, quoted(nanSentinel)...)
			i += 2
			changed = true
		case bytes.HasPrefix(data[i:], []byte("-Infinity")):
			out = append(out, quoted(negInfSentinel)...)
			i += 8
			changed = true
		case bytes.HasPrefix(data[i:], []byte("Infinity")):
			out = append(out, quoted(posInfSentinel)...)
			i += 7
			changed = true
		default:
			out = append(out, c)
		}
	}
	return out, changed
}

// Unmarshal decodes data into v with numbers as json.Number (when v holds
// interface values) and bare non-finite tokens accepted. Non-finite values
// decode to float64 inside interface values; into typed float fields they
// are restored too.
func Unmarshal(data []byte, v any) error {
	norm, changed := normalize(data)
	dec := json.NewDecoder(bytes.NewReader(norm))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmtx.Errorf("unexpected data after the JSON value")
	}
	if changed {
		restore(v)
	}
	return nil
}

// restore replaces sentinel strings with float64 non-finite values.
func restore(v any) {
	switch x := v.(type) {
	case *any:
		*x = restoreValue(*x)
	case *map[string]any:
		for k, e := range *x {
			(*x)[k] = restoreValue(e)
		}
	case *[]any:
		for i, e := range *x {
			(*x)[i] = restoreValue(e)
		}
	case *map[string]json.RawMessage:
		for k, e := range *x {
			(*x)[k] = restoreRaw(e)
		}
	case *[]json.RawMessage:
		for i, e := range *x {
			(*x)[i] = restoreRaw(e)
		}
	}
}

// restoreRaw turns sentinel strings inside a raw message back into bare
// tokens, so the raw message is the original (lenient) JSON text again.
func restoreRaw(m json.RawMessage) json.RawMessage {
	if !bytes.Contains(m, []byte(`\u0000`)) {
		return m
	}
	s := string(m)
	s = strings.ReplaceAll(s, quoted(nanSentinel), "NaN")
	s = strings.ReplaceAll(s, quoted(negInfSentinel), "-Infinity")
	s = strings.ReplaceAll(s, quoted(posInfSentinel), "Infinity")
	return json.RawMessage(s)
}

func restoreValue(v any) any {
	switch x := v.(type) {
	case string:
		switch x {
		case nanSentinel:
			return math.Float64frombits(0x7ff8000000000000)
		case posInfSentinel:
			return math.Inf(1)
		case negInfSentinel:
			return math.Inf(-1)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = restoreValue(e)
		}
	case []any:
		for i, e := range x {
			x[i] = restoreValue(e)
		}
	}
	return v
}

// Object decodes a JSON object into raw members: each the value's original
// text (bare NaN/Infinity tokens included), a sub-slice of data. The whole
// document is checked (the scanner in scan.go, far faster than
// encoding/json for large documents).
func Object(data []byte) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
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
// Infinity / -Infinity tokens, object keys sorted, json.Number written as is.
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
	case json.Number:
		b.WriteString(string(x))
	case json.RawMessage:
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
			kb, _ := json.Marshal(k)
			b.Write(kb)
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
		// through encoding/json into generic values so the same rules apply.
		raw, err := json.Marshal(x)
		if err != nil {
			return err
		}
		var g any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&g); err != nil {
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
