package zarr_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
)

// TestZarrPythonFixtures reads every array zarr-python 2.13 wrote (see
// tests/fixtures/v2/gen.py) and compares with the values it recorded.
func TestZarrPythonFixtures(t *testing.T) {
	root := filepath.Join("..", "tests", "fixtures", "v2")
	cases, err := conformance.Load(filepath.Join(root, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if err := conformance.Check(context.Background(), filepath.Join(root, "data"), c); err != nil {
				t.Error(err)
			}
		})
	}
}
