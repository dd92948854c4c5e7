package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/icechunk"
)

// The copied sample repository holds every version the official package
// recorded when it wrote it (history.icechunk.json): each branch and tag
// opens at the snapshot the record names, with the record's ancestry.
func TestIcechunkSample(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "web", "demo", "gen", "icechunk", "history.icechunk.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Branches map[string]string
		Tags     map[string]string
		Ancestry map[string][]struct{ ID, Message string }
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "history.icechunk")
	if err := copyIcechunkSample(dir); err != nil {
		t.Fatal(err)
	}
	st, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	check := func(key string, v icechunk.Version, want string) {
		ic, err := icechunk.Open(ctx, st, v, icechunk.Options{})
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if ic.SnapshotID() != want {
			t.Errorf("%s: snapshot %s, the record says %s", key, ic.SnapshotID(), want)
		}
		anc, err := ic.Ancestry(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(anc) != len(rec.Ancestry[key]) {
			t.Fatalf("%s: %d ancestors, the record has %d", key, len(anc), len(rec.Ancestry[key]))
		}
		for i, a := range anc {
			if w := rec.Ancestry[key][i]; a.ID != w.ID || a.Message != w.Message {
				t.Errorf("%s: ancestor %d is %s %q, the record says %s %q", key, i, a.ID, a.Message, w.ID, w.Message)
			}
		}
	}
	if len(rec.Branches) != 2 || len(rec.Tags) != 1 {
		t.Fatalf("the record has branches %v and tags %v", rec.Branches, rec.Tags)
	}
	for b, id := range rec.Branches {
		check("branch "+b, icechunk.Version{Branch: b}, id)
	}
	for tag, id := range rec.Tags {
		check("tag "+tag, icechunk.Version{Tag: tag}, id)
	}
}
