package jsonx

import (
	"math"
	"strconv"
	"strings"
)

// The decoder: the engine's one JSON decoder (encoding/json is not linked
// into the WebAssembly builds). A document is first checked whole by the
// scanner (scan.go: RFC 8259, plus bare NaN / Infinity / -Infinity unless
// strict, nesting at most maxDepth), so nothing is decoded from a document
// that is not JSON, and the decoding pass can trust the syntax.
//
// Decoding follows encoding/json's rules, which the code was written
// against: struct fields by their json tag (or their Go name), an exact
// key first, else a case-insensitive one; unknown keys ignored; the last
// of repeated keys wins; null leaves a value alone except pointers,
// interfaces, maps and slices (set to nil); "[]" gives an empty, non-nil
// slice; a map is created when nil and keeps its other entries; a value of
// the wrong type is skipped, the rest decoded, and the first such error
// returned; a RawMessage gets the value's text (null included); []byte
// from base64.

// Number is a JSON number's text, kept exact: 64-bit integers and long
// decimals do not pass through float64.
type Number string

// String returns the number's text.
func (n Number) String() string { return string(n) }

// Float64 returns the number as a float64.
func (n Number) Float64() (float64, error) { return strconv.ParseFloat(string(n), 64) }

// Int64 returns the number as an int64 (an error when it is not an
// integer that fits).
func (n Number) Int64() (int64, error) { return strconv.ParseInt(string(n), 10, 64) }

// RawMessage is a JSON value's text, decoded later or written as is.
type RawMessage []byte

// Unmarshal decodes data into v leniently, as zarr-python's documents
// need: bare NaN, Infinity and -Infinity are accepted (into float fields
// and, as float64, into interface values), and numbers inside interface
// values are Number (exact).
func Unmarshal(data []byte, v any) error { return unmarshal(data, v, false) }

// UnmarshalStrict decodes RFC 8259 JSON into v with encoding/json's
// results: the non-finite tokens are a syntax error and numbers inside
// interface values are float64 (an error, and nil, beyond its range).
func UnmarshalStrict(data []byte, v any) error { return unmarshal(data, v, true) }

// InvalidTargetError is Unmarshal's error for a v that is not a non-nil
// pointer.
// (In the core WebAssembly build, also for a target the build cannot
// decode into without reflect: see fields.go.)
type InvalidTargetError struct{ Msg string }

func (e *InvalidTargetError) Error() string { return "jsonx: " + e.Msg }

// TypeError reports a JSON value that does not fit the Go value it was
// decoded into, and where in the document it is (keys and indexes).
type TypeError struct {
	Value string // "string", "number 1.5", "object", ...
	Type  string // the Go type, as %T names it
	Path  string // e.g. configuration.levels[2]; "" at the top
}

func (e *TypeError) Error() string {
	if e.Path == "" {
		return "json: cannot unmarshal " + e.Value + " into a value of type " + e.Type
	}
	return "json: cannot unmarshal " + e.Value + " into " + strconv.Quote(e.Path) + " of type " + e.Type
}

func unmarshal(data []byte, v any, strict bool) error {
	s := scanner{data: data, strict: strict}
	s.space()
	if err := s.value(); err != nil {
		return err
	}
	s.space()
	if s.pos != len(data) {
		return s.fail("unexpected data after the JSON value")
	}
	d := decoder{data: data, strict: strict}
	d.space()
	// The targets the engine uses, without reflect (fields.go); others by
	// reflection (the full build) or an error (the core build).
	if knownTarget(v) {
		d.into(v)
		return d.err
	}
	if err := d.top(v); err != nil {
		return err
	}
	return d.err
}

type pathElem struct {
	key   string
	index int // -1 for a key
}

type decoder struct {
	data   []byte
	pos    int
	strict bool
	err    error // the first type error; decoding goes on after it
	path   []pathElem
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) pathString() string {
	var b strings.Builder
	for _, e := range d.path {
		if e.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.key)
	}
	return b.String()
}

func (d *decoder) typeError(value string, t string) {
	if d.err == nil {
		d.err = &TypeError{Value: value, Type: t, Path: d.pathString()}
	}
}

// skip passes over one (checked) value and returns its text.
func (d *decoder) skip() []byte {
	s := scanner{data: d.data, pos: d.pos}
	start := d.pos
	s.value()
	d.pos = s.pos
	return d.data[start:d.pos]
}

// raw returns a copy of the next value's text.
func (d *decoder) raw() RawMessage {
	b := d.skip()
	return append(RawMessage(nil), b...)
}

// strRaw returns the next string literal's text, quotes included.
func (d *decoder) strRaw() []byte {
	start := d.pos
	i := d.pos + 1
	for d.data[i] != '"' {
		if d.data[i] == '\\' {
			i++
		}
		i++
	}
	d.pos = i + 1
	return d.data[start:d.pos]
}

func (d *decoder) str() string {
	s, _ := unquote(d.strRaw())
	return s
}

// numText returns the next number's text.
func (d *decoder) numText() string {
	start := d.pos
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			d.pos++
			continue
		}
		break
	}
	return string(d.data[start:d.pos])
}

// nonFinite reads a bare NaN / Infinity / -Infinity token at d.pos, if
// there is one (lenient documents only).
func (d *decoder) nonFinite() (float64, string, bool) {
	switch d.data[d.pos] {
	case 'N':
		d.pos += 3
		return math.Float64frombits(0x7ff8000000000000), "NaN", true // the quiet NaN Python writes
	case 'I':
		d.pos += 8
		return math.Inf(1), "Infinity", true
	case '-':
		if d.pos+1 < len(d.data) && d.data[d.pos+1] == 'I' {
			d.pos += 9
			return math.Inf(-1), "-Infinity", true
		}
	}
	return 0, "", false
}

// object calls member for each member, d.pos at its value, the key on the
// path.
func (d *decoder) object(member func(key string)) {
	d.pos++ // {
	d.space()
	if d.data[d.pos] == '}' {
		d.pos++
		return
	}
	n := len(d.path)
	d.path = append(d.path, pathElem{index: -1})
	for {
		d.space()
		k := d.str()
		d.path[n].key = k
		d.space()
		d.pos++ // :
		d.space()
		member(k)
		d.space()
		c := d.data[d.pos]
		d.pos++
		if c == '}' {
			break
		}
	}
	d.path = d.path[:n]
}

// array calls elem for each element, d.pos at it.
func (d *decoder) array(elem func(i int)) {
	d.pos++ // [
	d.space()
	if d.data[d.pos] == ']' {
		d.pos++
		return
	}
	n := len(d.path)
	d.path = append(d.path, pathElem{})
	for i := 0; ; i++ {
		d.space()
		d.path[n].index = i
		elem(i)
		d.space()
		c := d.data[d.pos]
		d.pos++
		if c == ']' {
			break
		}
	}
	d.path = d.path[:n]
}

// generic decodes the next value into map[string]any, []any, string,
// bool, nil, and Number (lenient) or float64 (strict).
func (d *decoder) generic() any {
	switch c := d.data[d.pos]; c {
	case '{':
		m := map[string]any{}
		d.object(func(k string) { m[k] = d.generic() })
		return m
	case '[':
		a := []any{}
		d.array(func(int) { a = append(a, d.generic()) })
		return a
	case '"':
		return d.str()
	case 't':
		d.pos += 4
		return true
	case 'f':
		d.pos += 5
		return false
	case 'n':
		d.pos += 4
		return nil
	}
	if f, _, ok := d.nonFinite(); ok {
		return f
	}
	return d.number()
}

func (d *decoder) number() any {
	s := d.numText()
	if !d.strict {
		return Number(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		d.typeError("number "+s, "float64")
		return nil
	}
	return f
}

// intFast reads an integer that fits int64 at d.pos (false, d.pos
// unchanged, for anything else).
func (d *decoder) intFast() (int64, bool) {
	c := d.data[d.pos]
	if c != '-' && (c < '0' || c > '9') || c == '-' && d.data[d.pos+1] == 'I' {
		return 0, false
	}
	start := d.pos
	n, err := strconv.ParseInt(d.numText(), 10, 64)
	if err != nil {
		d.pos = start
		return 0, false
	}
	return n, true
}

// intsFast reads an array of int64 integers (or null: nil).
func (d *decoder) intsFast() ([]int64, bool) {
	start := d.pos
	switch d.data[d.pos] {
	case 'n':
		d.pos += 4
		return nil, true
	case '[':
	default:
		return nil, false
	}
	a, ok := []int64{}, true
	d.array(func(int) {
		if !ok {
			d.skip()
			return
		}
		var n int64
		if n, ok = d.intFast(); ok {
			a = append(a, n)
		} else {
			d.skip()
		}
	})
	if !ok {
		d.pos = start
	}
	return a, ok
}

// validNumber reports whether s is a JSON number (RFC 8259 grammar).
func validNumber(s string) bool {
	if s == "" {
		return false
	}
	sc := scanner{data: []byte(s), strict: true}
	c := s[0]
	if c != '-' && (c < '0' || c > '9') {
		return false
	}
	return sc.number() == nil && sc.pos == len(s)
}
