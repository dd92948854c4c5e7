package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/internal/genregion"
)

// TestGeneratedCurrent fails when npm/lib/errors.js, npm/index.d.ts or
// zarr/zarr.go does not list the codes of zarr/errs/errs.go (make codes).
func TestGeneratedCurrent(t *testing.T) {
	genregion.CheckCurrent(t, run)
}

func TestParseCodes(t *testing.T) {
	root, _ := genregion.ModuleRoot()
	src, err := os.ReadFile(filepath.Join(root, source))
	if err != nil {
		t.Fatal(err)
	}
	codes, err := parseCodes(src)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]code{}
	for _, c := range codes {
		got[c.Value] = c
	}
	for value, host := range map[string]bool{"NOT_FOUND": false, "TOO_LARGE": false, "CONFLICT": false, "ENGINE_EXITED": true, "INTERNAL": true} {
		c, ok := got[value]
		if !ok || c.HostOnly != host || c.Doc == "" {
			t.Errorf("%s: %+v (want host-only %v, with its comment)", value, c, host)
		}
	}
	// A code without its comment is refused.
	bad := strings.Replace(string(src), "\t// TooLarge: a request", "\t// a request", 1)
	if _, err := parseCodes([]byte(bad)); err == nil || !strings.Contains(err.Error(), "TooLarge") {
		t.Errorf("a code without its comment: %v", err)
	}
}
