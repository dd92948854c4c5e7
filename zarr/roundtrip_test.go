package zarr_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// rtCase is one array the engine writes for zarr-python to read back.
type rtCase struct {
	name   string
	opt    zarr.ArrayOptions
	values func(n int) any // []byte element bytes, or []any objects
	// region, when set, is overwritten with one element after the full
	// write (a partial-chunk read-modify-write); 2-d arrays only.
	region *[4]int // rows r0:r1, cols c0:c1
	scalar any     // the element written into region ([]byte or object)
}

func elementBytes(dt *dtype.DataType, n int, gen func(i int, b []byte)) []byte {
	out := make([]byte, n*dt.Size)
	for i := 0; i < n; i++ {
		gen(i, out[i*dt.Size:(i+1)*dt.Size])
	}
	return out
}

func mustDT(s string) *dtype.DataType { return dtype.MustParseV2(s) }

// numbers returns values covering the type's range: small patterns, the
// extremes, and for floats NaN and infinities.
func numbers(typestr string) func(n int) any {
	dt := mustDT(typestr)
	return func(n int) any {
		return elementBytes(dt, n, func(i int, b []byte) {
			switch dt.Kind {
			case dtype.Bool:
				if i%3 == 0 {
					b[0] = 1
				}
			case dtype.Int, dtype.Uint, dtype.Datetime, dtype.Timedelta:
				v := uint64(i*7919) ^ uint64(i)<<(uint(dt.Size*8)-4)
				switch i % 11 {
				case 1:
					v = 1<<(uint(dt.Size*8)-1) - 1 // signed max
				case 2:
					v = 1 << (uint(dt.Size*8) - 1) // signed min / big unsigned
				case 3:
					v = math.MaxUint64 // -1 / unsigned max
				}
				dt.StoreUint64(b, v)
			case dtype.Float:
				f := float64(i)*0.5 - 3.25
				switch i % 13 {
				case 1:
					f = math.NaN()
				case 2:
					f = math.Inf(1)
				case 3:
					f = math.Inf(-1)
				case 4:
					f = -0.0
				}
				dt.StoreFloat64(b, f)
			case dtype.Complex:
				h := dt.Size / 2
				re := &dtype.DataType{Kind: dtype.Float, Size: h}
				re.StoreFloat64(b[:h], float64(i)*1.5)
				re.StoreFloat64(b[h:], -float64(i)/4)
			case dtype.Bytes:
				copy(b, fmt.Sprintf("s%d", i*37))
			case dtype.Unicode:
				_ = dtype.PutUnicode(b, []string{"", "é", "ab", "日本", "z\u00ff"}[i%5]+fmt.Sprint(i%7))
			case dtype.Void:
				for k := range b {
					b[k] = byte(i*31 + k)
				}
			}
		})
	}
}

func floatsFrom(typestr string, f func(i int) float64) func(n int) any {
	dt := mustDT(typestr)
	return func(n int) any {
		return elementBytes(dt, n, func(i int, b []byte) { dt.StoreFloat64(b, f(i)) })
	}
}

func structValues(n int) any {
	// [("x", "<f4"), ("y", ">i2"), ("z", "|u1", [2])]
	out := make([]byte, n*8)
	for i := 0; i < n; i++ {
		b := out[i*8:]
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(i)/3))
		binary.LittleEndian.PutUint16(b[4:], uint16(int16(-i*100)))
		b[6], b[7] = byte(i), byte(255-i)
	}
	return out
}

func stringsValues(n int) any {
	out := make([]any, n)
	for i := range out {
		out[i] = []string{"", "alpha", "βeta", "日本語", "x y"}[i%5] + strings.Repeat("!", i%3)
	}
	return out
}

func bytesValues(n int) any {
	out := make([]any, n)
	for i := range out {
		b := make([]byte, i%6)
		for k := range b {
			b[k] = byte(i * (k + 3))
		}
		out[i] = b
	}
	return out
}

func jsonValues(n int) any {
	out := make([]any, n)
	for i := range out {
		switch i % 4 {
		case 0:
			out[i] = fmt.Sprintf("s%d", i)
		case 1:
			out[i] = int64(i * 1000)
		case 2:
			out[i] = []any{int64(i), "x"}
		default:
			out[i] = map[string]any{"k": int64(i)}
		}
	}
	return out
}

func roundTripCases() []rtCase {
	shape2 := []int{13, 9}
	chunks2 := []int{5, 4}
	var cases []rtCase
	add := func(name string, opt zarr.ArrayOptions, values func(int) any) {
		if opt.Shape == nil {
			opt.Shape, opt.Chunks = shape2, chunks2
		}
		cases = append(cases, rtCase{name: name, opt: opt, values: values})
	}
	// Every v2 dtype in both byte orders.
	for _, ts := range []string{"|b1", "|i1", "|u1", "<i2", ">i2", "<i4", ">i4", "<i8", ">i8", "<u2", ">u2", "<u4", ">u4", "<u8", ">u8",
		"<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "<c8", ">c8", "<c16", ">c16", "<M8[ns]", ">M8[s]", "<m8[ms]", "|S6", "<U4", ">U4", "|V3"} {
		add("dtype/"+strings.NewReplacer("<", "le_", ">", "be_", "|", "", "[", "_", "]", "").Replace(ts),
			zarr.ArrayOptions{DType: ts, Compressor: map[string]any{"id": "zlib", "level": 1}}, numbers(ts))
	}
	add("dtype/struct", zarr.ArrayOptions{DType: []any{[]any{"x", "<f4"}, []any{"y", ">i2"}, []any{"z", "|u1", []any{2}}},
		Compressor: map[string]any{"id": "zlib", "level": 1}}, structValues)
	// Object arrays.
	add("object/vlen_utf8", zarr.ArrayOptions{DType: "|O", Filters: []map[string]any{{"id": "vlen-utf8"}}}, stringsValues)
	add("object/vlen_bytes", zarr.ArrayOptions{DType: "|O", Filters: []map[string]any{{"id": "vlen-bytes"}}}, bytesValues)
	add("object/json2", zarr.ArrayOptions{DType: "|O", Filters: []map[string]any{{"id": "json2", "encoding": "utf-8"}}}, jsonValues)
	// Compressors.
	for _, c := range []map[string]any{
		{"id": "zlib", "level": 6}, {"id": "gzip", "level": 5}, {"id": "bz2", "level": 9},
		{"id": "lzma", "format": 1, "check": -1, "preset": 6, "filters": nil},
		{"id": "lzma", "format": 3, "check": -1, "preset": nil, "filters": []any{map[string]any{"id": 3, "dist": 8}, map[string]any{"id": 33, "preset": 1}}},
		// numcodecs 0.11 rejects zstd's "checksum" key, so zarr-python 2.13
		// cannot check it; zarrita's fixtures cover reading it.
		{"id": "zstd", "level": 3}, {"id": "lz4", "acceleration": 1},
		{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
		{"id": "blosc", "cname": "blosclz", "clevel": 9, "shuffle": 2, "blocksize": 0},
		{"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": -1, "blocksize": 0},
		{"id": "blosc", "cname": "zlib", "clevel": 1, "shuffle": 0, "blocksize": 256},
		{"id": "blosc", "cname": "snappy", "clevel": 5, "shuffle": 1, "blocksize": 0},
		{"id": "blosc", "cname": "lz4hc", "clevel": 7, "shuffle": 1, "blocksize": 0},
	} {
		name := fmt.Sprintf("compressor/%v", c["id"])
		if c["cname"] != nil {
			name += fmt.Sprintf("_%v_%v", c["cname"], c["shuffle"])
		}
		if c["checksum"] != nil {
			name += "_checksum"
		}
		if c["format"] == 3 {
			name += "_raw_delta"
		}
		add(name, zarr.ArrayOptions{DType: "<f8", Compressor: c, Shape: []int{200, 30}, Chunks: []int{64, 16}}, numbers("<f8"))
	}
	add("compressor/none", zarr.ArrayOptions{DType: "<i4", NoCompressor: true}, numbers("<i4"))
	// Filters (lossy ones get inputs they keep exactly).
	add("filter/delta_i4", zarr.ArrayOptions{DType: "<i4", Filters: []map[string]any{{"id": "delta", "dtype": "<i4", "astype": "<i4"}}}, numbers("<i4"))
	add("filter/delta_f8_be", zarr.ArrayOptions{DType: ">f8", Filters: []map[string]any{{"id": "delta", "dtype": ">f8", "astype": ">f8"}}},
		floatsFrom(">f8", func(i int) float64 { return float64(i*i) / 8 }))
	add("filter/fixedscaleoffset", zarr.ArrayOptions{DType: "<f8", Filters: []map[string]any{{"id": "fixedscaleoffset", "scale": 10, "offset": 1000, "dtype": "<f8", "astype": "|u1"}}},
		floatsFrom("<f8", func(i int) float64 { return float64(i%256)/10 + 1000 }))
	add("filter/quantize", zarr.ArrayOptions{DType: "<f8", Filters: []map[string]any{{"id": "quantize", "digits": 2, "dtype": "<f8", "astype": "<f8"}}},
		floatsFrom("<f8", func(i int) float64 { return float64(i-50) / 128 }))
	add("filter/bitround", zarr.ArrayOptions{DType: "<f4", Filters: []map[string]any{{"id": "bitround", "keepbits": 10}}},
		floatsFrom("<f4", func(i int) float64 { return float64(i-40) * 0.75 }))
	add("filter/astype", zarr.ArrayOptions{DType: "<f8", Filters: []map[string]any{{"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}}},
		floatsFrom("<f8", func(i int) float64 { return float64(i) * 0.25 }))
	add("filter/shuffle", zarr.ArrayOptions{DType: "<i8", Filters: []map[string]any{{"id": "shuffle", "elementsize": 8}}}, numbers("<i8"))
	add("filter/packbits", zarr.ArrayOptions{DType: "|b1", Filters: []map[string]any{{"id": "packbits"}}}, numbers("|b1"))
	add("filter/categorize", zarr.ArrayOptions{DType: "<U3", Filters: []map[string]any{{"id": "categorize", "labels": []any{"a", "bb", "ccc"}, "dtype": "<U3", "astype": "|u1"}}},
		func(n int) any {
			dt := mustDT("<U3")
			return elementBytes(dt, n, func(i int, b []byte) { _ = dtype.PutUnicode(b, []string{"a", "bb", "ccc"}[i%3]) })
		})
	add("filter/chain", zarr.ArrayOptions{DType: "<i2", Filters: []map[string]any{{"id": "delta", "dtype": "<i2", "astype": "<i2"}, {"id": "shuffle", "elementsize": 2}},
		Compressor: map[string]any{"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 0, "blocksize": 0}}, numbers("<i2"))
	// Filter lists the v3 chain cannot express: numcodecs' order and views.
	zlib1 := map[string]any{"id": "zlib", "level": 1}
	for name, o := range map[string]zarr.ArrayOptions{
		"shuffle_delta":        {DType: "<i4", Filters: []map[string]any{{"id": "shuffle", "elementsize": 4}, {"id": "delta", "dtype": "<i4"}}, Compressor: zlib1},
		"zlib_delta":           {DType: "<i4", Filters: []map[string]any{zlib1, {"id": "delta", "dtype": "|u1"}}, NoCompressor: true},
		"crc32_delta":          {DType: "<i4", Filters: []map[string]any{{"id": "crc32"}, {"id": "delta", "dtype": "<i4"}}, Compressor: zlib1},
		"filter_as_compressor": {DType: "<i4", Filters: []map[string]any{{"id": "shuffle", "elementsize": 4}}, Compressor: map[string]any{"id": "delta", "dtype": "<i4"}},
		"be_data_le_delta":     {DType: ">i4", Filters: []map[string]any{{"id": "delta", "dtype": "<i4"}}, Compressor: zlib1},
		"le_data_be_astype":    {DType: "<i2", Filters: []map[string]any{{"id": "astype", "decode_dtype": ">i2", "encode_dtype": ">i4"}}, Compressor: zlib1},
		"mixed_struct":         {DType: []any{[]any{"x", "<f4"}, []any{"y", ">i2"}, []any{"z", "|u1", []any{2}}}, Filters: []map[string]any{{"id": "shuffle", "elementsize": 8}}, Compressor: zlib1},
		"zstd_level_100":       {DType: "<i4", Compressor: map[string]any{"id": "zstd", "level": 100}},
		"zstd_level_min":       {DType: "<i4", Compressor: map[string]any{"id": "zstd", "level": -200000}},
	} {
		var values func(int) any = structValues
		if ts, ok := o.DType.(string); ok {
			values = numbers(ts)
		}
		add("order/"+name, o, values)
	}
	// Layout.
	add("layout/F_i4", zarr.ArrayOptions{DType: "<i4", Order: "F"}, numbers("<i4"))
	add("layout/F_struct", zarr.ArrayOptions{DType: []any{[]any{"x", "<f4"}, []any{"y", ">i2"}, []any{"z", "|u1", []any{2}}}, Order: "F"}, structValues)
	add("layout/F_3d", zarr.ArrayOptions{DType: ">f4", Order: "F", Shape: []int{5, 6, 7}, Chunks: []int{2, 4, 3}}, numbers(">f4"))
	add("layout/nested_separator", zarr.ArrayOptions{DType: "<u2", DimensionSeparator: "/"}, numbers("<u2"))
	add("layout/chunks_larger", zarr.ArrayOptions{DType: "<i2", Shape: []int{7, 3}, Chunks: []int{10, 10}}, numbers("<i2"))
	add("layout/zero_d", zarr.ArrayOptions{DType: "<f8", Shape: []int{}, Chunks: []int{}}, numbers("<f8"))
	add("layout/zero_length", zarr.ArrayOptions{DType: "<f8", Shape: []int{0, 5}, Chunks: []int{3, 3}}, numbers("<f8"))
	add("layout/fill_nan", zarr.ArrayOptions{DType: "<f4", FillValue: math.NaN()}, numbers("<f4"))

	// Partial writes: a scalar into a region crossing chunk edges.
	i4 := mustDT("<i4")
	v := make([]byte, 4)
	binary.LittleEndian.PutUint32(v, 0xdeadbeef)
	cases = append(cases, rtCase{name: "write/region_i4", opt: zarr.ArrayOptions{Shape: shape2, Chunks: chunks2, DType: "<i4", FillValue: -7},
		values: numbers("<i4"), region: &[4]int{3, 11, 2, 7}, scalar: v})
	_ = i4
	cases = append(cases, rtCase{name: "write/region_only_fill", opt: zarr.ArrayOptions{Shape: shape2, Chunks: chunks2, DType: "<f8", FillValue: 1.5},
		region: &[4]int{1, 12, 0, 3}, scalar: floatsFrom("<f8", func(int) float64 { return 2.5 })(1)})
	cases = append(cases, rtCase{name: "write/region_strings", opt: zarr.ArrayOptions{Shape: shape2, Chunks: chunks2, DType: "|O", Filters: []map[string]any{{"id": "vlen-utf8"}}},
		values: stringsValues, region: &[4]int{4, 6, 1, 9}, scalar: "région"})
	return cases
}

// TestZarrPythonReadsOurWrites writes arrays of every dtype, codec, filter
// and layout with the engine, then has zarr-python 2 read them back and
// compare with the values written.
func TestZarrPythonReadsOurWrites(t *testing.T) {
	py := peers.RequirePython(t, "zarr", "numcodecs")
	ctx := context.Background()
	root := t.TempDir()
	s, err := zarr.NewDirectoryStore(filepath.Join(root, "rt.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []map[string]any
	for _, c := range roundTripCases() {
		c.opt.ZarrFormat = 2 // zarr-python 2 reads v2
		arr, err := zarr.CreateArray(ctx, s, c.name, c.opt)
		if err != nil {
			t.Errorf("%s: create: %v", c.name, err)
			continue
		}
		dt := arr.DType()
		shape := arr.Shape()
		n := 1
		for _, d := range shape {
			n *= d
		}
		// The expected values: the fill, then the full write, then the region.
		var expBytes []byte
		var expObjs []any
		if dt.Variable() {
			expObjs = make([]any, n)
			for i := range expObjs {
				expObjs[i] = arr.Fill().Value
			}
		} else {
			expBytes = make([]byte, n*dt.Size)
			for i := 0; i < n; i++ {
				copy(expBytes[i*dt.Size:], arr.Fill().Bytes)
			}
		}
		if c.values != nil {
			var nd *zarr.NDArray
			switch v := c.values(n).(type) {
			case []byte:
				nd, err = zarr.NDArrayFromBytes(dt, shape, v)
				expBytes = append([]byte(nil), v...)
			case []any:
				nd, err = zarr.NDArrayFromObjects(dt, shape, v)
				expObjs = append([]any(nil), v...)
			}
			if err == nil {
				err = arr.Write(ctx, nil, nd)
			}
			if err != nil {
				t.Errorf("%s: write: %v", c.name, err)
				continue
			}
		}
		if c.region != nil {
			r := c.region
			sel, _ := zarr.ParseSelection(fmt.Sprintf("%d:%d, %d:%d", r[0], r[1], r[2], r[3]))
			var one *zarr.NDArray
			if b, ok := c.scalar.([]byte); ok {
				one, err = zarr.NDArrayFromBytes(dt, []int{}, b)
			} else {
				one, err = zarr.NDArrayFromObjects(dt, []int{}, []any{c.scalar})
			}
			if err == nil {
				err = arr.Write(ctx, sel, one)
			}
			if err != nil {
				t.Errorf("%s: region write: %v", c.name, err)
				continue
			}
			for i := r[0]; i < r[1]; i++ {
				for j := r[2]; j < r[3]; j++ {
					k := i*shape[1] + j
					if dt.Variable() {
						expObjs[k] = c.scalar
					} else {
						copy(expBytes[k*dt.Size:(k+1)*dt.Size], c.scalar.([]byte))
					}
				}
			}
		}
		rawDT, _ := dt.V2JSON()
		entry := map[string]any{"name": c.name, "store": "rt.zarr", "path": c.name, "zarr_format": 2,
			"selection": "", "shape": shape, "dtype": rawDT}
		if dt.Variable() {
			objs := make([]any, len(expObjs))
			for i, o := range expObjs {
				if b, ok := o.([]byte); ok {
					objs[i] = map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}
				} else {
					objs[i] = o
				}
			}
			entry["objects"] = objs
		} else {
			entry["bytes"] = base64.StdEncoding.EncodeToString(expBytes)
		}
		cases = append(cases, entry)
	}
	if len(cases) == 0 {
		t.Fatal("nothing was written")
	}
	data, err := jsonx.MarshalStrict(cases)
	if err != nil {
		t.Fatal(err)
	}
	casesFile := filepath.Join(root, "cases.json")
	if err := os.WriteFile(casesFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(peers.RepoRoot(), "tests", "python", "verify_cases.py")
	out, err := exec.Command(py, script, root, casesFile).CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "FAIL") || strings.Contains(line, "Traceback") || strings.Contains(line, "Error") {
			t.Error(line)
		}
	}
	if err != nil {
		t.Errorf("zarr-python verification failed: %v\n%s", err, lastLines(string(out), 5))
	}
	t.Logf("zarr-python: %s", lastLines(string(out), 1))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestZarrPythonReadsOurConsolidated writes a v2 hierarchy (nested groups
// with attributes, arrays of numbers and strings), consolidates it and
// removes every other metadata document, so zarr-python 2.13 reads the
// hierarchy through the .zmetadata the engine wrote alone: the values, and
// the groups' attributes.
func TestZarrPythonReadsOurConsolidated(t *testing.T) {
	py := peers.RequirePython(t, "zarr", "numcodecs")
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "rtc.zarr")
	s, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	rootAttrs := map[string]any{"title": "consolidated by the engine", "scale": 0.5, "nan": math.NaN()}
	gAttrs := map[string]any{"levels": []any{1, 2, 3}}
	if _, err := zarr.CreateGroup(ctx, s, "", zarr.GroupOptions{ZarrFormat: 2, Attributes: rootAttrs}); err != nil {
		t.Fatal(err)
	}
	if _, err := zarr.CreateGroup(ctx, s, "g", zarr.GroupOptions{ZarrFormat: 2, Attributes: gAttrs}); err != nil {
		t.Fatal(err)
	}
	var cases []map[string]any
	for _, c := range []struct {
		path   string
		opt    zarr.ArrayOptions
		values func(int) any
	}{
		{"a", zarr.ArrayOptions{DType: "<i4", Shape: []int{13, 9}, Chunks: []int{5, 4}, Attributes: map[string]any{"units": "m"}}, numbers("<i4")},
		{"g/b", zarr.ArrayOptions{DType: ">f8", Shape: []int{20}, Chunks: []int{6}, FillValue: 1.5}, numbers(">f8")},
		{"g/h/c", zarr.ArrayOptions{DType: "|O", Shape: []int{7, 3}, Chunks: []int{4, 2}, Filters: []map[string]any{{"id": "vlen-utf8"}}}, stringsValues},
	} {
		c.opt.ZarrFormat = 2
		arr, err := zarr.CreateArray(ctx, s, c.path, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		n := 1
		for _, d := range c.opt.Shape {
			n *= d
		}
		rawDT, _ := arr.DType().V2JSON()
		entry := map[string]any{"name": c.path, "store": "rtc.zarr", "path": c.path, "zarr_format": 2, "selection": "", "shape": c.opt.Shape, "dtype": rawDT}
		var nd *zarr.NDArray
		switch v := c.values(n).(type) {
		case []byte:
			nd, err = zarr.NDArrayFromBytes(arr.DType(), c.opt.Shape, v)
			entry["bytes"] = base64.StdEncoding.EncodeToString(v)
		case []any:
			nd, err = zarr.NDArrayFromObjects(arr.DType(), c.opt.Shape, v)
			entry["objects"] = v
		}
		if err == nil {
			err = arr.Write(ctx, nil, nd)
		}
		if err != nil {
			t.Fatalf("%s: write: %v", c.path, err)
		}
		cases = append(cases, entry)
	}
	if err := zarr.Consolidate(ctx, s, ""); err != nil {
		t.Fatal(err)
	}
	removed := 0
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && (info.Name() == ".zarray" || info.Name() == ".zgroup" || info.Name() == ".zattrs") {
			removed++
			return os.Remove(p)
		}
		return err
	})
	if err != nil || removed != 9 { // 3 groups (.zgroup; .zattrs for 2), 3 arrays (.zattrs for 1)
		t.Fatalf("removed %d metadata documents (%v)", removed, err)
	}

	data, err := jsonx.MarshalStrict(cases)
	if err != nil {
		t.Fatal(err)
	}
	casesFile := filepath.Join(root, "cases.json")
	if err := os.WriteFile(casesFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join(peers.RepoRoot(), "tests", "python", "verify_cases.py"), root, casesFile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "3 passed, 0 failed") {
		t.Fatalf("zarr-python: %v\n%s", err, out)
	}
	const attrsScript = `import json, math, sys, zarr
g = zarr.open_consolidated(sys.argv[1], mode="r")
nan = g.attrs["nan"]
print(json.dumps({"root": {k: v for k, v in g.attrs.items() if k != "nan"}, "nan": isinstance(nan, float) and math.isnan(nan),
    "g": dict(g["g"].attrs), "a": dict(g["a"].attrs), "groups": sorted(n for n, _ in g.groups()) + sorted("g/" + n for n, _ in g["g"].groups())}, sort_keys=True))`
	out, err = exec.Command(py, "-c", attrsScript, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("zarr-python: %v\n%s", err, out)
	}
	want := `{"a": {"units": "m"}, "g": {"levels": [1, 2, 3]}, "groups": ["g", "g/h"], "nan": true, "root": {"scale": 0.5, "title": "consolidated by the engine"}}`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("zarr-python reads\n%s\nwant\n%s", got, want)
	}
}
