package zarr_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// The fixed-length types of the registry's pull request 5 (zarr-python 3's
// early names, sized in bits): a document naming each, as its README's
// example does, opens; a chunk of that many bytes per element reads as
// stored and is written back as stored, the document keeping the name.
func TestFixedLengthTypesOfPR5(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, cfg, fill string
		chunk           []byte
	}{
		{"fixed-length-ascii", `{"length_bits": 24}`, `""`, []byte("abcde\x00f\x00\x00")},
		{"fixed-length-bytes", `{"length_bits": 16}`, `"AAA="`, []byte{1, 2, 0, 0, 255, 3}},
		{"fixed-length-utf32", `{"length_bits": 64}`, `""`, []byte("a\x00\x00\x00\xe9\x00\x00\x00b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")},
	} {
		doc := `{"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": {"name": "` + c.name + `", "configuration": ` + c.cfg + `},
			"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}}, "chunk_key_encoding": {"name": "default"},
			"fill_value": ` + c.fill + `, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}`
		s := zarr.NewMemoryStore()
		_ = s.Set(ctx, "a/zarr.json", []byte(doc))
		_ = s.Set(ctx, "a/c/0", c.chunk)
		a, err := zarr.OpenArray(ctx, s, "a")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got, err := a.Read(ctx, nil)
		if err != nil || string(got.Bytes()) != string(c.chunk) {
			t.Errorf("%s: read %q (%v), want %q", c.name, got.Bytes(), err, c.chunk)
			continue
		}
		written, err := a.Metadata().Document()
		if err != nil || !strings.Contains(string(written), `"`+c.name+`"`) {
			t.Errorf("%s: document written as %s (%v)", c.name, written, err)
		}
		_ = s.Set(ctx, "b/zarr.json", written)
		b, err := zarr.OpenArray(ctx, s, "b")
		if err == nil {
			err = b.Write(ctx, nil, got)
		}
		back, _, _ := s.Get(ctx, "b/c/0")
		if err != nil || string(back) != string(c.chunk) {
			t.Errorf("%s: wrote %q (%v), want %q", c.name, back, err, c.chunk)
		}
	}
	s := zarr.NewMemoryStore()
	_ = s.Set(ctx, "a/zarr.json", []byte(`{"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": {"name": "fixed-length-utf32", "configuration": {"length_bits": 40}},
		"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}}, "chunk_key_encoding": {"name": "default"}, "fill_value": "", "codecs": [{"name": "bytes"}]}`))
	if _, err := zarr.OpenArray(ctx, s, "a"); err == nil || !strings.Contains(err.Error(), "multiple of 32") {
		t.Errorf("length_bits 40 for utf32: %v", err)
	}
}
