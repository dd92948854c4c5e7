// Package genregion rewrites the generated regions of source files: what
// other languages copy from Go (the error codes, open's first reads, the
// viewer's module list) is written between two marked comment lines, and
// checked current by make test. The generators internal/errcodes,
// internal/firstreads and internal/modulepreload use it.
package genregion

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
)

// Main is a generator command's main: run rewrites its regions under the
// module root, or with -check reports the stale ones; an error is printed
// after the command's name, with exit status 1.
func Main(name string, run func(root string, check bool) error) {
	check := flag.Bool("check", false, "fail if a generated region is not current")
	flag.Parse()
	root, err := ModuleRoot()
	if err == nil {
		err = run(root, *check)
	}
	if err != nil {
		os.Stderr.WriteString(name + ": " + err.Error() + "\n")
		os.Exit(1)
	}
}

// CheckCurrent fails t (a *testing.T) when run finds a region stale: each
// generator's test that make codes was run.
func CheckCurrent(t interface{ Fatal(...any) }, run func(root string, check bool) error) {
	root, err := ModuleRoot()
	if err == nil {
		err = run(root, true)
	}
	if err != nil {
		t.Fatal(err)
	}
}

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
