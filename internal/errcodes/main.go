// Command errcodes writes the error codes of zarr/errs/errs.go (its two
// const blocks of errs.Code, with their comments) where other languages and
// packages list them:
//
//   - npm/lib/errors.js: the codes array the package exports;
//   - npm/index.d.ts: the ZarrErrorCode union, each code with its comment;
//   - zarr/zarr.go: package zarr's Code constants (the engine's codes).
//
// Each is a marked region of its file. Run from anywhere in the module:
//
//	go run ./internal/errcodes          rewrite the regions (make codes, go generate ./zarr/errs)
//	go run ./internal/errcodes -check   fail if one is not current (make check-codes)
package main

import (
	"errors"
	"flag"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/internal/genregion"
)

// The source, and the doc comments that say which block is which.
const (
	source     = "zarr/errs/errs.go"
	engineDoc  = "The codes the engine gives."
	hostDoc    = "The codes only the JavaScript package gives (never the engine)."
	beginMark  = "Generated from zarr/errs/errs.go by internal/errcodes (make codes): do not edit."
	endMark    = "End of the generated error codes."
	usageWords = "usage: go run ./internal/errcodes [-check]"
)

// code is one error code: its Go name, its value, what it means, and
// whether only the JavaScript package gives it.
type code struct {
	Name, Value, Doc string
	HostOnly         bool
}

func main() {
	flag.Usage = func() { os.Stderr.WriteString(usageWords + "\n") }
	genregion.Main("errcodes", run)
}

// run regenerates every target (check: reports the stale ones instead).
func run(root string, check bool) error {
	src, err := os.ReadFile(filepath.Join(root, source))
	if err != nil {
		return err
	}
	codes, err := parseCodes(src)
	if err != nil {
		return err
	}
	paths := make([]string, len(targets))
	byPath := map[string]target{}
	for i, t := range targets {
		paths[i] = t.path
		byPath[t.path] = t
	}
	err = genregion.Update(root, check, paths, func(path string, old []byte) ([]byte, error) {
		t := byPath[path]
		updated, err := genregion.Region{Path: path, Comment: t.comment, Begin: beginMark, End: endMark}.Replace(old, t.render(codes))
		if err == nil && t.gofmt {
			if updated, err = format.Source(updated); err != nil {
				err = errors.New(path + ": " + err.Error())
			}
		}
		return updated, err
	})
	if _, ok := err.(*genregion.Stale); ok {
		return errors.New(err.Error() + " with " + source + " (run make codes)")
	}
	return err
}

// parseCodes reads the two const blocks of errs.Code, in order.
func parseCodes(src []byte) ([]code, error) {
	f, err := parser.ParseFile(token.NewFileSet(), source, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []code
	blocks := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || g.Doc == nil {
			continue
		}
		var host bool
		switch strings.TrimSpace(g.Doc.Text()) {
		case engineDoc:
		case hostDoc:
			host = true
		default:
			continue
		}
		blocks++
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if len(v.Names) != 1 || len(v.Values) != 1 {
				return nil, errors.New("one code per line")
			}
			name := v.Names[0].Name
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return nil, errors.New(name + ": not a string literal")
			}
			value, _ := strconv.Unquote(lit.Value)
			doc := strings.Join(strings.Fields(v.Doc.Text()), " ")
			if !strings.HasPrefix(doc, name+": ") {
				return nil, errors.New(name + ": its comment must start \"" + name + ": \"")
			}
			out = append(out, code{Name: name, Value: value, Doc: doc[len(name)+2:], HostOnly: host})
		}
	}
	if blocks != 2 || len(out) == 0 {
		return nil, errors.New("want the two const blocks documented \"" + engineDoc + "\" and \"" + hostDoc + "\"")
	}
	return out, nil
}

// target is a file with a generated region.
type target struct {
	path    string
	comment string // the line comment of its language
	gofmt   bool
	render  func([]code) string
}

var targets = []target{
	{"npm/lib/errors.js", "//", false, func(cs []code) string {
		var b strings.Builder
		b.WriteString("/** Error codes: the Go engine's (zarr/errs), then those only this package gives. */\nexport const codes = Object.freeze([\n")
		for _, c := range cs {
			b.WriteString("  " + strconv.Quote(c.Value) + ",\n")
		}
		b.WriteString("]);\n")
		return b.String()
	}},
	{"npm/index.d.ts", "//", false, func(cs []code) string {
		var b strings.Builder
		b.WriteString("/** Error codes of ZarrError: the Go engine's (zarr/errs), then those only this package gives. */\nexport type ZarrErrorCode =\n")
		for i, c := range cs {
			b.WriteString("  /** " + sentence(c.Doc) + " */\n  | " + strconv.Quote(c.Value))
			if i == len(cs)-1 {
				b.WriteString(";")
			}
			b.WriteString("\n")
		}
		return b.String()
	}},
	{"zarr/zarr.go", "//", true, func(cs []code) string {
		var b strings.Builder
		b.WriteString("\n// Error codes (see package errs).\nconst (\n")
		for _, c := range cs {
			if !c.HostOnly {
				b.WriteString("\tCode" + c.Name + " = errs." + c.Name + "\n")
			}
		}
		b.WriteString(")\n")
		return b.String()
	}},
}

// sentence capitalises a comment's first letter (it follows "Name: " in Go).
func sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
