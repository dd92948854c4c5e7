package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

func TestByteRangeConstructors(t *testing.T) {
	cases := []struct {
		r       ByteRange
		size    int64
		off, n  int64
		wantErr bool
	}{
		{WholeValue(), 10, 0, 10, false},
		{ByteRange{}, 10, 0, 10, false}, // the zero range is the whole value
		{Span(2, 3), 10, 2, 3, false},
		{Span(2, 0), 10, 2, 0, false}, // no bytes, as asked
		{From(4), 10, 4, 6, false},
		{Last(3), 10, 7, 3, false},
		{Span(8, 3), 10, 0, 0, true},
		{Last(11), 10, 0, 0, true},
		{Span(-1, 1), 10, 0, 0, true},
	}
	for _, c := range cases {
		off, n, err := c.r.Resolve(c.size)
		if (err != nil) != c.wantErr || (err == nil && (off != c.off || n != c.n)) {
			t.Errorf("%s of %d bytes: %d+%d, %v", c.r, c.size, off, n, err)
		}
	}
}

// versionedContract checks what every versioned, conditionally writable
// store must do.
func versionedContract(t *testing.T, s interface {
	Store
	VersionedReader
	ConditionalWriter
}) {
	ctx := context.Background()
	v, err := s.ReadVersion(ctx, "k", WholeValue(), Conditions{})
	if err != nil || v.Found || v.Generation != Absent {
		t.Fatalf("absent key: %+v, %v", v, err)
	}
	if _, err := s.SetIf(ctx, "k", []byte("one"), "someversion"); errs.CodeOf(err) != errs.Conflict {
		t.Fatalf("SetIf on an absent key with a version: %v, want CONFLICT", err)
	}
	g1, err := s.SetIf(ctx, "k", []byte("one"), Absent)
	if err != nil || g1 == "" {
		t.Fatalf("create if absent: %q, %v", g1, err)
	}
	if _, err := s.SetIf(ctx, "k", []byte("two"), Absent); errs.CodeOf(err) != errs.Conflict {
		t.Fatalf("create if absent over a value: %v, want CONFLICT", err)
	}
	v, err = s.ReadVersion(ctx, "k", Span(1, 2), Conditions{IfMatch: g1})
	if err != nil || string(v.Data) != "ne" || v.Generation != g1 {
		t.Fatalf("range if match: %+v, %v", v, err)
	}
	v, err = s.ReadVersion(ctx, "k", WholeValue(), Conditions{IfNoneMatch: g1})
	if err != nil || !v.NotModified || v.Data != nil || !v.Found {
		t.Fatalf("if none match the same version: %+v, %v", v, err)
	}
	time.Sleep(2 * time.Millisecond) // (a file's time must move on)
	g2, err := s.SetIf(ctx, "k", []byte("three"), g1)
	if err != nil || g2 == g1 {
		t.Fatalf("SetIf at the version read: %q, %v", g2, err)
	}
	if _, err := s.SetIf(ctx, "k", []byte("lost"), g1); errs.CodeOf(err) != errs.Conflict {
		t.Fatalf("SetIf at an old version: %v, want CONFLICT", err)
	}
	if _, err := s.ReadVersion(ctx, "k", WholeValue(), Conditions{IfMatch: g1}); errs.CodeOf(err) != errs.Conflict {
		t.Fatalf("read if match an old version: %v, want CONFLICT", err)
	}
	v, err = s.ReadVersion(ctx, "k", WholeValue(), Conditions{IfNoneMatch: g1})
	if err != nil || v.NotModified || string(v.Data) != "three" || v.Generation != g2 {
		t.Fatalf("if none match an old version: %+v, %v", v, err)
	}
	if err := s.DeleteIf(ctx, "k", g1); errs.CodeOf(err) != errs.Conflict {
		t.Fatalf("DeleteIf at an old version: %v", err)
	}
	if err := s.DeleteIf(ctx, "k", g2); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "k"); ok {
		t.Fatal("deleted key still there")
	}
}

func TestMemoryVersions(t *testing.T) { versionedContract(t, NewMemory()) }

func TestDirectoryVersions(t *testing.T) {
	d, _ := NewDirectory(t.TempDir())
	versionedContract(t, d)
}

// TestDirectoryLockFile: a conditional write waits while another writer
// holds the key's lock, takes a lock left by a dead writer, and the lock
// files are not listed.
func TestDirectoryLockFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, _ := NewDirectory(dir)
	g, err := d.SetIf(ctx, "a/k", []byte("x"), Absent)
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "a", ".k.lock")
	os.WriteFile(lock, []byte("1"), 0o644)
	released := make(chan struct{})
	go func() {
		time.Sleep(30 * time.Millisecond)
		os.Remove(lock)
		close(released)
	}()
	start := time.Now()
	if _, err := d.SetIf(ctx, "a/k", []byte("y"), g); err != nil {
		t.Fatal(err)
	}
	<-released
	if time.Since(start) < 25*time.Millisecond {
		t.Errorf("the write did not wait for the lock")
	}
	if names, _ := d.List(ctx, "a/"); len(names) != 1 || names[0] != "k" {
		t.Errorf("listed %v", names)
	}
	os.WriteFile(lock, []byte("1"), 0o644)
	old := time.Now().Add(-time.Minute)
	os.Chtimes(lock, old, old)
	if _, err := d.SetIf(ctx, "a/k", []byte("z"), ""); err != nil {
		t.Fatal(err)
	}
	v, _ := d.ReadVersion(ctx, "a/k", WholeValue(), Conditions{})
	if _, err := d.SetIf(ctx, "a/k", []byte("w"), v.Generation); err != nil {
		t.Fatalf("a stale lock was not taken over: %v", err)
	}
	if _, err := os.Stat(lock); err == nil {
		t.Error("the lock file was left behind")
	}
}

// TestReadChecksGenerations: Read turns an answer of another version into a
// CONFLICT, and of the same version into NotModified, for stores that
// report versions but ignore conditions.
func TestReadChecksGenerations(t *testing.T) {
	ctx := context.Background()
	s := ignoring{NewMemory()}
	g, _ := s.m.SetIf(ctx, "k", []byte("v"), "")
	if _, err := Read(ctx, s, "k", WholeValue(), Conditions{IfMatch: "other"}); errs.CodeOf(err) != errs.Conflict {
		t.Errorf("IfMatch another version: %v", err)
	}
	v, err := Read(ctx, s, "k", WholeValue(), Conditions{IfNoneMatch: g})
	if err != nil || !v.NotModified {
		t.Errorf("IfNoneMatch the version: %+v, %v", v, err)
	}
}

// ignoring reports versions and ignores conditions.
type ignoring struct{ m *Memory }

func (s ignoring) Get(ctx context.Context, k string) ([]byte, bool, error) { return s.m.Get(ctx, k) }
func (s ignoring) ReadVersion(ctx context.Context, k string, r ByteRange, _ Conditions) (Versioned, error) {
	return s.m.ReadVersion(ctx, k, r, Conditions{})
}

// notModifiedAlways answers every versioned read "not modified" (a broken
// store, or a cache in front of one that ignores the conditions).
type notModifiedAlways struct{ ignoring }

func (s notModifiedAlways) ReadVersion(context.Context, string, ByteRange, Conditions) (Versioned, error) {
	return Versioned{Found: true, Generation: "g", NotModified: true}, nil
}

func TestNotModifiedWithoutAConditionIsAnError(t *testing.T) {
	s := notModifiedAlways{ignoring{NewMemory()}}
	if _, err := Read(context.Background(), s, "k", WholeValue(), Conditions{}); errs.CodeOf(err) != errs.Store {
		t.Errorf("got %v, want a STORE error", err)
	}
}
