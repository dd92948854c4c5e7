package parquet

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
)

// FuzzParquet decodes every column of arbitrary bytes: no panic, typed
// errors, consistent lengths. The seed corpus (testdata/fuzz/FuzzParquet)
// holds record files of every writer and layout under tests/refs/data/pq;
// ZARR_WASM_WRITE_SEEDS=1 go test -run TestWriteSeeds rewrites it.
func FuzzParquet(f *testing.F) {
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzmem.Input(t)()
		err := readAll(data, Limits{Rows: 1 << 12, PageSize: 1 << 20})
		if err != nil && errs.CodeOf(err) == "" {
			t.Fatal(err)
		}
	})
}

func TestWriteSeeds(t *testing.T) {
	if os.Getenv("ZARR_WASM_WRITE_SEEDS") != "1" {
		t.Skip("set ZARR_WASM_WRITE_SEEDS=1 to rewrite the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParquet")
	os.RemoveAll(dir)
	os.MkdirAll(dir, 0o755)
	seen := map[string]bool{}
	for _, p := range fixtureFiles(t) {
		rel, _ := filepath.Rel(pqDir(), p)
		v := filepath.Dir(filepath.Dir(rel))
		for filepath.Dir(v) != "." {
			v = filepath.Dir(v)
		}
		// a few files of every variant: the first record of each array
		if seen[v+filepath.Dir(rel)] {
			continue
		}
		seen[v+filepath.Dir(rel)] = true
		data, _ := os.ReadFile(p)
		name := fmt.Sprintf("%s-%s", v, filepath.Base(filepath.Dir(rel)))
		os.WriteFile(filepath.Join(dir, name), []byte("go test fuzz v1\n[]byte("+strconv.Quote(string(data))+")\n"), 0o644)
	}
}
