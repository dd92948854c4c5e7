//go:build !zarrcore

package jsonx

import (
	"encoding/base64"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

var (
	rawType    = reflect.TypeFor[RawMessage]()
	numberType = reflect.TypeFor[Number]()
)

// top decodes into v, a target no fast path took (full build: by
// reflection, encoding/json's rules).
func (d *decoder) top(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		t := reflect.TypeOf(v)
		switch {
		case t == nil:
			return &InvalidTargetError{"Unmarshal(nil)"}
		case t.Kind() != reflect.Pointer:
			return &InvalidTargetError{"Unmarshal(non-pointer " + t.String() + ")"}
		}
		return &InvalidTargetError{"Unmarshal(nil " + t.String() + ")"}
	}
	d.value(rv)
	return nil
}

// other decodes the next value into p, a pointer none of into's cases
// takes.
func (d *decoder) other(p any) {
	if err := d.top(p); err != nil && d.err == nil {
		d.err = err
	}
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
			d.typeError("bool", v.Type().String())
		}
	default:
		if f, text, ok := d.nonFinite(); ok {
			switch {
			case v.Kind() == reflect.Float32 || v.Kind() == reflect.Float64:
				v.SetFloat(f)
			case v.Kind() == reflect.Interface && v.NumMethod() == 0:
				v.Set(reflect.ValueOf(f))
			default:
				d.typeError(text, v.Type().String())
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
			d.typeError("number", v.Type().String())
			return
		}
		d.pos = start
		if n := d.number(); n != nil {
			v.Set(reflect.ValueOf(n))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v.OverflowInt(n) {
			d.typeError("number "+s, v.Type().String())
			return
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v.OverflowUint(n) {
			d.typeError("number "+s, v.Type().String())
			return
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil || v.OverflowFloat(f) {
			d.typeError("number "+s, v.Type().String())
			return
		}
		v.SetFloat(f)
	case reflect.String:
		if v.Type() == numberType {
			v.SetString(s)
			return
		}
		d.typeError("number", v.Type().String())
	default:
		d.typeError("number", v.Type().String())
	}
}

func (d *decoder) stringValue(v reflect.Value) {
	s := d.str()
	switch v.Kind() {
	case reflect.String:
		if v.Type() == numberType && !validNumber(s) {
			d.typeError("string "+strconv.Quote(s)+" (not a number)", v.Type().String())
			return
		}
		v.SetString(s)
	case reflect.Interface:
		if v.NumMethod() != 0 {
			d.typeError("string", v.Type().String())
			return
		}
		v.Set(reflect.ValueOf(s))
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 {
			d.typeError("string", v.Type().String())
			return
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			d.typeError("string (not base64)", v.Type().String())
			return
		}
		v.SetBytes(b)
	default:
		d.typeError("string", v.Type().String())
	}
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
						d.typeError("number "+k, t.Key().String())
						return
					}
					kv = reflect.New(t.Key()).Elem()
					kv.SetInt(n)
				default:
					n, err := strconv.ParseUint(k, 10, 64)
					if err != nil || reflect.Zero(t.Key()).OverflowUint(n) {
						d.typeError("number "+k, t.Key().String())
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
							d.typeError("object", sub.Type().String())
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
	d.typeError("object", t.String())
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
	d.typeError("array", v.Type().String())
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
