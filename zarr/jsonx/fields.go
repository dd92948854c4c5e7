package jsonx

import (
	"sort"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// Decoding and encoding without reflect. The core WebAssembly build
// (-tags zarrcore) links no reflect: every struct its code decodes or
// encodes describes its fields with JSONFields, and the decoder and the
// encoder take the field types below by a type switch. The full build
// takes any other type by reflection (decode_reflect.go,
// encode_reflect.go); the core build returns an error for it
// (core.go). TestFielders checks each describer against the struct's
// json tags and against encoding/json.

// Field is one field of a struct that describes itself: its JSON key and
// a pointer to it.
type Field struct {
	Key       string
	Ptr       any
	OmitEmpty bool // MarshalStrict leaves the field out when it is empty
}

// Fielder is a struct (by pointer) that lists its fields, in declaration
// order, for Unmarshal and MarshalStrict.
type Fielder interface {
	JSONFields() []Field
}

// F is a Field.
func F(key string, ptr any) Field { return Field{Key: key, Ptr: ptr} }

// FOmit is a Field with omitempty.
func FOmit(key string, ptr any) Field { return Field{Key: key, Ptr: ptr, OmitEmpty: true} }

// intoer decodes into a value of a type the decoder does not know
// (Objects' slices).
type intoer interface{ into(d *decoder) }

// Objects is a Field's Ptr for a slice of structs that describe
// themselves.
func Objects[T any, P interface {
	*T
	Fielder
}](p *[]T) any {
	return objects[T, P]{p}
}

type objects[T any, P interface {
	*T
	Fielder
}] struct{ p *[]T }

func (o objects[T, P]) into(d *decoder) {
	sliceInto(d, o.p, func(e *T) { d.into(P(e)) }, "[]"+typeName(P(new(T))))
}

func (o objects[T, P]) encode(e *encoder) error {
	if *o.p == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	return encodeSlice(e, *o.p, func(x *T) error { return e.common(P(x)) })
}

type sliceEncoder interface{ encode(e *encoder) error }

// typeName names a describer's type in errors ("struct" when fmtx does
// not know it: no reflect here).
func typeName(p any) string {
	n := strings.TrimPrefix(fmtx.TypeName(p), "*")
	if n == "?" {
		n = "struct"
	}
	return n
}

// mismatch skips a value that does not fit a Go value of type typ and
// records the error (null fits everything: left alone).
func (d *decoder) mismatch(typ string) {
	var what string
	switch c := d.data[d.pos]; c {
	case 'n':
		d.pos += 4
		return
	case '{':
		what = "object"
	case '[':
		what = "array"
	case '"':
		what = "string"
	case 't', 'f':
		what = "bool"
	default:
		if _, text, ok := d.nonFinite(); ok {
			d.typeError(text, typ)
			return
		}
		what = "number"
	}
	d.skip()
	d.typeError(what, typ)
}

// isNumber reports whether the next value is a number (not a non-finite
// token).
func (d *decoder) isNumber() bool {
	c := d.data[d.pos]
	return c >= '0' && c <= '9' || c == '-' && d.data[d.pos+1] != 'I'
}

func (d *decoder) intInto(typ string, bits int) (int64, bool) {
	if !d.isNumber() {
		d.mismatch(typ)
		return 0, false
	}
	s := d.numText()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || bits < 64 && (n < -1<<(bits-1) || n >= 1<<(bits-1)) {
		d.typeError("number "+s, typ)
		return 0, false
	}
	return n, true
}

func sliceInto[T any](d *decoder, p *[]T, elem func(*T), typ string) {
	switch d.data[d.pos] {
	case 'n':
		d.pos += 4
		*p = nil
		return
	case '[':
	default:
		d.mismatch(typ)
		return
	}
	a, n := *p, 0
	d.array(func(i int) {
		n = i + 1
		if i >= len(a) {
			var zero T
			a = append(a, zero)
		}
		elem(&a[i])
	})
	if n == 0 {
		*p = []T{}
		return
	}
	*p = a[:n]
}

func mapInto[T any](d *decoder, p *map[string]T, elem func() T, typ string) {
	switch d.data[d.pos] {
	case 'n':
		d.pos += 4
		*p = nil
		return
	case '{':
	default:
		d.mismatch(typ)
		return
	}
	if *p == nil {
		*p = map[string]T{}
	}
	d.object(func(k string) { (*p)[k] = elem() })
}

func ptrInto[T any](d *decoder, p **T) {
	if d.data[d.pos] == 'n' {
		d.pos += 4
		*p = nil
		return
	}
	if *p == nil {
		*p = new(T)
	}
	d.into(*p)
}

// knownTarget reports whether v is a non-nil pointer into takes without
// reflect.
func knownTarget(v any) bool {
	switch p := v.(type) {
	case *RawMessage:
		return p != nil
	case *string:
		return p != nil
	case *bool:
		return p != nil
	case *int:
		return p != nil
	case *int64:
		return p != nil
	case *float64:
		return p != nil
	case *any:
		return p != nil
	case *[]int:
		return p != nil
	case *[]int64:
		return p != nil
	case *[]string:
		return p != nil
	case *[]*string:
		return p != nil
	case *[]any:
		return p != nil
	case *[]RawMessage:
		return p != nil
	case *map[string]RawMessage:
		return p != nil
	case *map[string]any:
		return p != nil
	case **string:
		return p != nil
	case **int:
		return p != nil
	case **bool:
		return p != nil
	case Fielder, intoer:
		return p != nil
	}
	return false
}

// into decodes the next value into what p points to, with
// encoding/json's rules.
func (d *decoder) into(p any) {
	switch p := p.(type) {
	case *RawMessage:
		*p = d.raw()
	case *string:
		if d.data[d.pos] == '"' {
			*p = d.str()
		} else {
			d.mismatch("string")
		}
	case *bool:
		switch d.data[d.pos] {
		case 't':
			*p = true
			d.pos += 4
		case 'f':
			*p = false
			d.pos += 5
		default:
			d.mismatch("bool")
		}
	case *int:
		if n, ok := d.intInto("int", strconv.IntSize); ok {
			*p = int(n)
		}
	case *int64:
		if n, ok := d.intInto("int64", 64); ok {
			*p = n
		}
	case *float64:
		if f, _, ok := d.nonFinite(); ok {
			*p = f
			return
		}
		if !d.isNumber() {
			d.mismatch("float64")
			return
		}
		s := d.numText()
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			d.typeError("number "+s, "float64")
			return
		}
		*p = f
	case *any:
		if *p == nil || d.data[d.pos] == 'n' {
			*p = d.generic()
			return
		}
		d.other(p)
	case *[]int:
		sliceInto(d, p, func(e *int) { d.into(e) }, "[]int")
	case *[]int64:
		sliceInto(d, p, func(e *int64) { d.into(e) }, "[]int64")
	case *[]string:
		sliceInto(d, p, func(e *string) { d.into(e) }, "[]string")
	case *[]*string:
		sliceInto(d, p, func(e **string) { d.into(e) }, "[]*string")
	case *[]any:
		sliceInto(d, p, func(e *any) { d.into(e) }, "[]interface {}")
	case *[]RawMessage:
		sliceInto(d, p, func(e *RawMessage) { d.into(e) }, "[]jsonx.RawMessage")
	case *map[string]RawMessage:
		mapInto(d, p, d.raw, "map[string]jsonx.RawMessage")
	case *map[string]any:
		mapInto(d, p, d.generic, "map[string]interface {}")
	case **string:
		ptrInto(d, p)
	case **int:
		ptrInto(d, p)
	case **bool:
		ptrInto(d, p)
	case Fielder:
		d.fieldsInto(p)
	case intoer:
		p.into(d)
	default:
		d.other(p)
	}
}

// fieldsInto decodes an object into a struct that describes itself: each
// member into the field of the same key, else the first whose key matches
// ignoring case; unknown members skipped.
func (d *decoder) fieldsInto(p Fielder) {
	if d.data[d.pos] != '{' {
		d.mismatch(typeName(p))
		return
	}
	fs := p.JSONFields()
	d.object(func(k string) {
		for i := range fs {
			if fs[i].Key == k {
				d.into(fs[i].Ptr)
				return
			}
		}
		for i := range fs {
			if strings.EqualFold(fs[i].Key, k) {
				d.into(fs[i].Ptr)
				return
			}
		}
		d.skip()
	})
}

// common encodes the types the core build's code writes; any other type
// goes to other.
func (e *encoder) common(v any) error {
	switch x := v.(type) {
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case float64:
		return e.float(x, 64)
	case []int:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return encodeSlice(e, x, func(n *int) error { return e.common(*n) })
	case []string:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return encodeSlice(e, x, func(s *string) error { return e.any(*s) })
	case []any:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return encodeSlice(e, x, func(a *any) error { return e.any(*a) })
	case []RawMessage:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return encodeSlice(e, x, func(r *RawMessage) error { return e.raw(*r) })
	case []map[string]any:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return encodeSlice(e, x, func(m *map[string]any) error { return e.common(*m) })
	case map[string]any:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return encodeMap(e, x, e.any)
	case map[string]RawMessage:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return encodeMap(e, x, e.raw)
	case Fielder:
		return e.fields(x)
	case sliceEncoder:
		return x.encode(e)
	default:
		return e.other(v)
	}
	return nil
}

// encodeSlice writes a list (small: one function for every element type).
func encodeSlice[T any](e *encoder, a []T, elem func(*T) error) error {
	return e.list(len(a), func(i int) error { return elem(&a[i]) })
}

func (e *encoder) list(n int, elem func(i int) error) error {
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := elem(i); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	e.depth--
	return nil
}

func encodeMap[T any](e *encoder, m map[string]T, elem func(T) error) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return e.members(keys, func(k string) error { return elem(m[k]) })
}

// members writes an object, its keys sorted.
func (e *encoder) members(keys []string, elem func(k string) error) error {
	if err := e.enter(); err != nil {
		return err
	}
	sort.Strings(keys)
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendString(e.buf, k)
		e.buf = append(e.buf, ':')
		if err := elem(k); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	e.depth--
	return nil
}

// fieldValue returns the value a field's pointer points to, and whether
// it is empty (omitempty's rule).
func fieldValue(p any) (any, bool) {
	switch p := p.(type) {
	case *RawMessage:
		return *p, len(*p) == 0
	case *string:
		return *p, *p == ""
	case *bool:
		return *p, !*p
	case *int:
		return *p, *p == 0
	case *int64:
		return *p, *p == 0
	case *float64:
		return *p, *p == 0
	case *any:
		return *p, *p == nil
	case *[]int:
		return *p, len(*p) == 0
	case *[]int64:
		return *p, len(*p) == 0
	case *[]string:
		return *p, len(*p) == 0
	case *[]RawMessage:
		return *p, len(*p) == 0
	case *map[string]RawMessage:
		return *p, len(*p) == 0
	case *map[string]any:
		return *p, len(*p) == 0
	case **string:
		if *p == nil {
			return nil, true
		}
		return **p, false
	case **int:
		if *p == nil {
			return nil, true
		}
		return **p, false
	case **bool:
		if *p == nil {
			return nil, true
		}
		return **p, false
	case Fielder:
		return p, false
	}
	return p, false // written by other (reflection) as a pointer's target
}

func (e *encoder) fields(p Fielder) error {
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, '{')
	first := true
	for _, f := range p.JSONFields() {
		v, empty := fieldValue(f.Ptr)
		if f.OmitEmpty && empty {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = appendString(e.buf, f.Key)
		e.buf = append(e.buf, ':')
		if err := e.any(v); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	e.depth--
	return nil
}
