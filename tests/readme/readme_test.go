package readme

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// Block is one fenced code block of README.md.
type Block struct {
	Lang string
	Line int // README line of the first line of code
	Code string
}

// Blocks returns README.md's fenced code blocks in order.
func Blocks(readme string) []Block {
	var out []Block
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		open, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		b := Block{Lang: strings.TrimSpace(open), Line: i + 2}
		var code []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			code = append(code, lines[i])
		}
		b.Code = strings.Join(code, "\n") + "\n"
		out = append(out, b)
	}
	return out
}

// notRun are the README blocks that are not programs, by their first line.
var notRun = map[string]string{
	"make demo    # the main job: build the .wasm and the sample data, serve the viewer on 127.0.0.1 (prints the URL)": "the repository's make targets",
	"zarr/          the engine (pure Go): stores, metadata, data types, grids, codecs, arrays, groups":                 "the repository's layout",
}

// substitution replaces text of a block before it runs, for what the
// README names but a test cannot have: a host on the network, an absolute
// directory. Each must match, so a stale entry fails.
type substitution struct{ old, new, why string }

func TestReadmeBlocks(t *testing.T) {
	root := peers.RepoRoot()
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	server := httptest.NewServer(http.FileServer(http.Dir(data)))
	defer server.Close()
	writeData(t, data)
	subs := []substitution{
		{"https://host/refs.json", server.URL + "/refs.json", "a local server instead of a host on the network"},
		{"file:///data/", "file://" + filepath.ToSlash(data) + "/", "the test's directory instead of /data"},
	}
	used := map[string]bool{}
	goBlocks := 0
	for _, b := range Blocks(string(text)) {
		first := strings.SplitN(b.Code, "\n", 2)[0]
		switch b.Lang {
		case "go":
			goBlocks++
			code := b.Code
			for _, s := range subs {
				if strings.Contains(code, s.old) {
					code = strings.ReplaceAll(code, s.old, s.new)
					used[s.old] = true
				}
			}
			t.Run(fmt.Sprintf("README.md:%d", b.Line), func(t *testing.T) { runGo(t, root, data, "README.md", b.Line, code) })
		case "js", "ts":
			// tests/node/readme.test.mjs
		default:
			if _, ok := notRun[first]; !ok {
				t.Errorf("README.md:%d: a %q block that is neither run nor listed as not a program: %q", b.Line, b.Lang, first)
			}
		}
	}
	if goBlocks < 3 {
		t.Errorf("only %d Go blocks found", goBlocks)
	}
	for _, s := range subs {
		if !used[s.old] {
			t.Errorf("substitution %q (%s) matches no block", s.old, s.why)
		}
	}
}

// writeData writes what the README's Go blocks open: data.zarr with a 3-d
// weather/temperature array, and refs.json, a reference set (v1) with a
// temperature array.
func writeData(t *testing.T, dir string) {
	ctx := context.Background()
	s, err := zarr.NewDirectoryStore(filepath.Join(dir, "data.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zarr.CreateGroup(ctx, s, "", zarr.GroupOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := zarr.CreateArray(ctx, s, "weather/temperature", zarr.ArrayOptions{Shape: []int{20, 6, 3}, Chunks: []int{10, 3, 3}, DType: "float32"}); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 16)
	for i := range 4 {
		binary.LittleEndian.PutUint32(chunk[4*i:], math.Float32bits(float32(i)+0.5))
	}
	refs := fmt.Sprintf(`{"version": 1, "refs": {
		".zgroup": "{\"zarr_format\": 2}",
		"temperature/.zarray": "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [4], \"dtype\": \"<f4\", \"compressor\": null, \"fill_value\": 0, \"filters\": null, \"order\": \"C\"}",
		"temperature/0": "base64:%s"}}`, base64.StdEncoding.EncodeToString(chunk))
	if err := os.WriteFile(filepath.Join(dir, "refs.json"), []byte(refs), 0o644); err != nil {
		t.Fatal(err)
	}
}

var importLine = regexp.MustCompile(`(?s)^\s*import\s+(\([^)]*\)|"[^"]*")\s*\n`)

// runGo compiles the block (of doc, at line) as the body of main (its
// imports kept, ctx given), with every error it assigns checked and every
// name it declares used, and runs it in dir.
func runGo(t *testing.T, root, dir, doc string, line int, code string) {
	var imports []string
	if m := importLine.FindStringSubmatch(code); m != nil {
		spec := strings.Trim(m[1], "()")
		for _, l := range strings.Split(spec, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				imports = append(imports, l)
			}
		}
		code = code[len(m[0]):]
	}
	have := strings.Join(imports, "\n")
	for _, need := range []string{`"context"`, `"log"`} {
		imports = append(imports, need)
	}
	if strings.Contains(code, "zarr.") && !strings.Contains(have, `"github.com/zarr-wasm/zarr-wasm/zarr"`) {
		imports = append(imports, `"github.com/zarr-wasm/zarr-wasm/zarr"`)
	}
	// The block's first line is line 3 of main's body (after ctx).
	src := "package main\n\nimport (\n" + strings.Join(imports, "\n") + "\n)\n\nfunc main() {\nctx := context.Background()\n" + code + "}\n"
	const offset = 8 // lines before the block's first line in src
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "main.go", src, 0)
	if err != nil {
		t.Fatalf("the block does not parse as a function body: %v\n%s", err, src)
	}
	var body *ast.BlockStmt
	for _, d := range file.Decls {
		if f, ok := d.(*ast.FuncDecl); ok && f.Name.Name == "main" {
			body = f.Body
		}
	}
	var stmts []ast.Stmt
	declared := map[string]bool{}
	var order []string
	for _, st := range body.List {
		stmts = append(stmts, st)
		as, ok := st.(*ast.AssignStmt)
		if !ok {
			continue
		}
		for _, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || id.Name == "_" {
				continue
			}
			if as.Tok == token.DEFINE && !declared[id.Name] {
				declared[id.Name] = true
				order = append(order, id.Name)
			}
			if id.Name == "err" {
				at := fset.Position(st.Pos()).Line - offset + line - 1
				check, _ := parser.ParseExpr(fmt.Sprintf(`func() { if err != nil { log.Fatalf("%s:%d: %%v", err) } }`, doc, at))
				stmts = append(stmts, check.(*ast.FuncLit).Body.List[0])
			}
		}
	}
	for _, name := range order {
		if name == "ctx" {
			continue
		}
		stmts = append(stmts, &ast.AssignStmt{Lhs: []ast.Expr{ast.NewIdent("_")}, Tok: token.ASSIGN, Rhs: []ast.Expr{ast.NewIdent(name)}})
	}
	body.List = stmts
	var out bytes.Buffer
	if err := printer.Fprint(&out, fset, file); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	mainGo := filepath.Join(work, "main.go")
	if err := os.WriteFile(mainGo, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(work, "block")
	build := exec.Command("go", "build", "-o", bin, mainGo)
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s:%d does not compile: %v\n%s\n%s", doc, line, err, b, out.String())
	}
	run := exec.Command(bin)
	run.Dir = dir
	if b, err := run.CombinedOutput(); err != nil {
		t.Fatalf("%s:%d: %v\n%s", doc, line, err, b)
	}
}
