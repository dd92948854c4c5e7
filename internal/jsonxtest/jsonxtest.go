// Package jsonxtest checks, in tests, that a struct describing its fields
// to jsonx (jsonx.Fielder: what the core build decodes without reflect)
// lists every field its json tags name, and decodes and encodes as
// encoding/json does from those tags.
package jsonxtest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// Check checks the describer of p's struct type (p a pointer to a zero
// value): every exported field, in order, with its json key and
// omitempty; then documents built from the fields' types decode and
// encode as with encoding/json.
func Check(t *testing.T, p jsonx.Fielder) {
	t.Helper()
	rv := reflect.ValueOf(p).Elem()
	rt := rv.Type()
	fs := p.JSONFields()
	var want []jsonx.Field
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		want = append(want, jsonx.Field{Key: name, Ptr: rv.Field(i).Addr().Interface(), OmitEmpty: strings.Contains(","+opts+",", ",omitempty,")})
	}
	if len(fs) != len(want) {
		t.Fatalf("%s: JSONFields lists %d fields, the struct has %d", rt, len(fs), len(want))
	}
	for i, f := range fs {
		w := want[i]
		if f.Key != w.Key || f.OmitEmpty != w.OmitEmpty {
			t.Errorf("%s field %d: JSONFields has %q (omitempty %v), the tags %q (omitempty %v)", rt, i, f.Key, f.OmitEmpty, w.Key, w.OmitEmpty)
		}
		got := reflect.ValueOf(f.Ptr)
		if got.Kind() == reflect.Struct { // jsonx.Objects: its one field is the pointer
			got = got.Field(0)
		}
		if got.Kind() != reflect.Pointer || got.Pointer() != reflect.ValueOf(w.Ptr).Pointer() || got.Type() != reflect.TypeOf(w.Ptr) {
			t.Errorf("%s field %q: JSONFields points elsewhere (%s)", rt, w.Key, got.Type())
		}
	}
	for _, doc := range documents(rt) {
		Compare(t, rt, doc)
	}
}

// sample values per JSON kind
var samples = []string{`null`, `true`, `0`, `-3`, `7`, `1.5`, `1e400`, `"x"`, `""`, `[]`, `[1,2]`, `["a"]`, `[{"name":"n","configuration":{"a":1}}]`, `{}`, `{"a":1,"name":"n","configuration":{"b":[1]}}`, `[null]`, `["x",1]`}

func documents(rt reflect.Type) []string {
	docs := []string{`{}`, `null`, `[]`, `"s"`, `1`}
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" {
			name = sf.Name
		}
		for _, s := range samples {
			docs = append(docs, `{"`+name+`":`+s+`}`)
			docs = append(docs, `{"`+strings.ToUpper(name)+`":`+s+`,"other":1}`)
			docs = append(docs, `{"`+name+`":`+s+`,"`+name+`":`+samples[2]+`}`)
		}
	}
	return docs
}

// Compare decodes doc into a new rt with jsonx.UnmarshalStrict and with
// encoding/json, and compares the values, whether each failed, and
// MarshalStrict with json.Marshal of the result.
func Compare(t *testing.T, rt reflect.Type, doc string) {
	t.Helper()
	a, m := reflect.New(rt), reflect.New(mirror(rt))
	errA := jsonx.UnmarshalStrict([]byte(doc), a.Interface())
	errB := json.Unmarshal([]byte(doc), m.Interface())
	b := reflect.New(rt)
	copyValue(b.Elem(), m.Elem())
	if (errA == nil) != (errB == nil) {
		t.Errorf("%s from %s: jsonx error %v, encoding/json error %v", rt, doc, errA, errB)
		return
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		ja, _ := json.Marshal(a.Interface())
		jb, _ := json.Marshal(b.Interface())
		t.Errorf("%s from %s: jsonx %s, encoding/json %s", rt, doc, ja, jb)
		return
	}
	ma, errA := jsonx.MarshalStrict(a.Interface())
	mb, errB := json.Marshal(m.Interface())
	if (errA == nil) != (errB == nil) || string(ma) != string(mb) {
		t.Errorf("%s from %s, written: jsonx %s (%v), encoding/json %s (%v)", rt, doc, ma, errA, mb, errB)
	}
}

var (
	rawType = reflect.TypeFor[jsonx.RawMessage]()
	jsonRaw = reflect.TypeFor[json.RawMessage]()
)

// mirror is t with jsonx.RawMessage replaced by json.RawMessage (which
// encoding/json knows), in fields, slices, maps and pointers.
func mirror(t reflect.Type) reflect.Type {
	switch t.Kind() {
	case reflect.Slice:
		if t == rawType {
			return jsonRaw
		}
		return reflect.SliceOf(mirror(t.Elem()))
	case reflect.Map:
		return reflect.MapOf(t.Key(), mirror(t.Elem()))
	case reflect.Pointer:
		return reflect.PointerTo(mirror(t.Elem()))
	case reflect.Struct:
		fs := make([]reflect.StructField, t.NumField())
		for i := range fs {
			f := t.Field(i)
			fs[i] = reflect.StructField{Name: f.Name, Type: mirror(f.Type), Tag: f.Tag}
		}
		return reflect.StructOf(fs)
	}
	return t
}

// copyValue copies src (of mirror(dst.Type())) into dst.
func copyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeSlice(dst.Type(), src.Len(), src.Len()))
		for i := 0; i < src.Len(); i++ {
			copyValue(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeMap(dst.Type()))
		for it := src.MapRange(); it.Next(); {
			v := reflect.New(dst.Type().Elem()).Elem()
			copyValue(v, it.Value())
			dst.SetMapIndex(it.Key(), v)
		}
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.New(dst.Type().Elem()))
		copyValue(dst.Elem(), src.Elem())
	case reflect.Struct:
		for i := 0; i < src.NumField(); i++ {
			copyValue(dst.Field(i), src.Field(i))
		}
	default:
		dst.Set(src.Convert(dst.Type()))
	}
}
