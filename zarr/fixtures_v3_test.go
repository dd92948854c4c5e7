package zarr_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// TestV3Fixtures reads the hand-written v3 stores (tests/fixtures/v3/gen.py,
// written from the spec text: index at the start, no crc32c, nested
// sharding, hex fills, rectilinear and rectangular grids, extension types)
// and compares with the values the generator stored.
func TestV3Fixtures(t *testing.T) {
	root := filepath.Join("..", "tests", "fixtures", "v3")
	cases, err := conformance.Load(filepath.Join(root, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 150 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if err := conformance.Check(context.Background(), filepath.Join(root, "data"), c); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestV3ErrorFixtures: malformed v3 stores give the expected typed error,
// naming the field or key.
func TestV3ErrorFixtures(t *testing.T) {
	root := filepath.Join("..", "tests", "fixtures", "v3")
	data, err := os.ReadFile(filepath.Join(root, "error_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name, Store, Path, Code, Contains, Note string
		Read                                    bool
	}
	if err := jsonx.UnmarshalStrict(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 20 {
		t.Fatalf("only %d error cases", len(cases))
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			s, err := zarr.NewDirectoryStore(filepath.Join(root, "data", c.Store))
			if err != nil {
				t.Fatal(err)
			}
			arr, err := zarr.OpenArray(ctx, s, c.Path)
			if c.Read {
				if err != nil {
					t.Fatalf("open should succeed, the error comes on reading: %v", err)
				}
				_, err = arr.Read(ctx, nil)
			}
			if err == nil {
				t.Fatalf("no error; want %s (%s)", c.Code, c.Note)
			}
			if got := string(zarr.ErrorCodeOf(err)); got != c.Code {
				t.Errorf("code %s, want %s: %v", got, c.Code, err)
			}
			if !strings.Contains(err.Error(), c.Contains) {
				t.Errorf("error %q does not contain %q", err, c.Contains)
			}
		})
	}
}
