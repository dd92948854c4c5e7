package tsspec

import (
	"reflect"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
)

// The chunk shapes of TensorStore's documentation: the zarr2 driver's
// "Selection of chunk layout" examples, and ChunkLayout/Grid.aspect_ratio's
// ("an aspect_ratio of [1, 1.5, 1.5] ... elements 486000 ... [60, 90, 90]").
func TestChooseChunkShapeDocExamples(t *testing.T) {
	big := []int64{1000, 2000, 3000}
	for _, c := range []struct {
		extent   []int64
		fixed    []int64
		aspect   []float64
		elements int64
		want     []int64
	}{
		{big, nil, nil, 0, []int64{101, 101, 101}},
		{big, nil, []float64{1, 2, 2}, 0, []int64{64, 128, 128}},
		{big, nil, []float64{1, 2, 2}, 2000000, []int64{79, 159, 159}},
		{big, []int64{100, 200, 300}, nil, 0, []int64{100, 200, 300}},
		{[]int64{-1, -1, -1}, nil, []float64{1, 1.5, 1.5}, 486000, []int64{60, 90, 90}},
		// Small dimensions are taken whole; -1 is the full extent.
		{[]int64{20, 30, 40}, nil, nil, 0, []int64{20, 30, 40}},
		{[]int64{5, 100000}, []int64{-1, 0}, nil, 0, []int64{5, 100000}},
	} {
		got := ChooseChunkShape(c.extent, c.fixed, c.aspect, c.elements)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ChooseChunkShape(%v, %v, %v, %d) = %v, want %v", c.extent, c.fixed, c.aspect, c.elements, got, c.want)
		}
	}
}

// The URL forms of the kvstore and zarr2 documentation.
func TestParseURLDocExamples(t *testing.T) {
	for _, c := range []struct {
		url    string
		driver string
		kv     KvStore
	}{
		{"file:///tmp/dataset.zarr/|zarr2:", "zarr", KvStore{Driver: "file", Path: "/tmp/dataset.zarr/"}},
		{"file:///tmp/dataset.zarr|zarr2:path/within/hierarchy", "zarr", KvStore{Driver: "file", Path: "/tmp/dataset.zarr/path/within/hierarchy/"}},
		{"memory://abc.zarr|zarr2:def", "zarr", KvStore{Driver: "memory", Path: "abc.zarr/def/"}},
		{"memory://", "", KvStore{Driver: "memory"}},
		{"http://example.com", "", KvStore{Driver: "http", BaseURL: "http://example.com", Path: "/"}},
		{"https://example.com:8080/path/to/data%20base?query=value", "", KvStore{Driver: "http", BaseURL: "https://example.com:8080?query=value", Path: "/path/to/data base/"}},
		{"http://127.0.0.1:8080/data.zarr/|zarr3:", "zarr3", KvStore{Driver: "http", BaseURL: "http://127.0.0.1:8080", Path: "/data.zarr/"}},
	} {
		s, err := ParseURL(c.url)
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if s.Driver != c.driver || !reflect.DeepEqual(*s.KvStore, c.kv) {
			t.Errorf("%s: driver %q kvstore %+v, want %q %+v", c.url, s.Driver, *s.KvStore, c.driver, c.kv)
		}
	}
	// kvstore/http's note: these name the same resource.
	for _, spec := range []string{
		`{"driver": "zarr", "kvstore": {"driver": "http", "base_url": "https://example.com/my/path/?query=value", "path": "to/my data"}}`,
		`{"driver": "zarr", "kvstore": {"driver": "http", "base_url": "https://example.com/my/path?query=value", "path": "to/my data"}}`,
		`{"driver": "zarr", "kvstore": {"driver": "http", "base_url": "https://example.com?query=value", "path": "/my/path/to/my data"}}`,
	} {
		s, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.KvStore.URL(), "https://example.com/my/path/to/my%20data/?query=value"; got != want {
			t.Errorf("%s: URL %s, want %s", spec, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"driver":"zarr","kvstore":{"driver":"memory","path":"a/"},"metadata":{"dtype":"<u2","shape":[10],"chunks":[3],"fill_value":1,"compressor":{"id":"blosc"}},"create":true}`,
		`{"driver":"zarr2","kvstore":"memory://x","schema":{"domain":{"shape":[[4],5]},"chunk_layout":{"chunk":{"aspect_ratio":[1,2],"elements":10}},"fill_value":[1,2]},"dtype":"int8"}`,
		`{"driver":"zarr","kvstore":{"driver":"http","base_url":"http://h/x"},"transform":{"input_inclusive_min":[1],"input_shape":[[3]],"output":[{"input_dimension":0,"offset":-1}]}}`,
		`file:///tmp/a.zarr|zarr2:b`, `memory://|zarr3:`, `{"driver":"zarr","context":{"cache_pool":{"total_bytes_limit":100}},"recheck_cached_data":"open"}`,
		`{"driver":"zarr3","kvstore":"memory://","metadata":{"data_type":"uint16","shape":[10,11],"codecs":[{"name":"transpose","configuration":{"order":[1,0]}},{"name":"sharding_indexed","configuration":{"chunk_shape":[2,3]}}],"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4,6]}}},"schema":{"dimension_units":["4nm",null]}}`,
	} {
		f.Add(s)
	}
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, s string) {
		defer fuzzmem.Input(t)()
		spec, err := Parse(s)
		if err != nil {
			return
		}
		if spec.Driver == "zarr3" {
			if m, err := spec.NewV3Metadata(); err == nil {
				V3Schema(m, nil)
				spec.V3Spec(m, nil)
			}
			return
		}
		if m, fld, err := spec.NewV2Metadata(); err == nil {
			V2Schema(m, fld, nil)
			spec.V2Spec(m, fld, nil)
		}
	})
}
