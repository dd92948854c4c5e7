package zarr_test

import (
	"context"
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
