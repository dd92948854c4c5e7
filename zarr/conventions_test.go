package zarr_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// TestConventions: the conventions specification's examples list the
// conventions they declare, and entries breaking its rules are skipped
// (tests/registry/examples/conventions.json), for arrays and groups.
func TestConventions(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(peers.RepoRoot(), "tests", "registry", "examples", "conventions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Attributes map[string]any `json:"attributes"`
			IDs        []string       `json:"ids"`
			Names      []string       `json:"names"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, c := range file.Cases {
		s := zarr.NewMemoryStore()
		if _, err := zarr.CreateGroup(ctx, s, "g", zarr.GroupOptions{Attributes: c.Attributes}); err != nil {
			t.Fatal(err)
		}
		if _, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{Shape: []int{1}, DType: "uint8", Attributes: c.Attributes}); err != nil {
			t.Fatal(err)
		}
		g, err := zarr.OpenGroup(ctx, s, "g")
		if err != nil {
			t.Fatal(err)
		}
		a, err := zarr.OpenArray(ctx, s, "a")
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range [][]zarr.Convention{g.Conventions(), a.Conventions()} {
			ids, names := []string{}, []string{}
			for _, cv := range got {
				ids, names = append(ids, cv.ID()), append(names, cv.Name)
			}
			if fmt.Sprint(ids) != fmt.Sprint(c.IDs) || fmt.Sprint(names) != fmt.Sprint(c.Names) {
				t.Errorf("case %d: conventions %v %v, want %v %v", i, ids, names, c.IDs, c.Names)
			}
		}
	}
}
