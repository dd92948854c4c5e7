package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// TestDirectoryContained: symbolic links below the root that lead outside
// it are refused on read, range read, write, delete and list; links that
// stay inside work; AllowOutsideSymlinks lets them through.
func TestDirectoryContained(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "a"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644)
	os.WriteFile(filepath.Join(root, "a", "inside"), []byte("inside"), 0o644)
	// a file link, a directory link (both leading out), and a relative link that stays in
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "leak")))
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	must(t, os.Symlink("../../outside", filepath.Join(root, "a", "rel_out")))
	must(t, os.Symlink("a", filepath.Join(root, "alias")))

	d, err := store.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, err error) {
		t.Helper()
		if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), "outside the store's root") {
			t.Errorf("%s: %v, want a STORE error about leaving the root", what, err)
		}
	}
	for _, key := range []string{"leak", "out/secret", "a/rel_out/secret"} {
		_, _, err := d.Get(ctx, key)
		refused("Get "+key, err)
		_, _, err = d.GetRange(ctx, key, store.Span(0, 2))
		refused("GetRange "+key, err)
	}
	refused("Set out/new", d.Set(ctx, "out/new", []byte("x")))
	refused("Set out/sub/new", d.Set(ctx, "out/sub/new", []byte("x")))
	refused("Delete out/secret", d.Delete(ctx, "out/secret"))
	_, err = d.List(ctx, "out/")
	refused("List out/", err)
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Error("a write went outside the root")
	}
	if _, err := os.Stat(filepath.Join(outside, "secret")); err != nil {
		t.Error("a delete went outside the root")
	}
	// a write over a link leading out replaces nothing outside either
	if err := d.Set(ctx, "leak", []byte("overwrite")); err == nil {
		if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "secret" {
			t.Error("a write through a link changed a file outside the root")
		}
	}

	// links inside the root work
	if got, ok, err := d.Get(ctx, "alias/inside"); err != nil || !ok || string(got) != "inside" {
		t.Errorf("a link inside the root: %q %v %v", got, ok, err)
	}
	if names, err := d.List(ctx, ""); err != nil || !contains(names, "alias/") {
		t.Errorf("List: %v %v", names, err)
	}

	// the option lets them through
	open, _ := store.NewDirectory(root)
	open.AllowOutsideSymlinks = true
	if got, ok, err := open.Get(ctx, "out/secret"); err != nil || !ok || string(got) != "secret" {
		t.Errorf("AllowOutsideSymlinks: %q %v %v", got, ok, err)
	}
	if err := open.Set(ctx, "out/new", []byte("x")); err != nil {
		t.Errorf("AllowOutsideSymlinks write: %v", err)
	}

	// a root that does not exist yet reads as empty and is made by a write
	fresh, _ := store.NewDirectory(filepath.Join(base, "later", "store"))
	if _, ok, err := fresh.Get(ctx, "k"); ok || err != nil {
		t.Fatalf("missing root: %v %v", ok, err)
	}
	if err := fresh.Set(ctx, "x/k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := fresh.Get(ctx, "x/k"); err != nil || !ok || string(got) != "v" {
		t.Fatalf("after write: %q %v %v", got, ok, err)
	}
	// a key below a file is absent, not an error
	if _, ok, err := fresh.Get(ctx, "x/k/deeper"); ok || err != nil {
		t.Fatalf("below a file: %v %v", ok, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
