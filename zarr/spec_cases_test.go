package zarr

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The TensorStore spec cases of tests/tsspec/cases.json, which the Node
// suite runs too (tests/node/tsspec.test.mjs).

type specCase struct {
	Name   string                      `json:"name"`
	Source string                      `json:"source"`
	Files  map[string]jsonx.RawMessage `json:"files"`
	Steps  []jsonx.RawMessage          `json:"steps"`
}

type specStep struct {
	Op        string           `json:"op"`
	Spec      jsonx.RawMessage `json:"spec"`
	Selection string           `json:"selection"`
	Value     jsonx.RawMessage `json:"value"`
	Shape     []int            `json:"shape"`
	Options   struct {
		ExpandOnly, ShrinkOnly, ResizeMetadataOnly bool
	} `json:"options"`
	Exact  bool             `json:"exact"`
	Expect jsonx.RawMessage `json:"expect"`
}

var caseRun atomic.Int64

func TestSpecCases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "tests", "tsspec", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []specCase `json:"cases"`
	}
	if err := jsonx.UnmarshalStrict(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 30 {
		t.Fatalf("only %d cases", len(file.Cases))
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) { runSpecCase(t, c) })
	}
}

func runSpecCase(t *testing.T, c specCase) {
	ctx := context.Background()
	dir := filepath.ToSlash(t.TempDir())
	id := fmt.Sprintf("go-%d-%d", time.Now().UnixNano(), caseRun.Add(1))
	subst := func(raw jsonx.RawMessage) jsonx.RawMessage {
		s := strings.ReplaceAll(string(raw), "$DIR", dir)
		return jsonx.RawMessage(strings.ReplaceAll(s, "$ID", id))
	}
	for name, content := range c.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, fileBytes(t, content), 0o644))
	}
	var arr *Array
	for i, rawStep := range c.Steps {
		var st specStep
		must(t, jsonx.UnmarshalStrict(subst(rawStep), &st))
		where := fmt.Sprintf("step %d (%s)", i, st.Op)
		var expect map[string]jsonx.RawMessage
		if len(st.Expect) > 0 && st.Expect[0] == '{' {
			must(t, jsonx.UnmarshalStrict(st.Expect, &expect))
		}
		var err error
		switch st.Op {
		case "open":
			var spec any = []byte(st.Spec)
			var s string
			if jsonx.UnmarshalStrict(st.Spec, &s) == nil {
				spec = s
			}
			var a *Array
			a, err = OpenSpec(ctx, spec)
			if err == nil {
				arr = a
				checkOpened(t, where, a, expect)
			}
		case "read":
			var sel Selection
			sel, err = ParseSelection(st.Selection)
			if err == nil {
				var got *NDArray
				got, err = arr.Read(ctx, sel)
				if err == nil && expect == nil {
					compareValues(t, where, got, st.Expect)
				}
			}
		case "write":
			var sel Selection
			sel, err = ParseSelection(st.Selection)
			if err == nil {
				err = arr.Write(ctx, sel, ndFromJSON(t, arr.DType(), st.Value))
			}
		case "resize":
			err = arr.ResizeWith(ctx, st.Shape, ResizeOptions{ExpandOnly: st.Options.ExpandOnly, ShrinkOnly: st.Options.ShrinkOnly, MetadataOnly: st.Options.ResizeMetadataOnly})
			if err == nil {
				if want, ok := expect["shape"]; ok {
					compareJSON(t, where+" shape", arr.Shape(), want)
				}
			}
		case "files":
			checkFiles(t, where, dir, st.Exact, expect)
		default:
			t.Fatalf("%s: unknown op", where)
		}
		wantErr, _ := expect["error"]
		switch {
		case err != nil && wantErr == nil:
			t.Fatalf("%s: %v", where, err)
		case err == nil && wantErr != nil:
			t.Fatalf("%s: no error, want %s", where, wantErr)
		case err != nil:
			var code string
			jsonx.UnmarshalStrict(wantErr, &code)
			if string(errs.CodeOf(err)) != code {
				t.Fatalf("%s: error %v, want code %s", where, err, code)
			}
			var msg string
			jsonx.UnmarshalStrict(expect["message"], &msg)
			if !strings.Contains(err.Error(), msg) {
				t.Fatalf("%s: error %q does not contain %q", where, err, msg)
			}
		}
	}
}

// checkOpened compares an opened array with the expectations of an open step.
func checkOpened(t *testing.T, where string, a *Array, expect map[string]jsonx.RawMessage) {
	t.Helper()
	if expect == nil {
		return
	}
	schema, err := a.Schema()
	if err != nil {
		t.Fatalf("%s: schema: %v", where, err)
	}
	spec, err := a.Spec()
	if err != nil {
		t.Fatalf("%s: spec: %v", where, err)
	}
	for k, want := range expect {
		switch k {
		case "schema":
			compareJSON(t, where+" schema", schema, want)
		case "chunk_layout", "codec", "domain", "dtype", "fill_value", "rank", "dimension_units":
			compareJSON(t, where+" schema."+k, schema[k], want)
		case "shape":
			compareJSON(t, where+" shape", a.Shape(), want)
		case "dimensionNames":
			compareJSON(t, where+" dimension names", a.DimensionNames(), want)
		case "spec":
			var members map[string]jsonx.RawMessage
			must(t, jsonx.UnmarshalStrict(want, &members))
			for m, w := range members {
				compareJSON(t, where+" spec."+m, spec[m], w)
			}
		default:
			t.Fatalf("%s: unknown expectation %q", where, k)
		}
	}
}

// compareJSON compares got (a Go value) with want (JSON) after both pass
// through JSON, numbers compared as float64.
func compareJSON(t *testing.T, where string, got any, want jsonx.RawMessage) {
	t.Helper()
	g, err := jsonx.Marshal(got, "")
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	var gv, wv any
	must(t, jsonx.UnmarshalStrict(g, &gv))
	must(t, jsonx.UnmarshalStrict(want, &wv))
	if !reflect.DeepEqual(gv, wv) {
		t.Fatalf("%s:\n got  %s\n want %s", where, g, want)
	}
}

func fileBytes(t *testing.T, content jsonx.RawMessage) []byte {
	var h struct {
		Hex *string `json:"hex"`
	}
	if jsonx.UnmarshalStrict(content, &h) == nil && h.Hex != nil {
		b, err := hex.DecodeString(*h.Hex)
		must(t, err)
		return b
	}
	return content
}

func checkFiles(t *testing.T, where, dir string, exact bool, expect map[string]jsonx.RawMessage) {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(names)
	if exact {
		want := make([]string, 0, len(expect))
		for k := range expect {
			want = append(want, k)
		}
		sort.Strings(want)
		if !reflect.DeepEqual(names, want) && !(len(names) == 0 && len(want) == 0) {
			t.Fatalf("%s: files %v, want %v", where, names, want)
		}
	}
	for name, content := range expect {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if string(content) == "null" {
			continue
		}
		var h struct {
			Hex *string `json:"hex"`
		}
		if jsonx.UnmarshalStrict(content, &h) == nil && h.Hex != nil {
			if got := hex.EncodeToString(data); got != *h.Hex {
				t.Fatalf("%s: %s holds %s, want %s", where, name, got, *h.Hex)
			}
			continue
		}
		var gv, wv any
		if err := jsonx.UnmarshalStrict(data, &gv); err != nil {
			t.Fatalf("%s: %s is not JSON: %v", where, name, err)
		}
		must(t, jsonx.UnmarshalStrict(content, &wv))
		if !reflect.DeepEqual(gv, wv) {
			t.Fatalf("%s: %s holds\n %s\nwant\n %s", where, name, data, content)
		}
	}
}

// flatJSON flattens a scalar or nested list.
func flatJSON(v any, out []any) []any {
	if l, ok := v.([]any); ok {
		for _, x := range l {
			out = flatJSON(x, out)
		}
		return out
	}
	return append(out, v)
}

func jsonShape(v any) []int {
	var s []int
	for {
		l, ok := v.([]any)
		if !ok {
			return s
		}
		s = append(s, len(l))
		if len(l) == 0 {
			return s
		}
		v = l[0]
	}
}

func ndFromJSON(t *testing.T, dt *dtype.DataType, raw jsonx.RawMessage) *NDArray {
	t.Helper()
	var v any
	must(t, jsonx.Unmarshal(raw, &v))
	vals := flatJSON(v, nil)
	a := NewNDArray(dt, jsonShape(v))
	if len(vals) != a.Len() {
		t.Fatalf("value %s: %d values for shape %v", raw, len(vals), a.Shape())
	}
	for i, x := range vals {
		must(t, dt.EncodeScalar(a.Bytes()[i*dt.Size:(i+1)*dt.Size], x))
	}
	return a
}

func compareValues(t *testing.T, where string, got *NDArray, want jsonx.RawMessage) {
	t.Helper()
	var v any
	must(t, jsonx.Unmarshal(want, &v))
	if !reflect.DeepEqual(got.Shape(), append([]int{}, jsonShape(v)...)) && !(len(got.Shape()) == 0 && len(jsonShape(v)) == 0) {
		t.Fatalf("%s: shape %v, want %v", where, got.Shape(), jsonShape(v))
	}
	dt := got.DType()
	b := got.Bytes()
	for i, w := range flatJSON(v, nil) {
		g := dt.LoadFloat64(b[i*dt.Size : (i+1)*dt.Size])
		var wf float64
		switch x := w.(type) {
		case jsonx.Number:
			wf, _ = x.Float64()
		case float64:
			wf = x
		case bool:
			if x {
				wf = 1
			}
		}
		if g != wf && !(math.IsNaN(g) && math.IsNaN(wf)) {
			t.Fatalf("%s: element %d is %v, want %v", where, i, g, wf)
		}
	}
}
