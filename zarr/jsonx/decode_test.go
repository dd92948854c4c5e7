package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// The decoder and encoder against encoding/json, the reference they
// replace: the same documents accepted, the same values decoded into the
// same Go types, the same bytes written.

type dInner struct {
	X int       `json:"x"`
	Y []string  `json:"y,omitempty"`
	Z *float64  `json:"z"`
	W [2]uint16 `json:"w,omitempty"`
}

type DEmb struct {
	E      string `json:"e"`
	Shadow int
	Both   int `json:"both"`
}

type DEmb2 struct {
	Both int `json:"both"`
	Deep string
}

type dTarget struct {
	Name  string         `json:"name"`
	N     int64          `json:"n"`
	U     uint8          `json:"u"`
	F     float32        `json:"f"`
	G     float64        `json:"g,omitempty"`
	B     bool           `json:"b"`
	P     *dInner        `json:"p"`
	L     []dInner       `json:"l"`
	M     map[string]int `json:"m"`
	MI    map[int]string `json:"mi"`
	A     [2]int         `json:"a"`
	Any   any            `json:"any"`
	Bytes []byte         `json:"bytes"`
	DEmb
	*DEmb2
	Shadow   string `json:"shadow"`
	NoTag    int
	Str      fmt.Stringer `json:"str"`
	Skip     int          `json:"-"`
	unexport int
}

// targets returns fresh values to decode into, in pairs of the same type.
func targets() []func() any {
	return []func() any{
		func() any { return new(any) },
		func() any { return new(dTarget) },
		func() any { return new([]any) },
		func() any { return new(map[string]any) },
		func() any { return new(string) },
		func() any { return new(int) },
		func() any { return new(uint32) },
		func() any { return new(float64) },
		func() any { return new(bool) },
		func() any { return new([]int64) },
		func() any { return new(map[string][]any) },
		func() any { return new([]*dInner) },
		func() any { return new([]string) },
		func() any { return new(*int) },
		func() any { return new([3]float32) },
		func() any { return new(int64) },
		func() any { return new([]int) },
	}
}

var decodeCases = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `-12`, `1.5`, `1e3`, `-1E-7`, `1e400`, `18446744073709551615`, `9223372036854775808`,
	`"x"`, `"\u00e9\ud83d\ude00 <&> \u2028"`, `"\ud800"`, "\"caf\xc3\xa9 \xff\"", `[]`, `{}`, `[1,"a",null,true,{"b":[]}]`,
	`{"name":"n","n":9007199254740993,"u":255,"f":1.25,"b":true,"p":{"x":1,"y":["a"],"z":2.5},"l":[{"x":2},{"x":3,"z":null}]}`,
	`{"m":{"a":1,"b":2},"mi":{"1":"one","-2":"minus two"},"a":[1],"any":{"k":[1.5,"s"]},"bytes":"aGVsbG8="}`,
	`{"e":"embedded","Shadow":"outer","shadow":"x","both":3,"Deep":"d","NoTag":4,"notag":5}`,
	`{"NAME":"fold","N":1,"name":"exact"}`, `{"name":"a","name":"b"}`, `{"u":256}`, `{"u":-1}`, `{"n":1.0}`, `{"f":1e39}`,
	`{"name":1,"n":"x","b":2}`, `{"p":[1]}`, `{"l":{}}`, `{"m":{"a":"x","b":2}}`, `{"mi":{"x":"y"}}`, `{"a":[1,2,3]}`,
	`{"bytes":"!!"}`, `{"str":"x"}`, `{"str":null}`, `{"p":null,"l":null,"m":null,"a":null,"name":null}`,
	`{"Skip":1,"-":2,"unexport":3}`, `[1,2,3]`, `[[1],[2,"x"]]`, `{"a":{"b":{"c":[null]}}}`, `[{"x":1},null,{"y":[]}]`,
	` [ 1 , 2 ] `, `[1,]`, `{"a":1,}`, `NaN`, `[Infinity]`, `{"a":-Infinity}`, `01`, `"\x"`, `{"a" 1}`, ``, ` `, `[1] [2]`,
	`{"m":{"a":1}} `, `"1.5"`, `{"l":[{"x":1},{"x":2}],"l":[{"y":["b"]}]}`, `{"w":[1,2,3]}`, `[{"w":[70000]}]`,
}

func TestUnmarshalStrictAgreesWithEncodingJSON(t *testing.T) {
	for _, src := range decodeCases {
		compareDecode(t, []byte(src))
	}
}

func compareDecode(t *testing.T, src []byte) {
	t.Helper()
	for _, mk := range targets() {
		want, got := mk(), mk()
		werr := json.Unmarshal(src, want)
		gerr := UnmarshalStrict(src, got)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q into %T: encoding/json: %v, jsonx: %v", src, want, werr, gerr)
		}
		if werr == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("%q into %T:\nencoding/json %#v\njsonx         %#v", src, want, deref(want), deref(got))
		}
		if _, ok := werr.(*json.UnmarshalTypeError); ok {
			if _, ok := gerr.(*TypeError); !ok {
				t.Fatalf("%q into %T: encoding/json: %v, jsonx: %v (not a TypeError)", src, want, werr, gerr)
			}
		}
		if werr != nil {
			continue
		}
		// and back: the same bytes
		wb, werr := json.Marshal(want)
		gb, gerr := MarshalStrict(got)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(wb, gb) {
			t.Fatalf("%q into %T, written:\nencoding/json %s %v\njsonx         %s %v", src, want, wb, werr, gb, gerr)
		}
	}
	// RawMessage and Number, which are different types in the two packages
	type rawW struct {
		R  json.RawMessage            `json:"r"`
		N  json.Number                `json:"n"`
		Rs []json.RawMessage          `json:"rs"`
		M  map[string]json.RawMessage `json:"m"`
	}
	type rawG struct {
		R  RawMessage            `json:"r"`
		N  Number                `json:"n"`
		Rs []RawMessage          `json:"rs"`
		M  map[string]RawMessage `json:"m"`
	}
	var w rawW
	var g rawG
	werr := json.Unmarshal(src, &w)
	gerr := UnmarshalStrict(src, &g)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q into a struct of raw values: encoding/json: %v, jsonx: %v", src, werr, gerr)
	}
	if werr == nil {
		same := bytes.Equal(w.R, g.R) && string(w.N) == string(g.N) && len(w.Rs) == len(g.Rs) && (w.Rs == nil) == (g.Rs == nil) && len(w.M) == len(g.M) && (w.M == nil) == (g.M == nil)
		for i := range w.Rs {
			same = same && bytes.Equal(w.Rs[i], g.Rs[i]) && (w.Rs[i] == nil) == (g.Rs[i] == nil)
		}
		for k := range w.M {
			same = same && bytes.Equal(w.M[k], g.M[k])
		}
		if !same {
			t.Fatalf("%q into a struct of raw values:\nencoding/json %+v\njsonx         %+v", src, w, g)
		}
		wb, werr := json.Marshal(w)
		gb, gerr := MarshalStrict(g)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(wb, gb) {
			t.Fatalf("%q raw values written:\nencoding/json %s %v\njsonx         %s %v", src, wb, werr, gb, gerr)
		}
	}
	// the lenient decoding into interface values (numbers exact, the
	// non-finite tokens accepted) against encoding/json on the normalized
	// document
	var wa, ga any
	werr = refUnmarshal(src, &wa)
	gerr = Unmarshal(src, &ga)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q lenient: encoding/json: %v, jsonx: %v", src, werr, gerr)
	}
	if werr == nil && !sameGeneric(fromStd(wa), ga) {
		t.Fatalf("%q lenient:\nencoding/json %#v\njsonx         %#v", src, wa, ga)
	}
}

func deref(v any) any { return reflect.ValueOf(v).Elem().Interface() }

// fromStd turns encoding/json's json.Number values into Number.
func fromStd(v any) any {
	switch x := v.(type) {
	case json.Number:
		return Number(x)
	case map[string]any:
		for k, e := range x {
			x[k] = fromStd(e)
		}
	case []any:
		for i, e := range x {
			x[i] = fromStd(e)
		}
	}
	return v
}

// sameGeneric is reflect.DeepEqual with NaN equal to NaN.
func sameGeneric(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !sameGeneric(x[k], y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameGeneric(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// Values encoding/json writes, written by MarshalStrict.
func TestMarshalStrictAgreesWithEncodingJSON(t *testing.T) {
	f := 2.5
	vals := []any{
		nil, true, 0, -7, uint64(math.MaxUint64), 1.0, 0.1, 1e20, 1e21, 1e-6, 1e-7, -123456789.125, float32(0.1), float32(1e21), float32(1e-7),
		math.SmallestNonzeroFloat64, math.MaxFloat64, "", "a\"b\\c\x00\x01\x1f\b\f\n\r\t <>& \u2028\u2029 é 😀 \xff\xfe",
		[]int{}, []int(nil), map[string]int(nil), map[string]int{"b": 1, "a": 2}, map[int]bool{10: true, 9: false, -1: true},
		[]byte("hello"), []byte{}, [3]byte{1, 2, 3}, &f, (*int)(nil), []any{1, "x", nil, []any{}},
		map[string]any{"z": 1, "a": map[string]any{"y": []any{true}}},
		dTarget{Name: "n", P: &dInner{X: 1, Y: []string{"q"}}, DEmb: DEmb{E: "e"}, DEmb2: &DEmb2{Deep: "d"}, Any: map[string]any{"k": 1.5}},
		dTarget{}, struct {
			A int `json:"a,omitempty"`
			B string
			C any       `json:",omitempty"`
			D []int     `json:"d,omitempty"`
			E *dInner   `json:"e,omitempty"`
			F [0]int    `json:"f,omitempty"`
			H float32   `json:"h"`
			I complex64 `json:"-"`
		}{},
	}
	for _, v := range vals {
		wb, werr := json.Marshal(v)
		gb, gerr := MarshalStrict(v)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(wb, gb) {
			t.Errorf("%#v:\nencoding/json %s %v\njsonx         %s %v", v, wb, werr, gb, gerr)
		}
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), float32(math.Inf(-1)), make(chan int), map[bool]int{true: 1}, []any{func() {}}} {
		if _, err := MarshalStrict(bad); err == nil {
			t.Errorf("%T written", bad)
		}
	}
	// raw values: compacted, HTML characters escaped, invalid ones refused
	for _, src := range []string{` { "a" : [ 1 , "<x>" ] } `, `"\u2028 \u00e9"`, `1`, `[1,]`, `NaN`, ``} {
		wb, werr := json.Marshal(json.RawMessage(src))
		gb, gerr := MarshalStrict(RawMessage(src))
		if (werr == nil) != (gerr == nil) || !bytes.Equal(wb, gb) {
			t.Errorf("raw %q:\nencoding/json %s %v\njsonx         %s %v", src, wb, werr, gb, gerr)
		}
	}
	for _, n := range []string{"", "1", "-1.5e3", "01", "x", "1."} {
		wb, werr := json.Marshal(json.Number(n))
		gb, gerr := MarshalStrict(Number(n))
		if (werr == nil) != (gerr == nil) || !bytes.Equal(wb, gb) {
			t.Errorf("number %q:\nencoding/json %s %v\njsonx         %s %v", n, wb, werr, gb, gerr)
		}
	}
}

// Errors name where in the document the value that did not fit is.
func TestTypeErrorPath(t *testing.T) {
	var v struct {
		Codecs []struct {
			Configuration struct {
				Level int `json:"level"`
			} `json:"configuration"`
		} `json:"codecs"`
		Name string `json:"name"`
	}
	err := UnmarshalStrict([]byte(`{"codecs":[{"configuration":{"level":1}},{"configuration":{"level":"high"}}],"name":"x"}`), &v)
	if err == nil || !strings.Contains(err.Error(), `"codecs[1].configuration.level"`) || !strings.Contains(err.Error(), "string") {
		t.Fatalf("error %v", err)
	}
	if v.Name != "x" || v.Codecs[0].Configuration.Level != 1 {
		t.Errorf("the rest was not decoded: %+v", v)
	}
	if err := Unmarshal([]byte(`{"a":[NaN]}`), &map[string][]int{}); err == nil || !strings.Contains(err.Error(), `"a[0]"`) {
		t.Errorf("NaN into int: %v", err)
	}
	var f struct{ F float32 }
	if err := Unmarshal([]byte(`{"F": -Infinity}`), &f); err != nil || !math.IsInf(float64(f.F), -1) {
		t.Errorf("-Infinity into float32: %v %v", f.F, err)
	}
	if err := UnmarshalStrict([]byte(`{"F": -Infinity}`), &f); err == nil {
		t.Error("strict decoding accepted -Infinity")
	}
	if err := UnmarshalStrict([]byte(`1`), f); err == nil {
		t.Error("decoding into a non-pointer")
	}
	deep := strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001)
	if err := Unmarshal([]byte(deep), new(any)); err == nil {
		t.Error("10001 levels of nesting accepted")
	}
}

func FuzzUnmarshalStrict(f *testing.F) {
	for _, src := range decodeCases {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<16 {
			return
		}
		compareDecode(t, src)
	})
}
