package jsonx

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// MarshalStrict encodes v as encoding/json's Marshal does, byte for byte
// (the code and the documents it writes were made with it): struct fields
// by their json tag in declaration order, omitempty, map keys sorted,
// floats in the shortest form (exponent below 1e-6 and from 1e21), strings
// with <, >, & and U+2028/U+2029 escaped, []byte as base64, Number and
// RawMessage written as they are (a RawMessage compacted). NaN and the
// infinities are an error (Marshal writes them as bare tokens).
func MarshalStrict(v any) ([]byte, error) {
	e := encoder{}
	if err := e.any(v); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// EncodeError reports a value MarshalStrict cannot write.
type EncodeError struct{ Msg string }

func (e *EncodeError) Error() string { return "json: " + e.Msg }

type encoder struct {
	buf   []byte
	depth int
}

const maxEncodeDepth = 10000

func (e *encoder) any(v any) error {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.buf = appendString(e.buf, x)
	case Number:
		return e.number(x)
	case RawMessage:
		return e.raw(x)
	default:
		return e.common(v)
	}
	return nil
}

func (e *encoder) enter() error {
	e.depth++
	if e.depth > maxEncodeDepth {
		return &EncodeError{"value nested too deeply (or a cycle)"}
	}
	return nil
}

func (e *encoder) float(f float64, bits int) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return &EncodeError{"unsupported value: " + strconv.FormatFloat(f, 'g', -1, 64)}
	}
	e.buf = AppendFloat(e.buf, f, bits)
	return nil
}

// AppendFloat appends a finite number as MarshalStrict writes it (as
// encoding/json does, and as JavaScript prints a number): the fewest
// digits that read back as the same float of the given bits (32 or 64),
// in an exponent form below 1e-6 and from 1e21.
func AppendFloat(b []byte, f float64, bits int) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 {
		if bits == 64 && (a < 1e-6 || a >= 1e21) || bits == 32 && (float32(a) < 1e-6 || float32(a) >= 1e21) {
			format = 'e'
		}
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-07 -> e-7
		x := b[start:]
		if n := len(x); n >= 4 && x[n-4] == 'e' && x[n-3] == '-' && x[n-2] == '0' {
			x[n-2] = x[n-1]
			b = b[:len(b)-1]
		}
	}
	return b
}

func (e *encoder) number(n Number) error {
	if n == "" {
		n = "0"
	}
	if !validNumber(string(n)) {
		return &EncodeError{"invalid number literal " + strconv.Quote(string(n))}
	}
	e.buf = append(e.buf, n...)
	return nil
}

// raw writes a RawMessage compacted (whitespace outside strings dropped,
// the HTML characters in strings escaped, as for strings).
func (e *encoder) raw(m RawMessage) error {
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	s := scanner{data: m, strict: true}
	s.space()
	if err := s.value(); err == nil {
		s.space()
		if s.pos != len(m) {
			err = s.fail("unexpected data after the JSON value")
		}
		if err != nil {
			return &EncodeError{"invalid RawMessage: " + err.Error()}
		}
	} else {
		return &EncodeError{"invalid RawMessage: " + err.Error()}
	}
	for i := 0; i < len(m); i++ {
		switch c := m[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			j := i + 1
			for m[j] != '"' {
				if m[j] == '\\' {
					j++
				}
				j++
			}
			e.buf = appendHTMLEscaped(e.buf, m[i:j+1])
			i = j
		default:
			e.buf = append(e.buf, c)
		}
	}
	return nil
}

// appendHTMLEscaped copies a checked string literal, escaping <, >, & and
// U+2028/U+2029.
func appendHTMLEscaped(b, lit []byte) []byte {
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		case c == 0xe2 && i+2 < len(lit) && lit[i+1] == 0x80 && lit[i+2]&^1 == 0xa8:
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[lit[i+2]&0xf])
			i += 2
		default:
			b = append(b, c)
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string literal, as encoding/json
// writes it: the short escapes \" \\ \b \f \n \r \t, other control
// characters, <, >, & and U+2028/U+2029 as \u00XX / \u20XX, invalid UTF-8
// as \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
