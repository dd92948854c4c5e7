//go:build !zarrcore

package jsonx

import (
	"encoding/base64"
	"reflect"
	"sort"
	"strconv"
)

// other encodes v, a value none of common's cases takes (full build: by
// reflection).
func (e *encoder) other(v any) error { return e.value(reflect.ValueOf(v)) }

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func (e *encoder) value(v reflect.Value) error {
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	t := v.Type()
	switch t {
	case rawType:
		return e.raw(RawMessage(v.Bytes()))
	case numberType:
		return e.number(Number(v.String()))
	}
	switch v.Kind() {
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32:
		return e.float(v.Float(), 32)
	case reflect.Float64:
		return e.float(v.Float(), 64)
	case reflect.String:
		e.buf = appendString(e.buf, v.String())
	case reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.any(v.Elem().Interface())
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if err := e.enter(); err != nil {
			return err
		}
		err := e.value(v.Elem())
		e.depth--
		return err
	case reflect.Struct:
		if err := e.enter(); err != nil {
			return err
		}
		e.buf = append(e.buf, '{')
		first := true
	fields:
		for _, f := range fieldsOf(t).list {
			fv := v
			for _, i := range f.index {
				if fv.Kind() == reflect.Pointer {
					if fv.IsNil() {
						continue fields
					}
					fv = fv.Elem()
				}
				fv = fv.Field(i)
			}
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			if !first {
				e.buf = append(e.buf, ',')
			}
			first = false
			e.buf = appendString(e.buf, f.name)
			e.buf = append(e.buf, ':')
			if err := e.value(fv); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, '}')
		e.depth--
	case reflect.Map:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		kk := t.Key().Kind()
		if kk != reflect.String && (kk < reflect.Int || kk > reflect.Uintptr) {
			return &EncodeError{"unsupported type: " + t.String()}
		}
		if err := e.enter(); err != nil {
			return err
		}
		keys := make([]string, 0, v.Len())
		vals := make(map[string]reflect.Value, v.Len())
		for it := v.MapRange(); it.Next(); {
			k := it.Key()
			var ks string
			switch {
			case kk == reflect.String:
				ks = k.String()
			case kk <= reflect.Int64:
				ks = strconv.FormatInt(k.Int(), 10)
			default:
				ks = strconv.FormatUint(k.Uint(), 10)
			}
			keys = append(keys, ks)
			vals[ks] = it.Value()
		}
		sort.Strings(keys)
		e.buf = append(e.buf, '{')
		for i, k := range keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = appendString(e.buf, k)
			e.buf = append(e.buf, ':')
			if err := e.value(vals[k]); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, '}')
		e.depth--
	case reflect.Slice:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			e.buf = append(e.buf, '"')
			e.buf = base64.StdEncoding.AppendEncode(e.buf, v.Bytes())
			e.buf = append(e.buf, '"')
			return nil
		}
		return e.array(v)
	case reflect.Array:
		return e.array(v)
	default:
		return &EncodeError{"unsupported type: " + t.String()}
	}
	return nil
}

func (e *encoder) array(v reflect.Value) error {
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, '[')
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.value(v.Index(i)); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	e.depth--
	return nil
}
