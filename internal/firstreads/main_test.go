package main

import (
	"testing"

	"github.com/zarr-wasm/zarr-wasm/internal/genregion"
)

// TestGeneratedCurrent fails when npm/lib/core.js's firstReads is not
// zarr.OpenFirstReads (make codes).
func TestGeneratedCurrent(t *testing.T) {
	root, err := genregion.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := run(root, true); err != nil {
		t.Fatal(err)
	}
}
