package readme

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
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
	"sort"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	s3test "github.com/zarr-wasm/zarr-wasm/tests/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// Block is one fenced code block of a Markdown file.
type Block struct {
	File string // relative to the repository root: README.md, docs/go.md
	Lang string
	Line int // line of the block's first line of code in File
	Code string
}

// Where names the block as file:line.
func (b Block) Where() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

// Blocks returns the fenced code blocks of text, in order.
func Blocks(file, text string) []Block {
	var out []Block
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		open, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		b := Block{File: file, Lang: strings.TrimSpace(open), Line: i + 2}
		var code []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			code = append(code, lines[i])
		}
		b.Code = strings.Join(code, "\n") + "\n"
		out = append(out, b)
	}
	return out
}

// DocFiles lists the documents whose blocks run: README.md, then docs/*.md.
func DocFiles(root string) ([]string, error) {
	files := []string{"README.md"}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(pages)
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		files = append(files, filepath.ToSlash(rel))
	}
	return files, nil
}

// notRun are the blocks that are not programs (other than json blocks,
// which must parse), by their first line, with the reason. A listed line that no block starts with fails the test, so
// the list stays current.
var notRun = map[string]string{
	"make                 # build: the engine's two .wasm files, wasm_exec.js":                                                  "the repository's make targets (make test runs every suite)",
	"make pack                                          # npm/zarr-wasm-0.1.0.tgz (builds the .wasm files first)":               "an install command",
	"go get github.com/zarr-wasm/zarr-wasm/zarr":                                                                                "an install command",
	"make demo    # build the .wasm files and the sample data, serve the viewer on 127.0.0.1":                                   "the viewer's make target (make test-demo drives it in Chromium)",
	"npx zarr-wasm info data.zarr                          # the hierarchy as a tree: shape, dtype, chunks, codecs, attributes": "the CLI (tests/node/cli.test.mjs runs it on every fixture)",
	"make bench                     # make bench-js, then the Go benchmarks of ./zarr/...":                                      "benchmark commands: they take minutes and print figures, not pass/fail",
	"zarr/          the engine (pure Go): open, create, read, write; arrays, groups, the chunk cache":                           "the repository's layout",
	"go test ./zarr/...                         # the engine":                                                                   "the test commands make test runs",
	"AWS_REGION=eu-west-1 zarr-wasm info s3://my-bucket/data.zarr":                                                              "the CLI on a bucket (tests/node/objstore-docs.test.mjs runs it against the fake S3 server)",
}

// elsewhere are documents whose blocks other tests run, with the data
// they need, by the reason.
var elsewhere = map[string]string{
	"docs/icechunk.md": "its blocks read repositories the official Icechunk package writes at test time: TestDocsIcechunk and tests/node/docs-icechunk.test.mjs run them",
}

// substitution replaces text of a block before it runs, for what the
// documents name but a test cannot have: a host on the network, an absolute
// directory. Each must match some block, so a stale entry fails.
type substitution struct{ old, new, why string }

func TestDocBlocks(t *testing.T) {
	root := peers.RepoRoot()
	files, err := DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	// Each block runs in work, a fresh copy of data, so no block sees
	// what another wrote; the server serves data itself.
	data, work := t.TempDir(), filepath.Join(t.TempDir(), "work")
	server := httptest.NewServer(http.FileServer(http.Dir(data)))
	defer server.Close()
	writeData(t, data)
	// A bucket (docs/object-stores.md): tests/s3's fake S3 server, holding
	// zarr-python's v2 fixture as data.zarr and requiring a signature.
	bucket := s3test.NewFake("my-bucket")
	if err := bucket.PutDir(filepath.Join(root, "tests", "fixtures", "v2", "data", "v2.zarr"), "data.zarr/"); err != nil {
		t.Fatal(err)
	}
	bucket.RequireAuth = true
	s3server := httptest.NewServer(bucket)
	defer s3server.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "docs-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "docs-secret")
	subs := []substitution{
		{`Region: "eu-west-1",`, fmt.Sprintf("Endpoint: %q,", s3server.URL), "the fake S3 server instead of AWS"},
		{"https://host/refs.json", server.URL + "/refs.json", "a local server instead of a host on the network"},
		{"https://host/data.zarr/", server.URL + "/data.zarr/", "a local server instead of a host on the network"},
		{"file:///data/", "file://" + filepath.ToSlash(work) + "/", "the block's directory instead of /data"},
	}
	used := map[string]bool{}
	seen := map[string]bool{}
	var fragments, programs []Block
	for _, file := range files {
		if elsewhere[file] != "" {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range Blocks(file, string(text)) {
			first := strings.SplitN(b.Code, "\n", 2)[0]
			switch b.Lang {
			case "go":
				for _, s := range subs {
					if strings.Contains(b.Code, s.old) {
						b.Code = strings.ReplaceAll(b.Code, s.old, s.new)
						used[s.old] = true
					}
				}
				if strings.HasPrefix(b.Code, "package main\n") {
					programs = append(programs, b)
				} else {
					fragments = append(fragments, b)
				}
			case "js", "ts":
				// tests/node/readme.test.mjs
			case "json":
				// A document, not a program: it must at least be JSON.
				if !json.Valid([]byte(b.Code)) {
					t.Errorf("%s: the json block is not valid JSON", b.Where())
				}
			default:
				if _, ok := notRun[first]; !ok {
					t.Errorf("%s: a %q block that is neither run nor listed as not a program: %q", b.Where(), b.Lang, first)
				}
				seen[first] = true
			}
		}
	}
	if len(fragments)+len(programs) < 8 {
		t.Errorf("only %d Go blocks found in %v", len(fragments)+len(programs), files)
	}
	for _, s := range subs {
		if !used[s.old] {
			t.Errorf("substitution %q (%s) matches no block", s.old, s.why)
		}
	}
	for first, why := range notRun {
		if !seen[first] {
			t.Errorf("notRun lists %q (%s), which starts no block", first, why)
		}
	}

	// The fragments are one program (one build): each block a function,
	// run by name in a process of its own.
	bin := buildFragments(t, root, fragments)
	for _, b := range fragments {
		t.Run(b.Where(), func(t *testing.T) { run(t, data, work, b, bin, funcName(b)) })
	}
	for _, b := range programs {
		t.Run(b.Where(), func(t *testing.T) { run(t, data, work, b, buildProgram(t, root, b), "") })
	}
}

// writeData writes what the Go blocks open: data.zarr with a 3-d
// weather/temperature array (and data.zarr.zip, the same zipped), and
// refs.json, a reference set (v1) with a temperature array.
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
	zipDir(t, filepath.Join(dir, "data.zarr"), filepath.Join(dir, "data.zarr.zip"))
}

// zipDir zips the files under dir "from within" (entries named relative to
// dir), as zarr-python's ZipStore writes a store.
func zipDir(t *testing.T, dir, out string) {
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		e, err := w.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = e.Write(data)
		return err
	})
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

var nonWord = regexp.MustCompile(`\W+`)

// funcName is the function a fragment becomes: block_docs_go_md_12.
func funcName(b Block) string {
	return "block_" + nonWord.ReplaceAllString(b.File, "_") + "_" + fmt.Sprint(b.Line)
}

var importLine = regexp.MustCompile(`(?s)^\s*import\s+(\([^)]*\)|"[^"]*")\s*\n`)

// fragmentFile turns a block into a file of package main holding one
// function (its imports kept, ctx given), with every error it assigns
// checked and every name it declares used.
func fragmentFile(t *testing.T, b Block) []byte {
	code := b.Code
	var imports []string
	if m := importLine.FindStringSubmatch(code); m != nil {
		for _, l := range strings.Split(strings.Trim(m[1], "()"), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				imports = append(imports, l)
			}
		}
		// Blank lines keep the block's lines where they were.
		code = strings.Repeat("\n", strings.Count(m[0], "\n")) + code[len(m[0]):]
	}
	have := strings.Join(imports, "\n")
	imports = append(imports, `"context"`, `"log"`)
	if strings.Contains(code, "zarr.") && !strings.Contains(have, `"github.com/zarr-wasm/zarr-wasm/zarr"`) {
		imports = append(imports, `"github.com/zarr-wasm/zarr-wasm/zarr"`)
	}
	name := funcName(b)
	// The block's first line follows the function's first line.
	src := "package main\n\nimport (\n" + strings.Join(imports, "\n") + "\n)\n\nvar _ = log.Fatalf\n\nfunc " + name + "(ctx context.Context) {\n" + code + "}\n"
	offset := 8 + len(imports) // lines of src before the block's first line
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name+".go", src, 0)
	if err != nil {
		t.Fatalf("%s does not parse as a function body: %v\n%s", b.Where(), err, src)
	}
	var body *ast.BlockStmt
	for _, d := range file.Decls {
		if f, ok := d.(*ast.FuncDecl); ok && f.Name.Name == name {
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
				at := fset.Position(st.Pos()).Line - offset + b.Line - 1
				check, _ := parser.ParseExpr(fmt.Sprintf(`func() { if err != nil { log.Fatalf("%s:%d: %%v", err) } }`, b.File, at))
				stmts = append(stmts, check.(*ast.FuncLit).Body.List[0])
			}
		}
	}
	for _, n := range order {
		stmts = append(stmts, &ast.AssignStmt{Lhs: []ast.Expr{ast.NewIdent("_")}, Tok: token.ASSIGN, Rhs: []ast.Expr{ast.NewIdent(n)}})
	}
	body.List = stmts
	var out bytes.Buffer
	if err := printer.Fprint(&out, fset, file); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// buildFragments compiles every fragment into one binary whose first
// argument names the function to run.
func buildFragments(t *testing.T, root string, blocks []Block) string {
	work := t.TempDir()
	var cases strings.Builder
	for _, b := range blocks {
		name := funcName(b)
		if err := os.WriteFile(filepath.Join(work, name+".go"), fragmentFile(t, b), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&cases, "\tcase %q:\n\t\t%s(ctx)\n", name, name)
	}
	main := "package main\n\nimport (\n\"context\"\n\"log\"\n\"os\"\n)\n\nfunc main() {\n\tctx := context.Background()\n\tswitch os.Args[1] {\n" +
		cases.String() + "\tdefault:\n\t\tlog.Fatalf(\"no block %s\", os.Args[1])\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(work, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	return build(t, root, work, "the Go blocks (each file of "+work+" is one block, named after its document and line)")
}

// buildProgram compiles a block that is a whole program (package main).
func buildProgram(t *testing.T, root string, b Block) string {
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "main.go"), []byte(b.Code), 0o644); err != nil {
		t.Fatal(err)
	}
	return build(t, root, work, b.Where())
}

func build(t *testing.T, root, dir, what string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	bin := filepath.Join(dir, "blocks")
	cmd := exec.Command("go", append([]string{"build", "-o", bin}, files...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s do(es) not compile: %v\n%s", what, err, out)
	}
	return bin
}

// run runs a block's binary in work, made a fresh copy of data first.
func run(t *testing.T, data, work string, b Block, bin, arg string) {
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(work, os.DirFS(data)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	if arg != "" {
		cmd.Args = append(cmd.Args, arg)
	}
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", b.Where(), err, out)
	}
}
