package jsonx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
)

// scanCases are documents for comparing the scanner with encoding/json.
var scanCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a": [1, 2.5, -3e-7, 0, -0.0, 1E+9], "b": {"c": null, "d": true, "e": false}}`,
	`{"\u00e9\ud83d\ude00": "x", "k\"q": "v\\w\/\b\f\n\r\t"}`, `{"lone": "\ud800", "pair": "\ud800\udc00", "bad2": "\ud800\u0041"}`,
	`{"a": 1, "a": 2}`, `{"nested": [[[[{"x": [{}]}]]]]}`, "{\"utf8\": \"caf\xc3\xa9 \xff\xfe\"}",
	`{"nan": NaN, "inf": [Infinity, -Infinity]}`,
	// invalid
	``, `null`, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`,
	`{"a":1e}`, `{"a":-}`, `{"a":tru}`, `{"a":"\x"}`, `{"a":"\u12g4"}`, "{\"a\":\"\x01\"}", `{"a":"unterminated}`,
	`{"a":1} x`, `{"a":[1,2}`, `{"a":[1,2,]}`, `{'a':1}`, `{"a":+1}`, `{"a":NaNa}`, `{"a":-NaN}`, `{"a": Infinite}`,
	"\ufeff{}",
}

// TestScannerAgreesWithEncodingJSON: the same documents are valid, with
// the same members (last of repeated keys) and the same values.
func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	for _, src := range scanCases {
		compareWithEncodingJSON(t, []byte(src))
	}
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	if _, err := Object([]byte(`{"a": ` + deep + `}`)); err == nil {
		t.Error("10001 levels of nesting accepted")
	}
}

func compareWithEncodingJSON(t *testing.T, src []byte) {
	t.Helper()
	norm, _ := normalize(src)
	var want map[string]json.RawMessage
	werr := json.Unmarshal(norm, &want)
	if werr == nil && want == nil {
		werr = json.Unmarshal([]byte("x"), &want) // null: an error for Object
	}
	got, gerr := Object(src)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: encoding/json: %v, scanner: %v", src, werr, gerr)
	}
	if werr != nil {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d members, encoding/json %d", src, len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("%q: member %q missing", src, k)
		}
		w = restoreRaw(w)
		var cg, cw bytes.Buffer
		if json.Compact(&cg, mustNorm(g)) != nil || json.Compact(&cw, mustNorm(w)) != nil || !bytes.Equal(cg.Bytes(), cw.Bytes()) {
			t.Fatalf("%q: member %q = %s, encoding/json %s", src, k, g, w)
		}
		var sg, sw any
		json.Unmarshal(mustNorm(g), &sg)
		json.Unmarshal(mustNorm(w), &sw)
		if s, ok := sw.(string); ok && len(g) > 0 && g[0] == '"' {
			if u, err := Unquote(g); err != nil || u != s {
				t.Fatalf("%q: Unquote(%s) = %q %v, encoding/json %q", src, g, u, err, s)
			}
		}
	}
}

func mustNorm(b []byte) []byte {
	n, _ := normalize(b)
	return n
}

func TestElementsAndInt(t *testing.T) {
	el, err := Elements([]byte(` ["u", 10, 20.0, null, {"a": [1]}] `))
	if err != nil || len(el) != 5 || string(el[4]) != `{"a": [1]}` {
		t.Fatalf("%q %v", el, err)
	}
	for raw, want := range map[string]int64{"10": 10, "20.0": 20, "-3": -3, "1e3": 1000} {
		if v, err := Int([]byte(raw)); err != nil || v != want {
			t.Errorf("Int(%s) = %d %v", raw, v, err)
		}
	}
	for _, raw := range []string{"1.5", "1e300", `"1"`, "x"} {
		if _, err := Int([]byte(raw)); err == nil {
			t.Errorf("Int(%s) accepted", raw)
		}
	}
	if _, err := Elements([]byte(`[1,]`)); err == nil {
		t.Error("[1,] accepted")
	}
}

func FuzzScanner(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c))
	}
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		defer fuzzmem.Input(t)()
		compareWithEncodingJSON(t, src)
	})
}
