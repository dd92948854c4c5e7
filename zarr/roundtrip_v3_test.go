package zarr_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// TestZarritaReadsOurV3Writes writes v3 arrays (data types, codecs,
// sharding, key encodings, transposes) with the engine and has zarrita.js
// read them; its values must equal what was written.
func TestZarritaReadsOurV3Writes(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s, err := zarr.NewDirectoryStore(filepath.Join(root, "rt3.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	bytesCodec := map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}
	bigCodec := map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "big"}}
	gzip := map[string]any{"name": "gzip", "configuration": map[string]any{"level": 5}}
	crc := map[string]any{"name": "crc32c"}
	type c3 struct {
		name   string
		opt    zarr.ArrayOptions
		values func(int) any
	}
	var cases []c3
	add := func(name string, opt zarr.ArrayOptions, values func(int) any) {
		if opt.Shape == nil {
			opt.Shape, opt.Chunks = []int{13, 9}, []int{5, 4}
		}
		cases = append(cases, c3{name, opt, values})
	}
	for _, ts := range []string{"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"} {
		add("dtype/"+ts, zarr.ArrayOptions{DType: ts}, numbers(map[string]string{"bool": "|b1", "int8": "|i1", "uint8": "|u1"}[ts]+typestrOf(ts)))
	}
	add("dtype/string", zarr.ArrayOptions{DType: "string"}, stringsValues)
	add("codec/big_endian_gzip", zarr.ArrayOptions{DType: "int32", Codecs: []map[string]any{bigCodec, gzip}}, numbers("<i4"))
	add("codec/crc32c", zarr.ArrayOptions{DType: "float64", Codecs: []map[string]any{bytesCodec, crc}}, numbers("<f8"))
	add("codec/blosc", zarr.ArrayOptions{DType: "uint16", Codecs: []map[string]any{bytesCodec,
		{"name": "blosc", "configuration": map[string]any{"cname": "zstd", "clevel": 5, "shuffle": "bitshuffle", "typesize": 2, "blocksize": 0}}}}, numbers("<u2"))
	add("codec/transpose", zarr.ArrayOptions{DType: "int16", Order: "F", Shape: []int{5, 6, 7}, Chunks: []int{2, 4, 3}}, numbers("<i2"))
	add("codec/transpose_perm", zarr.ArrayOptions{DType: "int16", Shape: []int{5, 6, 7}, Chunks: []int{2, 4, 3}, Codecs: []map[string]any{
		{"name": "transpose", "configuration": map[string]any{"order": []int{2, 0, 1}}}, bytesCodec}}, numbers("<i2"))
	add("keys/dot_separator", zarr.ArrayOptions{DType: "int32", DimensionSeparator: "."}, numbers("<i4"))
	add("shard/default", zarr.ArrayOptions{DType: "int32", Shape: []int{30, 20}, Chunks: []int{4, 5}, ShardShape: []int{8, 10}}, numbers("<i4"))
	// zarrita 0.7 ignores index_location (it always reads the index at the
	// end), so an index at the start is checked by the v3 fixtures instead.
	add("shard/index_no_crc", zarr.ArrayOptions{DType: "float32", Shape: []int{30, 20}, Chunks: []int{30, 20}, Codecs: []map[string]any{{"name": "sharding_indexed", "configuration": map[string]any{
		"chunk_shape": []int{10, 5}, "codecs": []any{bytesCodec, gzip}, "index_codecs": []any{bytesCodec}, "index_location": "end"}}}}, numbers("<f4"))
	add("shard/strings", zarr.ArrayOptions{DType: "string", Shape: []int{12, 6}, Chunks: []int{3, 3}, ShardShape: []int{6, 6}}, stringsValues)
	add("layout/zero_d", zarr.ArrayOptions{DType: "float64", Shape: []int{}, Chunks: []int{}}, numbers("<f8"))
	add("layout/fill_only", zarr.ArrayOptions{DType: "int16", FillValue: -3}, nil)

	expect := map[string]any{}
	for _, c := range cases {
		arr, err := zarr.CreateArray(ctx, s, c.name, c.opt)
		if err != nil {
			t.Fatalf("%s: create: %v", c.name, err)
		}
		n := 1
		for _, d := range arr.Shape() {
			n *= d
		}
		if c.values == nil {
			b := make([]byte, 0, n*2)
			for i := 0; i < n; i++ {
				b = append(b, arr.Fill().Bytes...)
			}
			expect[c.name] = b
			continue
		}
		var nd *zarr.NDArray
		switch v := c.values(n).(type) {
		case []byte:
			nd, err = zarr.NDArrayFromBytes(arr.DType(), arr.Shape(), v)
			expect[c.name] = v
		case []any:
			nd, err = zarr.NDArrayFromObjects(arr.DType(), arr.Shape(), v)
			strs := make([]string, len(v))
			for i, o := range v {
				strs[i] = o.(string)
			}
			expect[c.name] = strs
		}
		if err == nil {
			err = arr.Write(ctx, nil, nd)
		}
		if err != nil {
			t.Fatalf("%s: write: %v", c.name, err)
		}
	}
	got := zarritaCases(t, root, "rt3.zarr")
	seen := 0
	for _, g := range got {
		want, ok := expect[g.Path]
		if !ok {
			continue
		}
		seen++
		if g.Error != "" {
			t.Errorf("%s: zarrita cannot read it: %s", g.Path, g.Error)
			continue
		}
		switch w := want.(type) {
		case []byte:
			if g.Bytes == nil {
				t.Errorf("%s: zarrita gave no bytes", g.Path)
				continue
			}
			b, _ := base64.StdEncoding.DecodeString(*g.Bytes)
			if string(b) != string(w) {
				t.Errorf("%s: zarrita reads different values", g.Path)
			}
		case []string:
			if !reflect.DeepEqual(g.Strings, w) {
				t.Errorf("%s: zarrita reads %q, want %q", g.Path, clipStrings(g.Strings), clipStrings(w))
			}
		}
	}
	if seen != len(expect) {
		t.Errorf("zarrita listed %d of the %d arrays written", seen, len(expect))
	}
	t.Logf("zarrita read %d arrays written by the engine", seen)
}

func clipStrings(s []string) string {
	if len(s) > 6 {
		s = s[:6]
	}
	return fmt.Sprint(s)
}

// typestrOf maps a v3 core name to its little-endian typestr suffix.
func typestrOf(name string) string {
	switch name {
	case "bool", "int8", "uint8":
		return ""
	case "int16":
		return "<i2"
	case "int32":
		return "<i4"
	case "int64":
		return "<i8"
	case "uint16":
		return "<u2"
	case "uint32":
		return "<u4"
	case "uint64":
		return "<u8"
	case "float32":
		return "<f4"
	case "float64":
		return "<f8"
	}
	return ""
}
