package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// The lenient decoding of earlier versions, kept as a reference for the
// tests that compare with encoding/json: bare NaN / Infinity / -Infinity
// tokens rewritten into sentinel strings so encoding/json accepts the
// document.

// sentinel strings stand in for bare non-finite tokens during decoding. They
// contain a NUL, which no JSON document can carry inside a string unescaped.
const (
	nanSentinel    = "\x00NaN"
	posInfSentinel = "\x00Infinity"
	negInfSentinel = "\x00-Infinity"
)

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

// refUnmarshal is the lenient decoding through encoding/json: numbers as
// json.Number in interface values, the non-finite tokens as float64 there.
func refUnmarshal(data []byte, v any) error {
	norm, changed := normalize(data)
	dec := json.NewDecoder(bytes.NewReader(norm))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	// (dec.More alone, which the old Unmarshal used, let "0}" pass)
	if len(bytes.TrimLeft(norm[dec.InputOffset():], " \t\r\n")) != 0 {
		return fmt.Errorf("unexpected data after the JSON value")
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
