package refs_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
)

// The committed fixtures are what the peers produce: regenerating them
// into a temporary directory gives the same bytes. This is what makes the
// expectations zarr-python's and fsspec's (and the Parquet files
// hyparquet-writer's) rather than a snapshot of ours.

// sameTree compares every file under want (relative paths filtered by
// keep) with the one under got.
func sameTree(t *testing.T, got, want string, keep func(rel string, d fs.DirEntry) bool) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(want, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(want, p)
		if !keep(rel, d) {
			if d.IsDir() && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		a, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(got, rel))
		if err != nil {
			t.Errorf("%s: not regenerated: %v", rel, err)
			return nil
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: regenerated file differs from the committed one", rel)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGenPyReproduces(t *testing.T) {
	py := peers.RequirePython(t, "fsspec", "zarr", "numcodecs", "numpy", "jinja2")
	out := t.TempDir()
	if b, err := exec.Command(py, filepath.Join(refsDir(), "gen.py"), out).CombinedOutput(); err != nil {
		t.Fatalf("gen.py: %v\n%s", err, b)
	}
	n := sameTree(t, filepath.Join(out, "data"), dataDir(), func(rel string, d fs.DirEntry) bool {
		// data/pq's sub-directories come from the Parquet writers, data/tiff
		// from gen_tiff.py
		return !(d.IsDir() && (filepath.Dir(rel) == "pq" || rel == "tiff"))
	})
	for _, f := range []string{"expanded.json", "keys.json", "cases.json"} {
		a, _ := os.ReadFile(filepath.Join(refsDir(), f))
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from what fsspec and zarr-python give now (%v)", f, err)
		}
	}
	t.Logf("%d data files and 3 expectation files reproduced by fsspec 2022.11 + zarr-python", n)
}

func TestWriteParquetReproduces(t *testing.T) {
	if _, err := os.Stat(filepath.Join(refsDir(), "node_modules", "hyparquet-writer")); err != nil {
		peers.Unavailable(t, "hyparquet-writer is not installed (cd tests/refs && npm ci)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		peers.Unavailable(t, "node is not installed")
	}
	pq := filepath.Join(t.TempDir(), "pq")
	os.MkdirAll(pq, 0o755)
	src, err := os.ReadFile(filepath.Join(dataDir(), "pq", "refs.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(pq, "refs.json"), src, 0o644)
	if b, err := exec.Command("node", filepath.Join(refsDir(), "write_parquet.mjs"), pq).CombinedOutput(); err != nil {
		t.Fatalf("write_parquet.mjs: %v\n%s", err, b)
	}
	n := 0
	for _, v := range []string{"hyp_zstd", "hyp_snappy", "hyp_old", "hyp_pages"} {
		n += sameTree(t, filepath.Join(pq, v), filepath.Join(dataDir(), "pq", v), func(string, fs.DirEntry) bool { return true })
	}
	if n < 50 {
		t.Fatalf("only %d files compared", n)
	}
	t.Logf("%d files reproduced by hyparquet-writer", n)
}

func TestGenTIFFReproduces(t *testing.T) {
	py := peers.RequirePython(t, "tifffile", "PIL", "numpy")
	out := t.TempDir()
	if b, err := exec.Command(py, filepath.Join(refsDir(), "gen_tiff.py"), out).CombinedOutput(); err != nil {
		t.Fatalf("gen_tiff.py: %v\n%s", err, b)
	}
	n := sameTree(t, filepath.Join(out, "data", "tiff"), filepath.Join(dataDir(), "tiff"), func(string, fs.DirEntry) bool { return true })
	a, _ := os.ReadFile(filepath.Join(refsDir(), "tiff_cases.json"))
	b, err := os.ReadFile(filepath.Join(out, "tiff_cases.json"))
	if err != nil || !bytes.Equal(a, b) {
		t.Errorf("tiff_cases.json differs from what gen_tiff.py writes now (%v)", err)
	}
	if n < 20 {
		t.Fatalf("only %d files compared", n)
	}
	t.Logf("%d TIFF files and reference sets reproduced by tifffile and Pillow", n)
}
