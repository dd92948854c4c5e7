package zarr

import (
	"context"
	"errors"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// A dev server with an SPA fallback answers every missing file with its
// index.html; opening a v2 array there must not stumble on the HTML it
// gets for zarr.json (nor a v3 one on .zarray).
func TestHTMLStandInIsAbsent(t *testing.T) {
	ctx := context.Background()
	page := []byte("\ufeff  <!doctype html><html><body>app</body></html>")
	for _, format := range []int{2, 3} {
		s := NewMemoryStore()
		if _, err := CreateArray(ctx, s, "a", ArrayOptions{Shape: []int{2}, DType: "int8", ZarrFormat: format}); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata", "a/zarr.json", "a/.zarray", "a/.zgroup", "a/.zattrs", "nope/zarr.json", "nope/.zarray", "nope/.zgroup"} {
			if _, ok, _ := s.Get(ctx, k); !ok {
				if err := s.Set(ctx, k, page); err != nil {
					t.Fatal(err)
				}
			}
		}
		arr, err := OpenArray(ctx, s, "a")
		if err != nil {
			t.Fatalf("v%d: %v", format, err)
		}
		if arr.ZarrFormat() != format {
			t.Fatalf("v%d opened as v%d", format, arr.ZarrFormat())
		}
		if _, err := Open(ctx, s, "nope"); err == nil || errs.CodeOf(err) != errs.NotFound {
			t.Fatalf("v%d: nope is only HTML, want NOT_FOUND, got %v", format, err)
		}
	}
	// A chunk that happens to start with "<" is data, not a page.
	if htmlStandIn("a/0", []byte("<abc")) || !htmlStandIn("a/.zarray", []byte("<html>")) || htmlStandIn("a/.zarray", []byte(`{"a": "<"}`)) {
		t.Fatal("htmlStandIn misjudges")
	}
}

// A store that cannot list (HTTP) still gets a "did you mean" from the
// root's consolidated metadata, v2 and v3.
func TestSuggestionFromConsolidatedMetadata(t *testing.T) {
	ctx := context.Background()
	for _, format := range []int{2, 3} {
		s := NewMemoryStore()
		if _, err := CreateGroup(ctx, s, "", GroupOptions{ZarrFormat: format}); err != nil {
			t.Fatal(err)
		}
		if _, err := CreateArray(ctx, s, "grp/temperature", ArrayOptions{Shape: []int{2}, DType: "int8", ZarrFormat: format}); err != nil {
			t.Fatal(err)
		}
		if err := Consolidate(ctx, s, ""); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, getOnly{s}, "grp/temperatur")
		var ze *errs.Error
		if !errors.As(err, &ze) || ze.Code != errs.NotFound || ze.Suggest != "grp/temperature" {
			t.Fatalf("v%d: want NOT_FOUND suggesting grp/temperature, got %#v", format, err)
		}
	}
}

// getOnly hides every capability of a store but Get.
type getOnly struct{ s Store }

func (g getOnly) Get(ctx context.Context, key string) ([]byte, bool, error) { return g.s.Get(ctx, key) }
