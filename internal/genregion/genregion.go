// Package genregion rewrites the generated regions of source files: what
// other languages copy from Go (the error codes, open's first reads) is
// written between two marked comment lines, and checked current by make
// test. The generators internal/errcodes and internal/firstreads use it.
package genregion

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Region is a marked part of a file.
type Region struct {
	Path    string // from the module root
	Comment string // the line comment of the file's language, e.g. "//"
	Begin   string // the text of the line opening the region, after Comment
	End     string // the text of the line closing it
}

// Replace returns file with body between the region's marks.
func (r Region) Replace(file []byte, body string) ([]byte, error) {
	begin := []byte(r.Comment + " " + r.Begin + "\n")
	end := []byte(r.Comment + " " + r.End + "\n")
	i := bytes.Index(file, begin)
	j := bytes.Index(file, end)
	if i < 0 || j < i {
		return nil, errors.New(r.Path + ": no region marked \"" + r.Begin + "\" ... \"" + r.End + "\"")
	}
	out := append([]byte(nil), file[:i+len(begin)]...)
	out = append(out, body...)
	return append(out, file[j:]...), nil
}

// Stale is the error of a check that found files not current.
type Stale struct{ Paths []string }

func (e *Stale) Error() string { return strings.Join(e.Paths, ", ") + " not current" }

// Update rewrites each file under root whose region render(old file) changes
// (check: writes nothing, and returns a *Stale naming them instead).
func Update(root string, check bool, paths []string, render func(path string, old []byte) ([]byte, error)) error {
	var stale []string
	for _, p := range paths {
		full := filepath.Join(root, p)
		old, err := os.ReadFile(full)
		if err != nil {
			return err
		}
		updated, err := render(p, old)
		if err != nil {
			return err
		}
		if bytes.Equal(old, updated) {
			continue
		}
		if check {
			stale = append(stale, p)
			continue
		}
		if err := os.WriteFile(full, updated, 0o644); err != nil {
			return err
		}
	}
	if len(stale) > 0 {
		return &Stale{stale}
	}
	return nil
}

// ModuleRoot is the directory of the go.mod above the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the module (no go.mod above the working directory)")
		}
		dir = parent
	}
}
