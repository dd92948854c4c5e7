package zarr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// Optional arrays created from their data type alone (no codecs given) get
// zarrs' layout, and the values of zarrs' snapshots written into them give
// zarrs' chunks byte for byte: an optional integer, an optional string and
// an optional of an optional float.
func TestCreateOptionalLikeZarrs(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"zarrs.optional(uint8)", "zarrs.optional(string)", "zarrs.optional(zarrs.optional(float32))"} {
		dir := filepath.Join(compatDir(), "data", "snapshots", "regular", name, "a2b", "zarrs.optional")
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != 1 {
			t.Fatalf("%s: %v %v", dir, entries, err)
		}
		src := filepath.Join(dir, entries[0].Name())
		raw, err := os.ReadFile(filepath.Join(src, "zarr.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Shape     []int `json:"shape"`
			DataType  any   `json:"data_type"`
			ChunkGrid struct {
				Configuration struct {
					ChunkShape []int `json:"chunk_shape"`
				} `json:"configuration"`
			} `json:"chunk_grid"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		theirs, _ := zarr.NewDirectoryStore(src)
		a, err := zarr.OpenArray(ctx, theirs, "")
		if err != nil {
			t.Fatal(err)
		}
		values, err := a.Read(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		// the registry's name for the type, as a user would write it
		dt, _ := json.Marshal(doc.DataType)
		var dtype map[string]any
		_ = json.Unmarshal([]byte(strings.ReplaceAll(string(dt), "zarrs.optional", "optional")), &dtype)
		s := zarr.NewMemoryStore()
		b, err := zarr.CreateArray(ctx, s, "b", zarr.ArrayOptions{Shape: doc.Shape, Chunks: doc.ChunkGrid.Configuration.ChunkShape,
			DType: dtype, ZarrFormat: 3, NoCompressor: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := b.Write(ctx, nil, values); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := 0
		_ = filepath.Walk(filepath.Join(src, "c"), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			want, _ := os.ReadFile(p)
			got, _, _ := s.Get(ctx, "b/"+filepath.ToSlash(rel))
			if !bytes.Equal(got, want) {
				t.Errorf("%s: chunk %s is %d bytes unlike zarrs' %d", name, rel, len(got), len(want))
			}
			n++
			return nil
		})
		if n == 0 {
			t.Errorf("%s: no chunks compared", name)
		}
		// and what we wrote reads back with zarrs' values
		back, err := b.Read(ctx, nil)
		if err != nil || !back.Equal(values) {
			t.Errorf("%s: read back %v", name, err)
		}
	}
}
