package jsonx

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// A hand-written scanner for the documents that can be large — consolidated
// metadata (.zmetadata, v3 inline consolidated_metadata) and kerchunk
// reference sets — where encoding/json (reflection, a validating pass and
// then a decoding pass, RawMessage copies) cost tens of seconds in
// WebAssembly. It validates the whole document as it goes (the same
// grammar Unmarshal accepts: RFC 8259 plus bare NaN, Infinity and
// -Infinity) and hands out values as sub-slices of the input, without
// surrounding whitespace and without copying.

// SyntaxError reports where a document stops being JSON.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmtx.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// maxDepth bounds nesting (encoding/json's limit too).
const maxDepth = 10000

type scanner struct {
	data  []byte
	pos   int
	depth int
	inner func(string) func(string, []byte) error // EachMemberNested
	// strict rejects the bare NaN, Infinity and -Infinity tokens (RFC 8259
	// only, as encoding/json).
	strict bool
}

func (s *scanner) fail(msg string) error { return &SyntaxError{Offset: s.pos, Msg: msg} }

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// EachMember calls f for each member of the JSON object data, in document
// order, with its key (unescaped) and its value's raw text. A member whose
// key repeats is passed again (callers that keep a map get the last one, as
// with encoding/json). The whole document is checked; f's error stops the
// scan and is returned.
func EachMember(data []byte, f func(key string, value []byte) error) error {
	s := &scanner{data: data}
	s.space()
	if s.pos < len(data) && data[s.pos] == 'n' && s.literal("null") == nil {
		s.space()
		if s.pos == len(data) {
			return fmtx.Errorf("expected a JSON object, got null")
		}
	}
	s.pos = 0
	s.space()
	if s.pos >= len(data) || data[s.pos] != '{' {
		return s.fail("expected a JSON object")
	}
	if err := s.members(f); err != nil {
		return err
	}
	s.space()
	if s.pos != len(data) {
		return s.fail("unexpected data after the JSON value")
	}
	return nil
}

// EachMemberNested is EachMember, except that for a member whose value
// is an object and for whose key inner returns a callback, that callback
// gets the inner object's members instead of f getting the member: one
// pass over a document whose bulk is one nested object.
func EachMemberNested(data []byte, f func(key string, value []byte) error, inner func(key string) func(string, []byte) error) error {
	s := &scanner{data: data, inner: inner}
	s.space()
	if s.pos >= len(data) || data[s.pos] != '{' {
		return s.fail("expected a JSON object")
	}
	if err := s.members(f); err != nil {
		return err
	}
	s.space()
	if s.pos != len(data) {
		return s.fail("unexpected data after the JSON value")
	}
	return nil
}

// members scans an object at s.pos ('{'), calling f (if not nil) per member.
func (s *scanner) members(f func(string, []byte) error) error {
	s.depth++
	if s.depth > maxDepth {
		return s.fail("nested too deeply")
	}
	s.pos++ // {
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.fail("expected a member name")
		}
		kstart := s.pos
		if err := s.str(); err != nil {
			return err
		}
		kraw := s.data[kstart:s.pos]
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.fail("expected ':' after a member name")
		}
		s.pos++
		s.space()
		vstart := s.pos
		if s.inner != nil && s.depth == 1 && s.pos < len(s.data) && s.data[s.pos] == '{' {
			key, err := unquote(kraw)
			if err != nil {
				return &SyntaxError{Offset: kstart, Msg: err.Error()}
			}
			if g := s.inner(key); g != nil {
				if err := s.members(g); err != nil {
					return err
				}
				goto next
			}
		}
		if err := s.value(); err != nil {
			return err
		}
		if f != nil {
			key, err := unquote(kraw)
			if err != nil {
				return &SyntaxError{Offset: kstart, Msg: err.Error()}
			}
			if err := f(key, s.data[vstart:s.pos]); err != nil {
				return err
			}
		}
	next:
		s.space()
		if s.pos >= len(s.data) {
			return s.fail("unexpected end of an object")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return s.fail("expected ',' or '}' in an object")
		}
	}
}

// Elements returns the raw text of each element of the JSON array data.
func Elements(data []byte) ([][]byte, error) {
	s := &scanner{data: data}
	s.space()
	if s.pos >= len(data) || data[s.pos] != '[' {
		return nil, s.fail("expected a JSON array")
	}
	var out [][]byte
	if err := s.elements(func(v []byte) { out = append(out, v) }); err != nil {
		return nil, err
	}
	s.space()
	if s.pos != len(data) {
		return nil, s.fail("unexpected data after the JSON value")
	}
	return out, nil
}

func (s *scanner) elements(f func([]byte)) error {
	s.depth++
	if s.depth > maxDepth {
		return s.fail("nested too deeply")
	}
	s.pos++ // [
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.space()
		start := s.pos
		if err := s.value(); err != nil {
			return err
		}
		if f != nil {
			f(s.data[start:s.pos])
		}
		s.space()
		if s.pos >= len(s.data) {
			return s.fail("unexpected end of an array")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return s.fail("expected ',' or ']' in an array")
		}
	}
}

// value skips one value, checking it.
func (s *scanner) value() error {
	if s.pos >= len(s.data) {
		return s.fail("unexpected end of input, expected a value")
	}
	switch c := s.data[s.pos]; {
	case c == '"':
		return s.str()
	case c == '{':
		return s.members(nil)
	case c == '[':
		return s.elements(nil)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == 'N' && !s.strict:
		return s.literal("NaN")
	case c == 'I' && !s.strict:
		return s.literal("Infinity")
	case c == '-' && !s.strict && s.pos+1 < len(s.data) && s.data[s.pos+1] == 'I':
		s.pos++
		return s.literal("Infinity")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return s.fail(fmtx.Sprintf("unexpected character %q", s.data[s.pos]))
}

func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.fail("invalid literal")
	}
	s.pos += len(word)
	return nil
}

func (s *scanner) digits() int {
	n := 0
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

func (s *scanner) number() error {
	if s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return s.fail("invalid number")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return s.fail("invalid number: no digits after '.'")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return s.fail("invalid number: no digits in the exponent")
		}
	}
	return nil
}

// special marks the bytes a string scan must stop at: the closing quote,
// an escape, a control character.
var special = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return
}()

// str skips a string literal at s.pos, checking its escapes and that it
// holds no control characters. Invalid UTF-8 is accepted (encoding/json
// replaces it when decoding; unquote does the same).
func (s *scanner) str() error {
	s.pos++ // opening quote
	data := s.data
	for s.pos < len(data) {
		// the plain run first, one table load per byte
		i := s.pos
		for i < len(data) && !special[data[i]] {
			i++
		}
		s.pos = i
		if i == len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			s.pos++
			return nil
		case c == '\\':
			if s.pos+1 >= len(s.data) {
				return s.fail("unterminated escape")
			}
			switch s.data[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if s.pos+6 > len(s.data) {
					return s.fail("short \\u escape")
				}
				for _, h := range s.data[s.pos+2 : s.pos+6] {
					if unhex(h) < 0 {
						return s.fail("invalid \\u escape")
					}
				}
				s.pos += 6
			default:
				return s.fail("invalid escape")
			}
		case c < 0x20:
			return s.fail("control character in a string")
		default:
			s.pos++
		}
	}
	return s.fail("unterminated string")
}

func unhex(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// Unquote decodes a JSON string literal (raw text including its quotes),
// as encoding/json does: escapes applied, invalid UTF-8 and lone
// surrogates replaced by U+FFFD.
func Unquote(raw []byte) (string, error) {
	s := &scanner{data: raw}
	if len(raw) == 0 || raw[0] != '"' {
		return "", s.fail("expected a string")
	}
	if err := s.str(); err != nil {
		return "", err
	}
	if s.pos != len(raw) {
		return "", s.fail("unexpected data after the string")
	}
	return unquote(raw)
}

// unquote decodes a string literal the scanner has checked.
func unquote(raw []byte) (string, error) {
	body := raw[1 : len(raw)-1]
	plain := true
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(body), nil
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			switch body[i+1] {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(body[i+2:])
				i += 6
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
						if d := utf16.DecodeRune(r, hex4(body[i+2:])); d != utf8.RuneError {
							r2 = d
							i += 6
						}
					}
					r = r2
				}
				out = utf8.AppendRune(out, r)
				continue
			default: // " \ /
				out = append(out, body[i+1])
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			out = utf8.AppendRune(out, r) // invalid bytes become U+FFFD
			i += size
		}
	}
	return string(out), nil
}

func hex4(b []byte) rune {
	return unhex(b[0])<<12 | unhex(b[1])<<8 | unhex(b[2])<<4 | unhex(b[3])
}

// Int reads a JSON integer's raw text (also an integral float such as
// 1000.0, as Python may write one, up to 2^53).
func Int(raw []byte) (int64, error) {
	if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
		return 0, fmtx.Errorf("%s is not an integer", raw)
	}
	return int64(f), nil
}
