package fmtx

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	goprinter "go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/zarr-wasm/zarr-wasm"

// The engine's code (these trees, test files aside) formats with this
// package only: fmt is not imported there.
var noFmt = []string{module + "/zarr", module + "/jsbridge", module + "/wasm", module + "/internal"}

// TestCallSites type-checks every package of the module (natively, and for
// GOOS=js with and without the zarrcore tag) and checks each call of a
// printf-style function (this package's, and every wrapper: a function whose
// last parameters are "format string, args ...any") whose format is a
// constant: every directive with its operand's static type must be in the
// table of support_test.go, so that no call site prints "%!v(unsupported)"
// or anything fmt would not print. A call whose format is not a constant
// must forward its arguments (args...). Sprint takes only operands %v
// supports.
func TestCallSites(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
	root := moduleRoot(t)
	type config struct {
		env  []string
		tags string
		pkgs []string
	}
	configs := []config{
		{nil, "", []string{"./..."}},
		{[]string{"GOOS=js", "GOARCH=wasm"}, "", []string{"./jsbridge/...", "./wasm/...", "./zarr/..."}},
		{[]string{"GOOS=js", "GOARCH=wasm"}, "zarrcore", []string{"./jsbridge/...", "./wasm/..."}},
	}
	calls := 0
	for _, c := range configs {
		calls += checkConfig(t, root, c.env, c.tags, c.pkgs)
	}
	if calls < 300 {
		t.Fatalf("only %d printf-style calls found; the walk is broken", calls)
	}
	t.Logf("%d printf-style calls checked", calls)
}

func moduleRoot(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
	ImportMap  map[string]string
}

func checkConfig(t *testing.T, root string, env []string, tags string, patterns []string) int {
	args := []string{"list", "-deps", "-export", "-json=ImportPath,Dir,GoFiles,Export,Standard,ImportMap"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, stderr.String())
	}
	exports := map[string]string{}
	var mine []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if strings.HasPrefix(p.ImportPath, module+"/") || p.ImportPath == module {
			mine = append(mine, p)
		}
	}
	fset := token.NewFileSet()
	calls := 0
	for _, p := range mine {
		imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			if m, ok := p.ImportMap[path]; ok {
				path = m
			}
			return os.Open(exports[path])
		})
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp, GoVersion: "", Sizes: types.SizesFor("gc", "wasm")}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-checking %s (%v): %v", p.ImportPath, env, err)
		}
		engine := false
		for _, tree := range noFmt {
			engine = engine || p.ImportPath == tree || strings.HasPrefix(p.ImportPath, tree+"/")
		}
		for _, f := range files {
			for _, spec := range f.Imports {
				if spec.Path.Value == `"fmt"` && engine {
					t.Errorf("%s imports fmt (use internal/fmtx)", fset.Position(spec.Pos()))
				}
			}
		}
		if !engine || p.ImportPath == module+"/internal/fmtx" {
			continue
		}
		findErrorfWrappers(info, files)
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if checkCall(t, fset, info, call) {
					calls++
				}
				return true
			})
		}
	}
	return calls
}

// errorfWrappers are the functions whose body calls Errorf: %w is theirs
// to use.
var errorfWrappers = map[string]bool{module + "/internal/fmtx.Errorf": true}

func findErrorfWrappers(info *types.Info, files []*ast.File) {
	for _, f := range files {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok && calleeName(info, call) == module+"/internal/fmtx.Errorf" {
					if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
						errorfWrappers[fn.Pkg().Path()+"."+fn.Name()] = true
					}
				}
				return true
			})
		}
	}
}

var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// checkCall checks one call if it is of a printf-style function, reporting
// whether it was.
func checkCall(t *testing.T, fset *token.FileSet, info *types.Info, call *ast.CallExpr) bool {
	sig, ok := info.TypeOf(call.Fun).(*types.Signature)
	if !ok || !sig.Variadic() {
		return false
	}
	params := sig.Params()
	n := params.Len()
	last, ok := params.At(n - 1).Type().(*types.Slice)
	if !ok || !isEmptyInterface(last.Elem()) {
		return false
	}
	pos := fset.Position(call.Pos())
	callee := calleeName(info, call)
	if callee == module+"/internal/fmtx.Sprint" {
		if call.Ellipsis.IsValid() {
			return true
		}
		for _, a := range call.Args {
			k := kindOf(info.TypeOf(a))
			if k == "" || !supported(k, directive{verb: 'v'}, false) || (len(call.Args) > 1 && k != kString && k != kInt && k != kUint && k != kFloat && k != kBool) {
				t.Errorf("%s: Sprint operand %s of type %s is not supported", pos, exprString(fset, a), info.TypeOf(a))
			}
		}
		return true
	}
	if n < 2 {
		return false
	}
	fp := params.At(n - 2)
	if fp.Name() != "format" || !types.Identical(fp.Type(), types.Typ[types.String]) {
		return false
	}
	if call.Ellipsis.IsValid() {
		return true // forwards its own format and operands
	}
	formatArg := call.Args[n-2]
	tv := info.Types[formatArg]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		t.Errorf("%s: the format of %s is not a constant; vet and this test cannot check it", pos, callee)
		return true
	}
	format := constant.StringVal(tv.Value)
	ds, ok := parseFormat(format)
	if !ok {
		t.Errorf("%s: format %q uses what this package does not parse (argument indexes, non-ASCII verbs)", pos, format)
		return true
	}
	operands := call.Args[n-1:]
	errorf := errorfWrappers[callee]
	i := 0
	for _, d := range ds {
		if d.starWidth || d.starPrec {
			stars := 0
			if d.starWidth {
				stars++
			}
			if d.starPrec {
				stars++
			}
			for ; stars > 0; stars-- {
				if i >= len(operands) {
					break
				}
				if typ := info.TypeOf(operands[i]); !types.Identical(types.Default(typ), types.Typ[types.Int]) {
					t.Errorf("%s: a '*' operand must be an int, %s is %s", pos, exprString(fset, operands[i]), typ)
				}
				i++
			}
		}
		if i >= len(operands) {
			t.Errorf("%s: format %q: too few operands", pos, format)
			return true
		}
		a := operands[i]
		i++
		typ := info.TypeOf(a)
		k := kindOf(typ)
		if k == "" {
			t.Errorf("%s: %%%c operand %s has type %s, which internal/fmtx does not format (convert it to a basic type, or add the type)", pos, d.verb, exprString(fset, a), typ)
			continue
		}
		if !supported(k, d, errorf) {
			t.Errorf("%s: format %q: directive %%%s%c with operand %s (%s, kind %s) is not in internal/fmtx's table", pos, format, d.flags, d.verb, exprString(fset, a), typ, k)
		}
	}
	if i < len(operands) {
		t.Errorf("%s: format %q: too many operands", pos, format)
	}
	return true
}

func calleeName(info *types.Info, call *ast.CallExpr) string {
	var id *ast.Ident
	switch f := call.Fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return ""
	}
	if fn, ok := info.Uses[id].(*types.Func); ok && fn.Pkg() != nil {
		return fn.Pkg().Path() + "." + fn.Name()
	}
	return id.Name
}

func isEmptyInterface(t types.Type) bool {
	i, ok := t.Underlying().(*types.Interface)
	return ok && i.NumMethods() == 0
}

// kindOf classifies a static type into the table's kinds ("" when none).
func kindOf(t types.Type) string {
	if b, ok := t.(*types.Basic); ok {
		if b.Kind() == types.UntypedNil {
			return kNil
		}
		b = types.Default(b).(*types.Basic)
		info := b.Info()
		switch {
		case b.Kind() == types.Bool:
			return kBool
		case info&types.IsInteger != 0 && info&types.IsUnsigned != 0:
			return kUint
		case info&types.IsInteger != 0:
			return kInt
		case info&types.IsFloat != 0:
			return kFloat
		case b.Kind() == types.String:
			return kString
		}
		return ""
	}
	if iface, ok := t.Underlying().(*types.Interface); ok {
		switch {
		case iface.NumMethods() == 0:
			return kAny
		case types.Implements(t, errorType):
			return kError
		case hasString(t):
			return kStringer
		}
		return ""
	}
	if types.Implements(t, errorType) {
		return kError
	}
	if hasString(t) {
		return kStringer
	}
	if s, ok := t.(*types.Slice); ok { // unnamed slices only
		if e, ok := s.Elem().(*types.Basic); ok {
			switch e.Kind() {
			case types.Uint8:
				return kBytes
			case types.Int, types.Int64, types.Uint64:
				return kIntSlice
			case types.String:
				return kStrSlice
			}
		}
		if isEmptyInterface(s.Elem()) {
			return kAny
		}
	}
	if m, ok := t.(*types.Map); ok && isEmptyInterface(m.Elem()) && types.Identical(m.Key(), types.Typ[types.String]) {
		return kAny
	}
	return ""
}

// hasString reports whether t's method set has String() string.
func hasString(t types.Type) bool {
	ms := types.NewMethodSet(t)
	for i := 0; i < ms.Len(); i++ {
		f := ms.At(i).Obj()
		if f.Name() != "String" {
			continue
		}
		sig := f.Type().(*types.Signature)
		return sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String])
	}
	return false
}

func exprString(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	_ = goprinter.Fprint(&b, fset, e)
	return b.String()
}
