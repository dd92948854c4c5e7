package genregion

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReplace(t *testing.T) {
	r := Region{Path: "f.js", Comment: "//", Begin: "begin", End: "end"}
	out, err := r.Replace([]byte("a\n// begin\nold\n// end\nb\n"), "new\n")
	if want := "a\n// begin\nnew\n// end\nb\n"; err != nil || string(out) != want {
		t.Errorf("got %q, %v", out, err)
	}
	if _, err := r.Replace([]byte("no marks\n"), "x\n"); err == nil {
		t.Error("a file without the marks: no error")
	}
	if _, err := r.Replace([]byte("// end\n// begin\n"), "x\n"); err == nil {
		t.Error("marks in the wrong order: no error")
	}
}

func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "b"), []byte("same"), 0o644)
	render := func(p string, old []byte) ([]byte, error) {
		if p == "a" {
			return []byte("new"), nil
		}
		return old, nil
	}
	var stale *Stale
	if err := Update(dir, true, []string{"a", "b"}, render); !errors.As(err, &stale) || len(stale.Paths) != 1 || stale.Paths[0] != "a" {
		t.Fatalf("check: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); string(b) != "old" {
		t.Error("a check wrote the file")
	}
	if err := Update(dir, false, []string{"a", "b"}, render); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); string(b) != "new" {
		t.Errorf("a: %q", b)
	}
}
