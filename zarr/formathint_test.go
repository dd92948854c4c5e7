package zarr_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// keyLog records the keys read from a store.
type keyLog struct {
	zarr.Store
	mu   sync.Mutex
	keys []string
}

func (l *keyLog) Get(ctx context.Context, key string) ([]byte, bool, error) {
	l.mu.Lock()
	l.keys = append(l.keys, key)
	l.mu.Unlock()
	return l.Store.Get(ctx, key)
}

// TestFormatHint: with the store's format as a hint, opening a node of
// zarr-python's v2 fixture or the v3 fixture asks for that format's keys
// only (zarrita.js's requests for a store whose format it learnt); a wrong
// hint still opens the node, asking for the rest after.
func TestFormatHint(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(peers.RepoRoot(), "tests", "fixtures")
	for _, c := range []struct {
		dir, path, kind string
		hint            int
		want            []string
	}{
		{"v3/data/v3.zarr", "sharding/end_crc", "array", 3, []string{"zarr.json"}},
		{"v3/data/v3.zarr", "sharding", "group", 3, []string{"zarr.json"}},
		{"v2/data/v2.zarr", "dtypes/i1", "array", 2, []string{".zarray", ".zattrs"}},
		{"v2/data/v2.zarr", "hier/a", "group", 2, []string{".zattrs", ".zgroup"}},
		{"v2/data/v2.zarr", "hier/a", "", 2, []string{".zarray", ".zattrs", ".zgroup"}},
		// wrong hints: the other format's keys after
		{"v2/data/v2.zarr", "dtypes/i1", "array", 3, []string{".zarray", ".zattrs", "zarr.json"}},
		{"v3/data/v3.zarr", "sharding/end_crc", "array", 2, []string{".zarray", ".zattrs", "zarr.json"}},
	} {
		d, err := zarr.NewDirectoryStore(filepath.Join(root, c.dir))
		if err != nil {
			t.Fatal(err)
		}
		l := &keyLog{Store: d}
		var n zarr.Node
		switch c.kind {
		case "array":
			n, err = zarr.OpenArray(ctx, l, c.path, zarr.WithFormatHint(c.hint))
		case "group":
			n, err = zarr.OpenGroup(ctx, l, c.path, zarr.WithFormatHint(c.hint))
		default:
			n, err = zarr.Open(ctx, l, c.path, zarr.WithFormatHint(c.hint))
		}
		if err != nil {
			t.Errorf("%s %s (hint %d): %v", c.dir, c.path, c.hint, err)
			continue
		}
		var got []string
		for _, k := range l.keys {
			got = append(got, k[len(c.path)+1:])
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s %s (hint %d): read %v, want %v", c.dir, c.path, c.kind, c.hint, got, c.want)
		}
		// the same node as without the hint
		plain, err := zarr.Open(ctx, d, c.path)
		if err != nil {
			t.Fatal(err)
		}
		if plain.ZarrFormat() != n.ZarrFormat() || len(plain.Attrs()) != len(n.Attrs()) {
			t.Errorf("%s %s: hinted open gave format %d, %d attributes; plain %d, %d", c.dir, c.path, n.ZarrFormat(), len(n.Attrs()), plain.ZarrFormat(), len(plain.Attrs()))
		}
	}
}
