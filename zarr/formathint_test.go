package zarr_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
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

// TestGroupHintsItsChildren: a group opened with no hint (the first node
// of a store) opens the nodes below it as of its own format, one round
// trip each (no .zmetadata below the root, no second .zattrs); its own
// attributes, read with its .zgroup, are not read again.
func TestGroupHintsItsChildren(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(peers.RepoRoot(), "tests", "fixtures")
	for _, c := range []struct {
		dir, group, child string
		wantGroup         []string
		wantChild         []string
	}{
		// (a v2 group looks for its .zmetadata when it first opens a node below it)
		{"v2/data/v2.zarr", "hier", "a", []string{".zarray", ".zattrs", ".zgroup", "zarr.json"}, []string{".zarray", ".zattrs", ".zgroup", "/hier/.zmetadata"}},
		{"v2/data/v2.zarr", "hier", "a/arr", nil, []string{".zarray", ".zattrs", ".zgroup", "/hier/.zmetadata"}},
		{"v3/data/v3.zarr", "sharding", "end_crc", []string{".zarray", ".zattrs", ".zgroup", "zarr.json"}, []string{"zarr.json"}},
	} {
		d, err := zarr.NewDirectoryStore(filepath.Join(root, c.dir))
		if err != nil {
			t.Fatal(err)
		}
		l := &keyLog{Store: d}
		n, err := zarr.Open(ctx, l, c.group)
		if err != nil {
			t.Fatal(err)
		}
		g := n.(*zarr.Group)
		rel := func(prefix string) []string {
			var got []string
			for _, k := range l.keys {
				if strings.HasPrefix(k, prefix+"/") {
					got = append(got, k[len(prefix)+1:])
				} else {
					got = append(got, "/"+k) // (outside the node)
				}
			}
			slices.Sort(got)
			l.keys = nil
			return got
		}
		if got := rel(c.group); c.wantGroup != nil && !slices.Equal(got, c.wantGroup) {
			t.Errorf("%s %s: read %v, want %v", c.dir, c.group, got, c.wantGroup)
		}
		plain, err := zarr.Open(ctx, d, c.group)
		if err != nil {
			t.Fatal(err)
		}
		if len(plain.Attrs()) != len(g.Attrs()) {
			t.Errorf("%s %s: %d attributes, want %d", c.dir, c.group, len(g.Attrs()), len(plain.Attrs()))
		}
		kid, err := g.Open(ctx, c.child)
		if err != nil {
			t.Fatal(err)
		}
		if got := rel(c.group + "/" + c.child); !slices.Equal(got, c.wantChild) {
			t.Errorf("%s %s/%s: read %v, want %v", c.dir, c.group, c.child, got, c.wantChild)
		}
		want, err := zarr.Open(ctx, d, c.group+"/"+c.child)
		if err != nil {
			t.Fatal(err)
		}
		if want.ZarrFormat() != kid.ZarrFormat() || len(want.Attrs()) != len(kid.Attrs()) {
			t.Errorf("%s %s/%s: format %d, %d attributes; want %d, %d", c.dir, c.group, c.child, kid.ZarrFormat(), len(kid.Attrs()), want.ZarrFormat(), len(want.Attrs()))
		}
	}
}

// TestWalkReadsPlainly: only the group opened from the store looks for
// consolidated metadata; the groups opened through it read their children
// plainly (one round trip a level on a walk down), and a kind asked for
// is the only kind whose documents are read. The nodes are those
// zarr-python wrote (tests/fixtures/v2).
func TestWalkReadsPlainly(t *testing.T) {
	ctx := context.Background()
	d, err := zarr.NewDirectoryStore(filepath.Join(peers.RepoRoot(), "tests", "fixtures", "v2", "data", "v2.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	l := &keyLog{Store: d}
	root, err := zarr.OpenGroup(ctx, l, "hier")
	if err != nil {
		t.Fatal(err)
	}
	a, err := root.OpenGroup(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	l.keys = nil
	arr, err := a.OpenArray(ctx, "arr")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(l.keys)
	if want := []string{"hier/a/arr/.zarray", "hier/a/arr/.zattrs"}; !slices.Equal(l.keys, want) {
		t.Errorf("opening hier/a/arr through hier/a read %v, want %v", l.keys, want)
	}
	plain, err := zarr.OpenArray(ctx, d, "hier/a/arr")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(arr.Shape(), plain.Shape()) || arr.DType().String() != plain.DType().String() {
		t.Errorf("hier/a/arr: %v %v through the walk, %v %v opened directly", arr.Shape(), arr.DType(), plain.Shape(), plain.DType())
	}
	if _, err := a.OpenGroup(ctx, "arr"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("hier/a/arr opened as a group: %v, want NOT_FOUND", err)
	}
	if _, err := a.OpenKind(ctx, "arr", "table"); errs.CodeOf(err) != errs.InvalidArgument {
		t.Errorf("kind \"table\": %v, want INVALID_ARGUMENT", err)
	}
	// A probe for an optional child (an OME-Zarr image's labels): the two
	// documents zarrita.js's open.v2 asks for, nothing else.
	l.keys = nil
	if _, err := a.OpenGroup(ctx, "labels"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("hier/a/labels: %v, want NOT_FOUND", err)
	}
	slices.Sort(l.keys)
	if want := []string{"hier/a/labels/.zattrs", "hier/a/labels/.zgroup"}; !slices.Equal(l.keys, want) {
		t.Errorf("probing hier/a/labels read %v, want %v", l.keys, want)
	}
	// Opened from the store, a miss still suggests a near name.
	if _, err := zarr.OpenGroup(ctx, d, "hier/a/bb"); errs.CodeOf(err) != errs.NotFound || !strings.Contains(err.Error(), `did you mean "hier/a/b"?`) {
		t.Errorf("hier/a/bb from the store: %v, want NOT_FOUND suggesting hier/a/b", err)
	}
}

// TestMissBelowConsolidatedReadsNothing: below a group that found its
// consolidated metadata (zarr-python's), a name not found costs no request
// (not even the root's .zmetadata again, for a suggestion).
func TestMissBelowConsolidatedReadsNothing(t *testing.T) {
	ctx := context.Background()
	d, err := zarr.NewDirectoryStore(filepath.Join(peers.RepoRoot(), "tests", "fixtures", "v2", "data", "consolidated.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	l := &keyLog{Store: d}
	root, err := zarr.OpenGroup(ctx, l, "")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := root.Consolidated(ctx); !ok || err != nil {
		t.Fatalf("consolidated: %v %v", ok, err)
	}
	l.keys = nil
	if _, err := root.OpenGroup(ctx, "a/labels"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("a/labels: %v, want NOT_FOUND", err)
	}
	if x, err := root.OpenArray(ctx, "a/x"); err != nil || x.Shape() == nil {
		t.Errorf("a/x: %v", err)
	}
	if len(l.keys) != 0 {
		t.Errorf("read %v, want nothing (the consolidated metadata has it all)", l.keys)
	}
}
