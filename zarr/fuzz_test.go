package zarr_test

import (
	"context"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
)

// FuzzOpenAndRead feeds arbitrary metadata and chunk bytes to the engine:
// whatever the input, opening and reading return a value or a typed error,
// never a panic, a hang or an unbounded allocation.
func FuzzOpenAndRead(f *testing.F) {
	seeds := []string{
		`{"zarr_format":2,"shape":[4,3],"chunks":[2,2],"dtype":"<i4","compressor":null,"fill_value":0,"order":"C","filters":null}`,
		`{"zarr_format":2,"shape":[5],"chunks":[2],"dtype":">f8","compressor":{"id":"zlib","level":1},"fill_value":"NaN","order":"F","filters":[{"id":"delta","dtype":">f8"}]}`,
		`{"zarr_format":2,"shape":[3],"chunks":[3],"dtype":"|O","compressor":null,"fill_value":0,"order":"C","filters":[{"id":"vlen-utf8"}]}`,
		`{"zarr_format":2,"shape":[2,2],"chunks":[[1,1],2],"dtype":[["a","<i2"],["b","|S2",[2]]],"compressor":{"id":"blosc","cname":"lz4","clevel":5,"shuffle":1},"fill_value":"AAAAAAAA","order":"C","filters":null,"dimension_separator":"/"}`,
		`{"zarr_format":2,"shape":[],"chunks":[],"dtype":"<c16","compressor":null,"fill_value":["NaN",1.5],"order":"C","filters":null}`,
		`{"zarr_format":2,"shape":[9],"chunks":[4],"dtype":"|b1","compressor":{"id":"lz4"},"fill_value":true,"order":"C","filters":[{"id":"packbits"}]}`,
		`{"zarr_format":2,"shape":[6],"chunks":[3],"dtype":"<U2","compressor":null,"fill_value":"","order":"C","filters":[{"id":"categorize","labels":["a","b"],"dtype":"<U2","astype":"|u1"}]}`,
	}
	chunks := [][]byte{{}, {0, 0, 0, 0}, []byte("\x02\x01\x21\x04\x10\x00\x00\x00\x10\x00\x00\x00\x20\x00\x00\x00"), make([]byte, 24), {1, 0, 0, 0, 1, 0, 0, 0, 'x'}}
	for i, s := range seeds {
		f.Add([]byte(s), chunks[i%len(chunks)])
	}
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, meta, chunk []byte) {
		defer fuzzmem.Input(t)()
		ctx := context.Background()
		s := zarr.NewMemoryStore()
		_ = s.Set(ctx, "a/.zarray", meta)
		for _, k := range []string{"a/0", "a/0.0", "a/0/0", "a/1", "a/0.1"} {
			_ = s.Set(ctx, k, chunk)
		}
		arr, err := zarr.OpenArray(ctx, s, "a")
		if err != nil {
			if zarr.ErrorCodeOf(err) == "" {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		// Read one element per dimension from the first chunk only, so a
		// large declared shape does not make the test allocate.
		sel := make(zarr.Selection, len(arr.Shape()))
		for i, n := range arr.Shape() {
			if n == 0 {
				return
			}
			sel[i] = zarr.Index(0)
		}
		if _, err := arr.Read(ctx, sel); err != nil && zarr.ErrorCodeOf(err) == "" {
			t.Fatalf("untyped error: %v", err)
		}
	})
}
