package zarr

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// recheck_cached_metadata: true takes up another writer's resize before
// each read; "open" (the default) keeps the shape seen at open; a change
// other than the shape is an error (TensorStore's RecheckCachedMetadata and
// AssumeCachedMetadataMismatch tests).
func TestSpecRecheckCachedMetadata(t *testing.T) {
	ctx := context.Background()
	path := fmt.Sprintf("recheck-%d/", time.Now().UnixNano())
	spec := func(extra string) string {
		return `{"driver": "zarr", "kvstore": {"driver": "memory", "path": "` + path + `"}, "dtype": "uint8",
			"metadata": {"compressor": null, "chunks": [2]}` + extra + `}`
	}
	w, err := OpenSpec(ctx, spec(`, "create": true, "schema": {"domain": {"shape": [4]}}`))
	if err != nil {
		t.Fatal(err)
	}
	always, err := OpenSpec(ctx, spec(`, "recheck_cached_metadata": true`))
	if err != nil {
		t.Fatal(err)
	}
	atOpen, err := OpenSpec(ctx, spec(``))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Resize(ctx, []int{6}); err != nil {
		t.Fatal(err)
	}
	got, err := always.Read(ctx, nil)
	if err != nil || got.Len() != 6 {
		t.Fatalf("recheck true: read %v, %v; want 6 elements", got, err)
	}
	if got, err := atOpen.Read(ctx, nil); err != nil || got.Len() != 4 {
		t.Fatalf("recheck open: read %v, %v; want the 4 elements seen at open", got, err)
	}
	// A later time bound rechecks once.
	bounded, err := OpenSpec(ctx, spec(fmt.Sprintf(`, "recheck_cached_metadata": %d`, time.Now().Add(time.Hour).Unix())))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Resize(ctx, []int{8}); err != nil {
		t.Fatal(err)
	}
	if got, err := bounded.Read(ctx, nil); err != nil || got.Len() != 8 {
		t.Fatalf("recheck before a later time: %v, %v", got, err)
	}
	// Replaced by an array with other chunks: an error, not wrong data.
	if _, err := OpenSpec(ctx, `{"driver": "zarr", "kvstore": {"driver": "memory", "path": "`+path+`"}, "dtype": "uint8", "create": true, "delete_existing": true,
		"metadata": {"compressor": null, "chunks": [3]}, "schema": {"domain": {"shape": [4]}}}`); err != nil {
		t.Fatal(err)
	}
	if _, err := always.Read(ctx, nil); errs.CodeOf(err) != errs.InvalidMetadata || !strings.Contains(err.Error(), "incompatible") {
		t.Fatalf("after the array was replaced: %v", err)
	}
	// assume_cached_metadata with recheck: the stored chunks [3] are not the assumed [2].
	assumed, err := OpenSpec(ctx, spec(`, "assume_cached_metadata": true, "recheck_cached_metadata": true, "schema": {"domain": {"shape": [4]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assumed.Read(ctx, nil); errs.CodeOf(err) != errs.InvalidMetadata {
		t.Fatalf("assumed metadata that differs: %v", err)
	}
}
