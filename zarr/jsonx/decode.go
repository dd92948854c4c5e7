package jsonx

import (
	"encoding/base64"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
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

var (
	rawType    = reflect.TypeFor[RawMessage]()
	numberType = reflect.TypeFor[Number]()
)

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
type InvalidTargetError struct{ Type reflect.Type }

func (e *InvalidTargetError) Error() string {
	if e.Type == nil {
		return "jsonx: Unmarshal(nil)"
	}
	if e.Type.Kind() != reflect.Pointer {
		return "jsonx: Unmarshal(non-pointer " + e.Type.String() + ")"
	}
	return "jsonx: Unmarshal(nil " + e.Type.String() + ")"
}

// TypeError reports a JSON value that does not fit the Go value it was
// decoded into, and where in the document it is (keys and indexes).
type TypeError struct {
	Value string // "string", "number 1.5", "object", ...
	Type  reflect.Type
	Path  string // e.g. configuration.levels[2]; "" at the top
}

func (e *TypeError) Error() string {
	if e.Path == "" {
		return "json: cannot unmarshal " + e.Value + " into a value of type " + e.Type.String()
	}
	return "json: cannot unmarshal " + e.Value + " into " + strconv.Quote(e.Path) + " of type " + e.Type.String()
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
	start, c := d.pos, data[d.pos]
	// Common targets without reflect (a value of another type takes the
	// general path, for its error).
	switch p := v.(type) {
	case *any:
		if p != nil && *p == nil {
			*p = d.generic()
			return d.err
		}
	case *string:
		if p != nil && c == '"' {
			*p = d.str()
			return nil
		}
	case *RawMessage:
		if p != nil {
			*p = append((*p)[:0], data[d.pos:s.pos]...)
			return nil
		}
	case *map[string]any:
		if p != nil && c == '{' {
			if *p == nil {
				*p = map[string]any{}
			}
			d.object(func(k string) { (*p)[k] = d.generic() })
			return d.err
		}
	case *map[string]RawMessage:
		if p != nil && c == '{' {
			if *p == nil {
				*p = map[string]RawMessage{}
			}
			d.object(func(k string) { (*p)[k] = d.raw() })
			return nil
		}
	case *int:
		if n, ok := d.intFast(); ok && p != nil {
			*p = int(n)
			return nil
		}
	case *int64:
		if n, ok := d.intFast(); ok && p != nil {
			*p = n
			return nil
		}
	case *bool:
		if p != nil && (c == 't' || c == 'f') {
			*p = c == 't'
			return nil
		}
	case *[]int64:
		if a, ok := d.intsFast(); ok && p != nil {
			*p = a
			return nil
		}
	case *[]int:
		if a, ok := d.intsFast(); ok && p != nil {
			if a == nil {
				*p = nil
				return nil
			}
			*p = make([]int, len(a))
			for i, n := range a {
				(*p)[i] = int(n)
			}
			return nil
		}
	case *[]string:
		if p != nil && c == '[' {
			a, ok := []string{}, true
			d.array(func(int) {
				if ok = ok && d.data[d.pos] == '"'; ok {
					a = append(a, d.str())
				} else {
					d.skip()
				}
			})
			if ok {
				*p = a
				return nil
			}
			d.pos = start
		}
	case *[]any:
		if p != nil && c == '[' {
			*p = d.generic().([]any)
			return d.err
		}
	case *[]RawMessage:
		if p != nil && c == '[' {
			a := (*p)[:0]
			d.array(func(int) { a = append(a, d.raw()) })
			if a == nil {
				a = []RawMessage{}
			}
			*p = a
			return nil
		}
	}
	d.pos, d.err = start, nil
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &InvalidTargetError{reflect.TypeOf(v)}
	}
	d.value(rv)
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

func (d *decoder) typeError(value string, t reflect.Type) {
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
		d.typeError("number "+s, reflect.TypeFor[float64]())
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

// indirect follows pointers (allocating nil ones) to the value to decode
// into; for null, it stops at the first pointer that can be set to nil.
func indirect(v reflect.Value, null bool) reflect.Value {
	for {
		if v.Kind() == reflect.Interface && !v.IsNil() {
			if e := v.Elem(); e.Kind() == reflect.Pointer && !e.IsNil() && (!null || e.Elem().Kind() == reflect.Pointer) {
				v = e
				continue
			}
		}
		if v.Kind() != reflect.Pointer || null && v.CanSet() {
			return v
		}
		if v.Elem().Kind() == reflect.Interface && v.Elem().Elem().Equal(v) {
			return v.Elem()
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
}

// value decodes the next value into v (invalid: skip it).
func (d *decoder) value(v reflect.Value) {
	if !v.IsValid() {
		d.skip()
		return
	}
	c := d.data[d.pos]
	v = indirect(v, c == 'n')
	if v.Type() == rawType {
		v.SetBytes(d.raw())
		return
	}
	switch c {
	case '{':
		d.objectValue(v)
	case '[':
		d.arrayValue(v)
	case '"':
		d.stringValue(v)
	case 'n':
		d.pos += 4
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			v.SetZero()
		}
	case 't', 'f':
		b := c == 't'
		if b {
			d.pos += 4
		} else {
			d.pos += 5
		}
		switch {
		case v.Kind() == reflect.Bool:
			v.SetBool(b)
		case v.Kind() == reflect.Interface && v.NumMethod() == 0:
			v.Set(reflect.ValueOf(b))
		default:
			d.typeError("bool", v.Type())
		}
	default:
		if f, text, ok := d.nonFinite(); ok {
			switch {
			case v.Kind() == reflect.Float32 || v.Kind() == reflect.Float64:
				v.SetFloat(f)
			case v.Kind() == reflect.Interface && v.NumMethod() == 0:
				v.Set(reflect.ValueOf(f))
			default:
				d.typeError(text, v.Type())
			}
			return
		}
		d.numberValue(v)
	}
}

func (d *decoder) numberValue(v reflect.Value) {
	start := d.pos
	s := d.numText()
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() != 0 {
			d.typeError("number", v.Type())
			return
		}
		d.pos = start
		if n := d.number(); n != nil {
			v.Set(reflect.ValueOf(n))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v.OverflowInt(n) {
			d.typeError("number "+s, v.Type())
			return
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v.OverflowUint(n) {
			d.typeError("number "+s, v.Type())
			return
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil || v.OverflowFloat(f) {
			d.typeError("number "+s, v.Type())
			return
		}
		v.SetFloat(f)
	case reflect.String:
		if v.Type() == numberType {
			v.SetString(s)
			return
		}
		d.typeError("number", v.Type())
	default:
		d.typeError("number", v.Type())
	}
}

func (d *decoder) stringValue(v reflect.Value) {
	s := d.str()
	switch v.Kind() {
	case reflect.String:
		if v.Type() == numberType && !validNumber(s) {
			d.typeError("string "+strconv.Quote(s)+" (not a number)", v.Type())
			return
		}
		v.SetString(s)
	case reflect.Interface:
		if v.NumMethod() != 0 {
			d.typeError("string", v.Type())
			return
		}
		v.Set(reflect.ValueOf(s))
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 {
			d.typeError("string", v.Type())
			return
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			d.typeError("string (not base64)", v.Type())
			return
		}
		v.SetBytes(b)
	default:
		d.typeError("string", v.Type())
	}
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

func (d *decoder) objectValue(v reflect.Value) {
	t := v.Type()
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(d.generic()))
			return
		}
	case reflect.Map:
		kk := t.Key().Kind()
		if kk == reflect.String || kk >= reflect.Int && kk <= reflect.Uintptr {
			if v.IsNil() {
				v.Set(reflect.MakeMap(t))
			}
			et := t.Elem()
			var elem reflect.Value
			d.object(func(k string) {
				if !elem.IsValid() {
					elem = reflect.New(et).Elem()
				} else {
					elem.SetZero()
				}
				d.value(elem)
				var kv reflect.Value
				switch {
				case kk == reflect.String:
					kv = reflect.ValueOf(k).Convert(t.Key())
				case kk <= reflect.Int64:
					n, err := strconv.ParseInt(k, 10, 64)
					if err != nil || reflect.Zero(t.Key()).OverflowInt(n) {
						d.typeError("number "+k, t.Key())
						return
					}
					kv = reflect.New(t.Key()).Elem()
					kv.SetInt(n)
				default:
					n, err := strconv.ParseUint(k, 10, 64)
					if err != nil || reflect.Zero(t.Key()).OverflowUint(n) {
						d.typeError("number "+k, t.Key())
						return
					}
					kv = reflect.New(t.Key()).Elem()
					kv.SetUint(n)
				}
				v.SetMapIndex(kv, elem)
			})
			return
		}
	case reflect.Struct:
		fs := fieldsOf(t)
		d.object(func(k string) {
			f := fs.lookup(k)
			if f == nil {
				d.skip()
				return
			}
			sub := v
			for _, i := range f.index {
				if sub.Kind() == reflect.Pointer {
					if sub.IsNil() {
						if !sub.CanSet() { // a pointer to an unexported embedded struct
							d.typeError("object", sub.Type())
							d.skip()
							return
						}
						sub.Set(reflect.New(sub.Type().Elem()))
					}
					sub = sub.Elem()
				}
				sub = sub.Field(i)
			}
			d.value(sub)
		})
		return
	}
	d.typeError("object", t)
	d.skip()
}

func (d *decoder) arrayValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(d.generic()))
			return
		}
	case reflect.Slice, reflect.Array:
		slice := v.Kind() == reflect.Slice
		n := 0
		d.array(func(i int) {
			n = i + 1
			if slice && i >= v.Len() {
				if i >= v.Cap() {
					v.Grow(1)
				}
				v.SetLen(i + 1)
				v.Index(i).SetZero()
			}
			if i < v.Len() {
				d.value(v.Index(i))
			} else {
				d.skip()
			}
		})
		switch {
		case slice && n == 0:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		case slice:
			v.SetLen(n)
		default:
			for i := n; i < v.Len(); i++ {
				v.Index(i).SetZero()
			}
		}
		return
	}
	d.typeError("array", v.Type())
	d.skip()
}

// ---- struct fields ---------------------------------------------------

type field struct {
	name      string
	index     []int // the path of field indexes (embedded structs)
	typ       reflect.Type
	tagged    bool
	omitEmpty bool
	depth     int
}

type structFields struct {
	list   []field // in declaration order (embedded fields in place)
	byName map[string]*field
}

func (fs *structFields) lookup(key string) *field {
	if f := fs.byName[key]; f != nil {
		return f
	}
	for i := range fs.list {
		if strings.EqualFold(fs.list[i].name, key) {
			return &fs.list[i]
		}
	}
	return nil
}

var fieldCache sync.Map // reflect.Type -> *structFields

func fieldsOf(t reflect.Type) *structFields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*structFields)
	}
	fs := buildFields(t)
	fieldCache.Store(t, fs)
	return fs
}

// buildFields lists the JSON names of t's fields. A struct embedded
// without a tag contributes its own fields, one level deeper. Of the
// fields that share a name the shallowest is taken; at equal depth a
// tagged one; when that still leaves more than one, none is (Go's rule
// for ambiguous selectors, the one encoding/json applies).
func buildFields(t reflect.Type) *structFields {
	var all []field
	type level struct {
		t     reflect.Type
		index []int
	}
	seen := map[reflect.Type]bool{}
	cur := []level{{t, nil}}
	for depth := 0; len(cur) > 0; depth++ {
		var next []level
		for _, l := range cur {
			// a type met at a shallower depth adds nothing; one embedded
			// twice at this depth is walked twice, and its fields, listed
			// twice, cancel out below
			if seen[l.t] {
				continue
			}
			for i := 0; i < l.t.NumField(); i++ {
				sf := l.t.Field(i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if !sf.IsExported() && !(sf.Anonymous && ft.Kind() == reflect.Struct) {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(append([]int(nil), l.index...), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, level{ft, index})
					continue
				}
				if !sf.IsExported() {
					continue
				}
				f := field{name: name, index: index, typ: sf.Type, tagged: name != "", depth: depth}
				if name == "" {
					f.name = sf.Name
				}
				for opts != "" {
					var o string
					o, opts, _ = strings.Cut(opts, ",")
					if o == "omitempty" {
						f.omitEmpty = true
					}
				}
				all = append(all, f)
			}
		}
		for _, l := range cur {
			seen[l.t] = true
		}
		cur = next
	}
	// choose among fields of the same name (all is ordered by depth)
	type choice struct{ depth, count, tagged, first, firstTagged int }
	choices := map[string]*choice{}
	for i, f := range all {
		c := choices[f.name]
		if c == nil {
			c = &choice{depth: f.depth, first: i, firstTagged: -1}
			choices[f.name] = c
		}
		if f.depth != c.depth {
			continue
		}
		c.count++
		if f.tagged {
			c.tagged++
			if c.firstTagged < 0 {
				c.firstTagged = i
			}
		}
	}
	chosen := func(i int) bool {
		c := choices[all[i].name]
		switch {
		case c.tagged == 1:
			return i == c.firstTagged
		case c.tagged == 0 && c.count == 1:
			return i == c.first
		}
		return false
	}
	fs := &structFields{byName: map[string]*field{}}
	for i, f := range all {
		if chosen(i) {
			fs.list = append(fs.list, f)
		}
	}
	sortByIndex(fs.list)
	for i := range fs.list {
		fs.byName[fs.list[i].name] = &fs.list[i]
	}
	return fs
}

func sortByIndex(l []field) {
	less := func(a, b []int) bool {
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	}
	for i := 1; i < len(l); i++ { // insertion sort: few fields
		for j := i; j > 0 && less(l[j].index, l[j-1].index); j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}
