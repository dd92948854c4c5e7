package zarr_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// openDoc stores one metadata document and opens the array.
func openDoc(t *testing.T, key string, doc map[string]any) (*zarr.Array, error) {
	t.Helper()
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	raw, err := jsonx.MarshalStrict(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "a/"+key, raw); err != nil {
		t.Fatal(err)
	}
	return zarr.OpenArray(ctx, s, "a")
}

func v2Doc(filters []any, compressor any) map[string]any {
	return map[string]any{"zarr_format": 2, "shape": []int{8}, "chunks": []int{4}, "dtype": "<i4",
		"fill_value": 0, "order": "C", "filters": filters, "compressor": compressor}
}

func v3Doc(codecs []any) map[string]any {
	return map[string]any{"zarr_format": 3, "node_type": "array", "shape": []int{8}, "data_type": "int32",
		"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": []int{4}}},
		"chunk_key_encoding": map[string]any{"name": "default"}, "fill_value": 0, "codecs": codecs}
}

// A .zarray names numcodecs codecs only; zarr.json names v3 codecs, with
// "numcodecs." for numcodecs' ones. Each namespace refuses the other's
// names and says what the format calls the codec.
func TestCodecNamespaces(t *testing.T) {
	bytesLE := map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}
	for _, c := range []struct {
		name, key string
		doc       map[string]any
		code      errs.Code
		says      string // in the message
		suggest   string
	}{
		{"v2 bytes filter", ".zarray", v2Doc([]any{map[string]any{"id": "bytes"}}, nil), errs.InvalidMetadata, "is a v3 codec", ""},
		{"v2 transpose filter", ".zarray", v2Doc([]any{map[string]any{"id": "transpose", "order": []int{0}}}, nil), errs.InvalidMetadata, "is a v3 codec", ""},
		{"v2 sharding compressor", ".zarray", v2Doc(nil, map[string]any{"id": "sharding_indexed"}), errs.InvalidMetadata, "is a v3 codec", ""},
		{"v2 numcodecs. name", ".zarray", v2Doc(nil, map[string]any{"id": "numcodecs.zlib"}), errs.Unsupported, "unknown v2 codec id", "zlib"},
		{"v2 typo", ".zarray", v2Doc(nil, map[string]any{"id": "zlb"}), errs.Unsupported, "unknown v2 codec id", "zlib"},
		{"v2 pickle", ".zarray", v2Doc([]any{map[string]any{"id": "pickle"}}, nil), errs.Unsupported, "runs arbitrary code", ""},
		{"v3 bare numcodecs id", "zarr.json", v3Doc([]any{bytesLE, map[string]any{"name": "zlib"}}), errs.Unsupported, "unknown v3 codec", "numcodecs.zlib"},
		{"v3 bare delta", "zarr.json", v3Doc([]any{map[string]any{"name": "delta", "configuration": map[string]any{"dtype": "<i4"}}, bytesLE}), errs.Unsupported, "unknown v3 codec", "numcodecs.delta"},
		{"v3 unknown namespaced, no unrelated suggestion", "zarr.json", v3Doc([]any{bytesLE, map[string]any{"name": "numcodecs.pcodecs"}}), errs.Unsupported, "unknown v3 codec", "numcodecs.pcodec"},
		{"v3 far name", "zarr.json", v3Doc([]any{bytesLE, map[string]any{"name": "numcodecs.squash"}}), errs.Unsupported, "unknown v3 codec", ""},
		{"v3 pickle", "zarr.json", v3Doc([]any{map[string]any{"name": "numcodecs.pickle"}}), errs.Unsupported, "runs arbitrary code", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := openDoc(t, c.key, c.doc)
			var e *errs.Error
			if err == nil || !errors.As(err, &e) {
				t.Fatalf("got %v, want a %s error", err, c.code)
			}
			if e.Code != c.code || !strings.Contains(err.Error(), c.says) || e.Suggest != c.suggest {
				t.Fatalf("got %v (code %s, suggestion %q); want code %s, %q in the message, suggestion %q", err, e.Code, e.Suggest, c.code, c.says, c.suggest)
			}
		})
	}
}

// v3 names other writers use for the same codecs read as those codecs:
// numcodecs.blosc with numcodecs' integer shuffle, the early "endian".
func TestCodecAliases(t *testing.T) {
	ctx := context.Background()
	src := zarr.NewMemoryStore()
	a, err := zarr.CreateArray(ctx, src, "a", zarr.ArrayOptions{Shape: []int{8}, Chunks: []int{4}, DType: "int32",
		Codecs: []map[string]any{{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
			{"name": "blosc", "configuration": map[string]any{"cname": "zstd", "clevel": 3, "shuffle": "bitshuffle", "typesize": 4}}}})
	if err != nil {
		t.Fatal(err)
	}
	vals, _ := zarr.NDArrayFromBytes(a.DType(), []int{8}, int32s(8, func(i int) int32 { return int32(i * 1000) }))
	if err := a.Write(ctx, nil, vals); err != nil {
		t.Fatal(err)
	}
	chunk, _, _ := src.Get(ctx, "a/c/1")
	for _, codecs := range [][]any{
		{map[string]any{"name": "endian", "configuration": map[string]any{"endian": "little"}},
			map[string]any{"name": "numcodecs.blosc", "configuration": map[string]any{"cname": "zstd", "clevel": 3, "shuffle": 2}}},
		{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
			map[string]any{"name": "blosc", "configuration": map[string]any{"cname": "zstd", "clevel": 3, "shuffle": 1, "typesize": 4}}},
	} {
		s := zarr.NewMemoryStore()
		raw, _ := jsonx.MarshalStrict(v3Doc(codecs))
		_ = s.Set(ctx, "a/zarr.json", raw)
		_ = s.Set(ctx, "a/c/1", chunk)
		arr, err := zarr.OpenArray(ctx, s, "a")
		if err != nil {
			t.Fatal(err)
		}
		sel, _ := zarr.ParseSelection("4:8")
		got, err := arr.Read(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		if want := int32s(4, func(i int) int32 { return int32((i + 4) * 1000) }); string(got.Bytes()) != string(want) {
			t.Fatalf("%v: read %x, want %x", codecs, got.Bytes(), want)
		}
	}
}

// Creating a v3 array with a bare numcodecs id writes its numcodecs. name
// (no v3 codec has the bare name; every v3 reader knows the other).
func TestCreateV3WritesNumcodecsNames(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	_, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{Shape: []int{8}, Chunks: []int{4}, DType: "int32",
		Codecs: []map[string]any{{"name": "delta", "configuration": map[string]any{"dtype": "<i4"}},
			{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, {"name": "zlib", "configuration": map[string]any{"level": 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := s.Get(ctx, "a/zarr.json")
	var m struct {
		Codecs []struct{ Name string } `json:"codecs"`
	}
	if err := jsonx.UnmarshalStrict(doc, &m); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range m.Codecs {
		got = append(got, c.Name)
	}
	if strings.Join(got, ",") != "numcodecs.delta,bytes,numcodecs.zlib" {
		t.Fatalf("wrote codecs %v", got)
	}
	_, err = zarr.CreateArray(ctx, s, "b", zarr.ArrayOptions{Shape: []int{8}, Chunks: []int{4}, DType: "int32",
		Codecs: []map[string]any{{"name": "bytes"}, {"name": "zlip"}}})
	if errs.CodeOf(err) != errs.Unsupported || !strings.Contains(err.Error(), "zlib") {
		t.Fatalf("a misspelt codec: got %v, want UNSUPPORTED suggesting zlib", err)
	}
}
