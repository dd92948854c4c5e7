package icechunk

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Fuzz targets: the file header with the body's decompression (whole
// files), and the FlatBuffers reader over the three schemas (decompressed
// bodies). Seeds are the metadata files of the committed repositories
// (tests/icechunk/upstream and virtual), read when the targets start, so
// `make test` runs them as the seed corpus.

func repoFiles(tb testing.TB) [][]byte {
	root := filepath.Join("..", "..", "tests", "icechunk")
	var files []string
	for _, pat := range []string{"upstream/*/repo", "upstream/*/snapshots/*", "upstream/*/manifests/*", "upstream/*/transactions/*", "virtual/*/repo", "virtual/*/snapshots/*", "virtual/*/manifests/*"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) < 50 {
		tb.Fatalf("%d seed files under %s", len(files), root)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func typed(t *testing.T, err error) {
	t.Helper()
	if err != nil && errs.CodeOf(err) == "" {
		t.Fatalf("untyped error %T: %v", err, err)
	}
}

// walk reads everything a store would read of a body of each kind.
func walk(t *testing.T, b []byte) {
	if s, err := parseSnapshot("s", b); err == nil {
		for _, n := range s.nodes {
			if len(n.meta) > len(b) {
				t.Fatal("node metadata longer than the body")
			}
		}
	} else {
		typed(t, err)
	}
	_, _, _, err := snapshotSummary("s", b)
	typed(t, err)
	if m, err := parseManifest("m", b); err == nil {
		for id := range m.arrays {
			for ndim := 0; ndim <= 3; ndim++ {
				err := m.each(id, ndim, func(coords []uint32, ref chunkRef) error {
					if ref.kind == refKindInline && len(ref.inline) > len(b) {
						t.Fatal("inline data longer than the body")
					}
					return nil
				})
				typed(t, err)
				_, _, err = m.lookup(id, make([]uint32, ndim))
				typed(t, err)
				_, _, err = m.lookup(id, []uint32{1, 2, 3}[:ndim])
				typed(t, err)
			}
		}
	} else {
		typed(t, err)
	}
	if ri, err := parseRepo("r", b); err == nil {
		for _, s := range ri.snapshots {
			if s.parent >= len(ri.snapshots) {
				t.Fatal("parent outside the list")
			}
		}
	} else {
		typed(t, err)
	}
}

func FuzzHeader(f *testing.F) {
	fuzzmem.Limit(f)
	for _, b := range repoFiles(f) {
		f.Add(b)
	}
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzmem.Input(t)()
		for _, ft := range []uint8{fileSnapshot, fileManifest, fileRepo, fileTransaction} {
			_, b, err := body("k", data, ft)
			typed(t, err)
			if err == nil {
				walk(t, b)
			}
		}
	})
}

func FuzzFlatBuffers(f *testing.F) {
	fuzzmem.Limit(f)
	for _, b := range repoFiles(f) {
		if h, body, err := body("k", b, b[37]); err == nil && h.fileType != fileTransaction {
			f.Add(body)
		}
	}
	f.Add([]byte{})
	f.Add([]byte{4, 0, 0, 0, 4, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzmem.Input(t)()
		walk(t, data)
	})
}
