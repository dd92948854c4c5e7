package store

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Directory stores each key as a file below a root directory. Writes are
// atomic: the value goes to a temporary file in the same directory, which
// is then renamed over the key, so readers never see a partial value.
// Reads are versioned by the file's identity (VersionedReader) and writes
// can be conditional (ConditionalWriter, with a lock file per key).
//
// Every read and write stays inside the root: a symbolic link that leads
// outside it (or an absolute one) makes the key an error, checked by the
// operating system as the path is opened (os.Root), unless
// AllowOutsideSymlinks is set.
type Directory struct {
	root string
	// AllowOutsideSymlinks lets symbolic links below the root lead
	// anywhere (off by default: a store opened on a directory someone
	// else prepared could otherwise read or overwrite any file the
	// process may).
	AllowOutsideSymlinks bool

	mu sync.Mutex
	r  *os.Root // opened on first use (the root may not exist before a write)
}

// NewDirectory returns a store rooted at dir (created on first write).
func NewDirectory(dir string) (*Directory, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errs.Wrap(errs.Store, dir, err, "bad directory")
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return nil, errs.New(errs.Store, dir, "not a directory")
	}
	return &Directory{root: abs}, nil
}

// Root returns the directory.
func (d *Directory) Root() string { return d.root }

// rel checks a key and returns its path relative to the root.
func (d *Directory) rel(key string) (string, error) {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "\\") {
		return "", errs.New(errs.Store, key, "invalid key")
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", errs.New(errs.Store, key, "invalid key")
		}
	}
	return filepath.FromSlash(key), nil
}

// files is what the store's operations need of the file system: os.Root
// (contained) or the plain os functions (AllowOutsideSymlinks).
type files interface {
	ReadFile(name string) ([]byte, error)
	Open(name string) (*os.File, error)
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	MkdirAll(name string, perm fs.FileMode) error
	Rename(oldname, newname string) error
	Remove(name string) error
	Stat(name string) (fs.FileInfo, error)
}

// plain is the file system without containment, relative to the root.
type plain string

func (p plain) path(name string) string                   { return filepath.Join(string(p), name) }
func (p plain) ReadFile(name string) ([]byte, error)      { return os.ReadFile(p.path(name)) }
func (p plain) Open(name string) (*os.File, error)        { return os.Open(p.path(name)) }
func (p plain) MkdirAll(name string, m fs.FileMode) error { return os.MkdirAll(p.path(name), m) }
func (p plain) Rename(a, b string) error                  { return os.Rename(p.path(a), p.path(b)) }
func (p plain) Remove(name string) error                  { return os.Remove(p.path(name)) }
func (p plain) Stat(name string) (fs.FileInfo, error)     { return os.Stat(p.path(name)) }
func (p plain) OpenFile(name string, flag int, m fs.FileMode) (*os.File, error) {
	return os.OpenFile(p.path(name), flag, m)
}

// fsys returns the file system to use; create makes a missing root (for
// writes). ok is false when the root does not exist and create is false.
func (d *Directory) fsys(create bool) (f files, ok bool, err error) {
	if d.AllowOutsideSymlinks {
		if create {
			if err := os.MkdirAll(d.root, 0o755); err != nil {
				return nil, false, err
			}
		}
		return plain(d.root), true, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.r != nil {
		return d.r, true, nil
	}
	r, err := os.OpenRoot(d.root)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil, false, nil
		}
		if err = os.MkdirAll(d.root, 0o755); err == nil {
			r, err = os.OpenRoot(d.root)
		}
	}
	if err != nil {
		return nil, false, err
	}
	d.r = r
	return r, true, nil
}

// fail turns a file system error into a STORE error, explaining a path
// that os.Root refused for leaving the root.
func (d *Directory) fail(key string, err error, what string) error {
	if strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes") {
		return errs.Wrap(errs.Store, key, err, "%s: a symbolic link leads outside the store's root %s (Directory.AllowOutsideSymlinks allows that)", what, d.root)
	}
	return errs.Wrap(errs.Store, key, err, "%s", what)
}

// absent reports errors that mean "no such key".
func absent(err error) bool {
	var pe *fs.PathError
	return errors.Is(err, fs.ErrNotExist) || (errors.As(err, &pe) && isNotDir(pe.Err))
}

func (d *Directory) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := d.ReadVersion(ctx, key, WholeValue(), Conditions{})
	return v.Data, v.Found, err
}

func (d *Directory) GetRange(ctx context.Context, key string, r ByteRange) ([]byte, bool, error) {
	v, err := d.ReadVersion(ctx, key, r, Conditions{})
	return v.Data, v.Found, err
}

// ReadVersion reads through one open file, so the bytes come from one file
// even while writers rename new versions over it; the generation is that
// file's identity (fileGeneration). A file changed in place during the read
// (not by this package's writers, which rename) is read again, and is a
// CONFLICT if it keeps changing.
func (d *Directory) ReadVersion(_ context.Context, key string, r ByteRange, c Conditions) (Versioned, error) {
	rel, err := d.rel(key)
	if err != nil {
		return Versioned{}, err
	}
	fsys, ok, err := d.fsys(false)
	if err != nil {
		return Versioned{}, err
	}
	if !ok {
		return absentVersion(key, c)
	}
	for attempt := 0; ; attempt++ {
		v, changed, err := d.readFile(fsys, key, rel, r, c)
		if !changed {
			return v, err
		}
		if attempt == 3 {
			return Versioned{}, Conflict(key, "the file kept changing while it was read")
		}
	}
}

// absentVersion is the answer of a versioned read of a missing key.
func absentVersion(key string, c Conditions) (Versioned, error) {
	v, _, err := Precheck(key, Absent, c)
	return v, err
}

// readFile makes one attempt of ReadVersion; changed reports a file written
// in place while it was read.
func (d *Directory) readFile(fsys files, key, rel string, r ByteRange, c Conditions) (v Versioned, changed bool, err error) {
	f, err := fsys.Open(rel)
	if err != nil {
		if absent(err) {
			v, err := absentVersion(key, c)
			return v, false, err
		}
		return Versioned{}, false, d.fail(key, err, "open failed")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Versioned{}, false, errs.Wrap(errs.Store, key, err, "stat failed")
	}
	if fi.IsDir() {
		v, err := absentVersion(key, c)
		return v, false, err
	}
	gen := fileGeneration(fi)
	if pre, done, err := Precheck(key, gen, c); done {
		return pre, false, err
	}
	off, n, err := r.Resolve(fi.Size())
	if err != nil {
		return Versioned{}, false, errs.Wrap(errs.Store, key, err, "bad range")
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		if errors.Is(err, io.EOF) {
			return Versioned{}, true, nil // truncated in place
		}
		return Versioned{}, false, errs.Wrap(errs.Store, key, err, "read failed")
	}
	if after, err := f.Stat(); err != nil || fileGeneration(after) != gen {
		return Versioned{}, true, nil
	}
	return Versioned{Data: buf, Found: true, Generation: gen}, false, nil
}

func (d *Directory) Set(ctx context.Context, key string, value []byte) error {
	_, err := d.SetIf(ctx, key, value, "")
	return err
}

// SetIf writes the value to a temporary file in the key's directory and
// renames it over the key. With a condition, the check and the rename
// happen under the key's lock file (see lockFile), so two writers using
// SetIf, in any processes, cannot both replace the same version.
func (d *Directory) SetIf(ctx context.Context, key string, value []byte, ifMatch Generation) (Generation, error) {
	rel, err := d.rel(key)
	if err != nil {
		return "", err
	}
	f, _, err := d.fsys(true)
	if err != nil {
		return "", errs.Wrap(errs.Store, key, err, "cannot create the store's directory")
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := f.MkdirAll(dir, 0o755); err != nil {
			return "", d.fail(key, err, "cannot create directory")
		}
	}
	// (A name no other writer picks; O_EXCL guards the rest. math/rand/v2
	// is seeded by the runtime, and crypto/rand would add 100 KB of
	// WebAssembly.)
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+"."+strconv.FormatUint(rand.Uint64()>>16, 16)+".partial")
	w, err := f.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", d.fail(key, err, "cannot create temporary file")
	}
	_, werr := w.Write(value)
	cerr := w.Close()
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		f.Remove(tmp)
		return "", d.fail(key, werr, "write failed")
	}
	var gen Generation
	err = d.underLock(ctx, f, key, rel, ifMatch, func() error {
		// a rename replaces whatever is at rel (a symbolic link itself, not
		// what it points to)
		if err := f.Rename(tmp, rel); err != nil {
			return d.fail(key, err, "write failed")
		}
		if fi, err := f.Stat(rel); err == nil {
			gen = fileGeneration(fi)
		}
		return nil
	})
	if err != nil {
		f.Remove(tmp)
		return "", err
	}
	return gen, nil
}

func (d *Directory) Delete(ctx context.Context, key string) error {
	return d.DeleteIf(ctx, key, "")
}

func (d *Directory) DeleteIf(ctx context.Context, key string, ifMatch Generation) error {
	rel, err := d.rel(key)
	if err != nil {
		return err
	}
	f, ok, err := d.fsys(false)
	if err != nil {
		return err
	}
	if !ok {
		if ifMatch != "" && ifMatch != Absent {
			return Conflict(key, "was deleted (expected version %s)", string(ifMatch))
		}
		return nil
	}
	return d.underLock(ctx, f, key, rel, ifMatch, func() error {
		if err := f.Remove(rel); err != nil && !absent(err) {
			return d.fail(key, err, "delete failed")
		}
		return nil
	})
}

// underLock runs change: at once without a condition, else holding the
// key's lock file once the file is found still at ifMatch.
func (d *Directory) underLock(ctx context.Context, f files, key, rel string, ifMatch Generation, change func() error) error {
	if ifMatch == "" {
		return change()
	}
	unlock, err := lockFile(ctx, f, key, rel)
	if err != nil {
		return err
	}
	defer unlock()
	gen := Absent
	if fi, err := f.Stat(rel); err == nil && !fi.IsDir() {
		gen = fileGeneration(fi)
	} else if err != nil && !absent(err) {
		return d.fail(key, err, "stat failed")
	}
	if gen != ifMatch {
		return Conflict(key, "changed since it was read (version %s, expected %s)", string(gen), string(ifMatch))
	}
	return change()
}

func (d *Directory) List(_ context.Context, prefix string) ([]string, error) {
	dir := "."
	if prefix != "" {
		p, err := d.rel(strings.TrimSuffix(prefix, "/"))
		if err != nil {
			return nil, err
		}
		dir = p
	}
	fsys, ok, err := d.fsys(false)
	if err != nil || !ok {
		return nil, err
	}
	f, err := fsys.Open(dir)
	if err != nil {
		if absent(err) {
			return nil, nil
		}
		return nil, d.fail(prefix, err, "list failed")
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && isNotDir(pe.Err) {
			return nil, nil
		}
		return nil, errs.Wrap(errs.Store, prefix, err, "list failed")
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && (strings.HasSuffix(name, ".partial") || strings.HasSuffix(name, lockSuffix)) {
			continue // an interrupted atomic write, a writer's lock
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			// a link to a directory lists as a sub-prefix (if it may be followed)
			if fi, err := fsys.Stat(filepath.Join(dir, name)); err == nil {
				isDir = fi.IsDir()
			}
		}
		if isDir {
			name += "/"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out, nil
}

// isNotDir reports ENOTDIR: a key below what is a file.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
