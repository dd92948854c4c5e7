package meta

import (
	"reflect"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// Fields are the fields of what Document writes, field by field: the
// bridge hands the metadata to JS from Fields, where it used to write the
// document and read it back.
func TestFieldsMatchDocument(t *testing.T) {
	v2 := `{"zarr_format": 2, "shape": [10, 20], "chunks": [5, 5], "dtype": "<f4",
		"compressor": {"id": "zstd", "level": 3, "checksum": false}, "fill_value": "NaN",
		"order": "C", "filters": null, "dimension_separator": "/", "extra": {"a": [1, 2.5, null, true]}}`
	v3 := `{"zarr_format": 3, "node_type": "array", "shape": [7, 9000000000], "data_type": "int64",
		"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
		"chunk_key_encoding": {"name": "default"}, "fill_value": -9007199254740993,
		"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
		"attributes": {"title": "t", "n": 12345678901234567890}, "dimension_names": ["y", null]}`
	v1 := `{"zarr_format": 1, "shape": [4], "chunks": [2], "dtype": "<i2", "compression": "zlib",
		"compression_opts": 1, "fill_value": 0, "order": "C"}`
	var arrays []*Array
	a2, err := ParseV2(".zarray", []byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	n3, err := ParseV3("zarr.json", []byte(v3))
	if err != nil {
		t.Fatal(err)
	}
	a1, err := ParseV1("meta", []byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	resized, err := ParseV2(".zarray", []byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	resized.SetShape([]int{0, 123456789012})
	arrays = append(arrays, a2, n3.Array, a1, resized)
	for i, a := range arrays {
		doc, err := a.Document()
		if err != nil {
			t.Fatal(i, err)
		}
		var want map[string]any
		if err := jsonx.Unmarshal(doc, &want); err != nil {
			t.Fatal(i, err)
		}
		got := map[string]any{}
		for k, raw := range a.Fields() {
			var v any
			if err := jsonx.Unmarshal(raw, &v); err != nil {
				t.Fatalf("%d: field %s: %v", i, k, err)
			}
			got[k] = v
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d: Fields\n%v\nDocument\n%v", i, got, want)
		}
	}
}
