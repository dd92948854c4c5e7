package main

import (
	"testing"

	"github.com/zarr-wasm/zarr-wasm/internal/genregion"
)

// TestGeneratedCurrent fails when npm/lib/core.js's firstReads is not
// zarr.OpenFirstReads (make codes).
func TestGeneratedCurrent(t *testing.T) {
	genregion.CheckCurrent(t, run)
}
