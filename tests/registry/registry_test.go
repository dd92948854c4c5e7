package main

import (
	"os"
	"strings"
	"testing"
)

// The table in docs/extensions.md must be what the registry's entries and
// the corpus's listings give now: a new entry, or a capability the tests
// now find (or no longer find), fails here until the page is written again.
func TestTableIsCurrent(t *testing.T) {
	want, err := table()
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(tableFile())
	if err != nil {
		t.Fatal(err)
	}
	if string(have) == string(want) {
		return
	}
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(h), len(w)); i++ {
		var a, b string
		if i < len(h) {
			a = h[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			t.Fatalf("docs/extensions.md is out of date (run go run ./tests/registry); line %d is\n  %s\nand should be\n  %s", i+1, a, b)
		}
	}
}
