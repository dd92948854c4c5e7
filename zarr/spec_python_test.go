package zarr_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// TestZarrPythonReadsSpecArrays creates arrays through TensorStore specs
// (TensorStore's defaults, a structured dtype in F order written field by
// field, a transposed view) and has zarr-python 2.13 check the .zarray it
// sees and the values, per field as a['x'] reads them.
func TestZarrPythonReadsSpecArrays(t *testing.T) {
	py := peers.RequirePython(t, "zarr", "numcodecs")
	ctx := context.Background()
	root := filepath.ToSlash(t.TempDir())
	open := func(spec string) *zarr.Array {
		t.Helper()
		a, err := zarr.OpenSpec(ctx, strings.ReplaceAll(spec, "$ROOT", root))
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		return a
	}
	write := func(a *zarr.Array, sel string, shape []int, f func(i int) float64) {
		t.Helper()
		v := zarr.NewNDArray(a.DType(), shape)
		dt := a.DType()
		for i := 0; i < v.Len(); i++ {
			dt.StoreFloat64(v.Bytes()[i*dt.Size:(i+1)*dt.Size], f(i))
		}
		s, err := zarr.ParseSelection(sel)
		if err == nil {
			err = a.Write(ctx, s, v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var checks []map[string]any

	// TensorStore's defaults: dtype from the schema, automatic chunks,
	// blosc, fill_value null, order C.
	a := open(`{"driver": "zarr2", "kvstore": "file://$ROOT/defaults.zarr/", "create": true, "dtype": "int16", "schema": {"domain": {"shape": [50, 70]}}}`)
	write(a, "", []int{50, 70}, func(i int) float64 { return float64(i%5000 - 2500) })
	vals := make([][]int, 50)
	for i := range vals {
		vals[i] = make([]int, 70)
		for j := range vals[i] {
			vals[i][j] = (i*70+j)%5000 - 2500
		}
	}
	checks = append(checks, map[string]any{"name": "defaults", "path": "defaults.zarr", "fill_value": nil,
		"chunks": []int{50, 70}, "shape": []int{50, 70}, "dtype": "<i2", "values": vals})

	// The seed's chunk layout, metadata only (3 GB of chunks are not written).
	open(`{"driver": "zarr", "kvstore": "file://$ROOT/layout.zarr/", "create": true, "dtype": "uint16", "schema": {"domain": {"shape": [1000, 2000, 3000]}, "chunk_layout": {"chunk": {"aspect_ratio": [1, 2, 2], "elements": 2000000}}}}`)
	checks = append(checks, map[string]any{"name": "layout", "path": "layout.zarr", "fill_value": nil,
		"chunks": []int{79, 159, 159}, "shape": []int{1000, 2000, 3000}, "dtype": "<u2"})

	// A structured dtype in F order, written one field at a time (x whole,
	// y in a region), with key_encoding "/".
	const structured = `{"driver": "zarr", "kvstore": "file://$ROOT/struct.zarr/", "field": %q, "key_encoding": "/", %s
		"metadata": {"shape": [4, 5], "chunks": [3, 2], "dtype": [["x", "<u2", [2, 3]], ["y", "<f4", [5]]],
		"compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1}, "fill_value": "AQACAAMABAAFAAYAAAAgQQAAMEEAAEBBAABQQQAAYEE=", "order": "F"}}`
	x := open(fmt.Sprintf(structured, "x", `"create": true,`))
	write(x, "", []int{4, 5, 2, 3}, func(i int) float64 { return float64(1000 + i) })
	y := open(fmt.Sprintf(structured, "y", ""))
	write(y, "1:3, 2:4, 1:4", []int{2, 2, 3}, func(i int) float64 { return float64(i) + 0.5 })
	xs := make([][][][]int, 4)
	ys := make([][][]float64, 4)
	for i := range xs {
		xs[i] = make([][][]int, 5)
		ys[i] = make([][]float64, 5)
		for j := range xs[i] {
			xs[i][j] = [][]int{{0, 0, 0}, {0, 0, 0}}
			for p := 0; p < 2; p++ {
				for q := 0; q < 3; q++ {
					xs[i][j][p][q] = 1000 + ((i*5+j)*2+p)*3 + q
				}
			}
			ys[i][j] = []float64{10, 11, 12, 13, 14} // the fill value's y
			if i >= 1 && i < 3 && j >= 2 && j < 4 {
				for k := 1; k < 4; k++ {
					ys[i][j][k] = float64(((i-1)*2+(j-2))*3+(k-1)) + 0.5
				}
			}
		}
	}
	checks = append(checks, map[string]any{"name": "structured F order, by field", "path": "struct.zarr", "compressor": "given",
		"fill_value": "01000200030004000500060000002041000030410000404100005041000060 41", "order": "F", "dimension_separator": "/",
		"chunks": []int{3, 2}, "shape": []int{4, 5}, "dtype": []any{[]any{"x", "<u2", []int{2, 3}}, []any{"y", "<f4", []int{5}}},
		"fields": map[string]any{"x": xs, "y": ys}})
	checks[len(checks)-1]["fill_value"] = strings.ReplaceAll(checks[len(checks)-1]["fill_value"].(string), " ", "")

	// Writing through a transposed, translated view.
	open(`{"driver": "zarr", "kvstore": "file://$ROOT/t.zarr/", "create": true, "dtype": "float64", "metadata": {"compressor": null}, "schema": {"domain": {"shape": [3, 4]}, "fill_value": 0}}`)
	tv := open(`{"driver": "zarr", "kvstore": "file://$ROOT/t.zarr/", "transform": {"input_inclusive_min": [5, 0], "input_exclusive_max": [[9], [3]], "output": [{"input_dimension": 1}, {"input_dimension": 0, "offset": -5}]}}`)
	write(tv, "6:9, 1", []int{3}, func(i int) float64 { return float64(i + 1) })
	checks = append(checks, map[string]any{"name": "transposed write", "path": "t.zarr", "compressor": nil, "fill_value": "0000000000000000",
		"chunks": []int{3, 4}, "shape": []int{3, 4}, "dtype": "<f8",
		"values": [][]float64{{0, 0, 0, 0}, {0, 1, 2, 3}, {0, 0, 0, 0}}})

	data, err := jsonx.MarshalStrict(checks)
	if err != nil {
		t.Fatal(err)
	}
	checksFile := filepath.Join(t.TempDir(), "checks.json")
	if err := os.WriteFile(checksFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join(peers.RepoRoot(), "tests", "tsspec", "check_python.py"), root, checksFile).CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "FAIL") || strings.Contains(line, "Traceback") || strings.Contains(line, "Error") {
			t.Error(line)
		}
	}
	if err != nil {
		t.Fatalf("zarr-python: %v\n%s", err, out)
	}
	t.Logf("zarr-python: %s", lastLines(string(out), 1))
}

// TestZarritaReadsSpecV3Arrays creates zarr v3 arrays through TensorStore
// specs (the zarr3 driver's defaults, an inner order that makes a transpose
// codec, labels and units, sharding given in the metadata, a fill value
// from the schema) and has zarrita.js read them: its values must be those
// written.
func TestZarritaReadsSpecV3Arrays(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	type specCase struct {
		name, spec, typestr string
		region              string // written region ("" the whole array)
	}
	cases := []specCase{
		{"defaults", `"dtype": "int16", "schema": {"domain": {"shape": [13, 9]}}`, "<i2", ""},
		{"inner_order", `"dtype": "uint32", "schema": {"domain": {"shape": [5, 6, 7]}, "chunk_layout": {"inner_order": [2, 1, 0], "chunk": {"shape": [2, 4, 3]}}}`, "<u4", ""},
		{"labels_units", `"dtype": "float32", "schema": {"domain": {"shape": [4, 6], "labels": ["y", "x"]}, "dimension_units": [[2, "m"], "s"]}`, "<f4", ""},
		{"sharded", `"dtype": "int32", "metadata": {"shape": [30, 20], "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [10, 10]}},
			"codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [5, 5], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}],
			"index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]}`, "<i4", ""},
		{"schema_fill", `"dtype": "uint16", "schema": {"domain": {"shape": [8, 8]}, "chunk_layout": {"chunk": {"shape": [3, 3]}}, "fill_value": 7}`, "<u2", "2:5, 1:7"},
	}
	expect := map[string][]byte{}
	for _, c := range cases {
		spec := fmt.Sprintf(`{"driver": "zarr3", "kvstore": "file://%s/v3.zarr/%s/", "create": true, %s}`, filepath.ToSlash(root), c.name, c.spec)
		a, err := zarr.OpenSpec(ctx, spec)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		dt := a.DType()
		shape := a.Shape()
		n := 1
		for _, d := range shape {
			n *= d
		}
		want := make([]byte, 0, n*dt.Size)
		for i := 0; i < n; i++ {
			want = append(want, a.Fill().Bytes...)
		}
		sel, err := zarr.ParseSelection(c.region)
		if err != nil {
			t.Fatal(err)
		}
		if c.region == "" {
			v := numbers(c.typestr)(n).([]byte)
			nd, err := zarr.NDArrayFromBytes(dt, shape, v)
			if err == nil {
				err = a.Write(ctx, sel, nd)
			}
			if err != nil {
				t.Fatalf("%s: write: %v", c.name, err)
			}
			want = v
		} else {
			// rows 2:5, columns 1:7 of an 8x8 array
			v := numbers(c.typestr)(18).([]byte)
			nd, err := zarr.NDArrayFromBytes(dt, []int{3, 6}, v)
			if err == nil {
				err = a.Write(ctx, sel, nd)
			}
			if err != nil {
				t.Fatalf("%s: write: %v", c.name, err)
			}
			for r := 0; r < 3; r++ {
				copy(want[((2+r)*8+1)*dt.Size:], v[r*6*dt.Size:(r+1)*6*dt.Size])
			}
		}
		expect[c.name] = want
	}
	got := zarritaCases(t, root, "v3.zarr")
	seen := 0
	for _, g := range got {
		want, ok := expect[g.Path]
		if !ok {
			t.Errorf("zarrita found an array %q that was not written", g.Path)
			continue
		}
		seen++
		if g.Error != "" || g.Bytes == nil {
			t.Errorf("%s: zarrita cannot read it: %s", g.Path, g.Error)
			continue
		}
		if b, _ := base64.StdEncoding.DecodeString(*g.Bytes); string(b) != string(want) {
			t.Errorf("%s: zarrita reads different values", g.Path)
		}
	}
	if seen != len(expect) {
		t.Errorf("zarrita listed %d of the %d arrays written", seen, len(expect))
	}
}
