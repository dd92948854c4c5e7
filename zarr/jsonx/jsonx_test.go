package jsonx

import (
	"fmt"
	"math"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

func TestNonFiniteTokens(t *testing.T) {
	var v map[string]any
	src := `{"a": NaN, "b": [Infinity, -Infinity], "s": "NaN and Infinity stay text", "big": 18446744073709551615, "esc": "q\"NaN"}`
	if err := Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	if f, ok := v["a"].(float64); !ok || !math.IsNaN(f) || math.Float64bits(f) != 0x7ff8000000000000 {
		t.Errorf("a = %#v", v["a"])
	}
	b := v["b"].([]any)
	if !math.IsInf(b[0].(float64), 1) || !math.IsInf(b[1].(float64), -1) {
		t.Errorf("b = %#v", b)
	}
	if v["s"] != "NaN and Infinity stay text" || v["esc"] != `q"NaN` {
		t.Errorf("strings changed: %#v %#v", v["s"], v["esc"])
	}
	if v["big"].(Number).String() != "18446744073709551615" {
		t.Errorf("big = %#v", v["big"])
	}
	out, err := Marshal(v, "")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":NaN,"b":[Infinity,-Infinity],"big":18446744073709551615,"esc":"q\"NaN","s":"NaN and Infinity stay text"}`
	if string(out) != want {
		t.Errorf("marshal:\n%s\nwant\n%s", out, want)
	}
	// Raw members keep the bare tokens (they are parsed again later).
	m, err := Object([]byte(src))
	if err != nil || string(m["a"]) != "NaN" {
		t.Errorf("raw member %q, %v", m["a"], err)
	}
	for _, bad := range []string{`{"a": Nan}`, `{"a": 1} x`, `[1,]`} {
		var x any
		if err := Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// %T of a decoded number reads as fmt prints it (internal/fmtx learns the
// name from this package).
func TestNumberTypeName(t *testing.T) {
	v, err := Value([]byte(`[1, 2.5, "x", null, true, {"a": []}]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append(v.([]any), v) {
		if got, want := fmtx.Sprintf("%v (%T)", e, e), fmt.Sprintf("%v (%T)", e, e); got != want {
			t.Errorf("got %q, fmt %q", got, want)
		}
	}
}
