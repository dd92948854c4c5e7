package store

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Directory stores each key as a file below a root directory. Writes are
// atomic: the value goes to a temporary file in the same directory, which
// is then renamed over the key, so readers never see a partial value.
type Directory struct {
	root string
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

func (d *Directory) path(key string) (string, error) {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "\\") {
		return "", errs.New(errs.Store, key, "invalid key")
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", errs.New(errs.Store, key, "invalid key")
		}
	}
	return filepath.Join(d.root, filepath.FromSlash(key)), nil
}

func (d *Directory) Get(_ context.Context, key string) ([]byte, bool, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, false, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || isDirErr(p) {
			return nil, false, nil
		}
		return nil, false, errs.Wrap(errs.Store, key, err, "read failed")
	}
	return data, true, nil
}

func isDirErr(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func (d *Directory) GetRange(_ context.Context, key string, r ByteRange) ([]byte, bool, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, false, err
	}
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, errs.Wrap(errs.Store, key, err, "open failed")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, errs.Wrap(errs.Store, key, err, "stat failed")
	}
	if fi.IsDir() {
		return nil, false, nil
	}
	size := fi.Size()
	off, n := r.Offset, r.Length
	if r.Suffix > 0 {
		off, n = size-r.Suffix, r.Suffix
	} else if n < 0 {
		n = size - off
	}
	if off < 0 || n < 0 || off+n > size {
		return nil, false, errs.New(errs.Store, key, "%s of a %d-byte file", r, size)
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, false, errs.Wrap(errs.Store, key, err, "read failed")
	}
	return buf, true, nil
}

func (d *Directory) Set(_ context.Context, key string, value []byte) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errs.Wrap(errs.Store, key, err, "cannot create directory")
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p)+".*.partial")
	if err != nil {
		return errs.Wrap(errs.Store, key, err, "cannot create temporary file")
	}
	_, werr := tmp.Write(value)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return errs.Wrap(errs.Store, key, werr, "write failed")
	}
	return nil
}

func (d *Directory) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errs.Wrap(errs.Store, key, err, "delete failed")
	}
	return nil
}

func (d *Directory) List(_ context.Context, prefix string) ([]string, error) {
	dir := d.root
	if prefix != "" {
		p, err := d.path(strings.TrimSuffix(prefix, "/"))
		if err != nil {
			return nil, err
		}
		dir = p
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, errs.Wrap(errs.Store, prefix, err, "list failed")
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".partial") && strings.HasPrefix(name, ".") {
			continue // an interrupted atomic write
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out, nil
}
