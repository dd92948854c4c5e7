package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedCurrent fails when npm/lib/errors.js, npm/index.d.ts or
// zarr/zarr.go does not list the codes of zarr/errs/errs.go (make codes).
func TestGeneratedCurrent(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := run(root, true); err != nil {
		t.Fatal(err)
	}
}

func TestParseCodes(t *testing.T) {
	root, _ := moduleRoot()
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

func TestReplaceRegion(t *testing.T) {
	in := "a\n// " + beginMark + "\nold\n// " + endMark + "\nb\n"
	out, err := replaceRegion([]byte(in), "//", "new\n")
	if want := "a\n// " + beginMark + "\nnew\n// " + endMark + "\nb\n"; err != nil || string(out) != want {
		t.Errorf("got %q, %v", out, err)
	}
	if _, err := replaceRegion([]byte("no marks\n"), "//", "x\n"); err == nil {
		t.Error("a file without the marks: no error")
	}
}
