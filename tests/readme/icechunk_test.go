package readme

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
)

// TestDocsIcechunk runs docs/icechunk.md's Go blocks (its JavaScript blocks
// run in tests/node/docs-icechunk.test.mjs) against the repository the
// official Icechunk package writes for it (tests/icechunk/gen.mjs,
// "weather"), served on 127.0.0.1.
func TestDocsIcechunk(t *testing.T) {
	root := peers.RepoRoot()
	text, err := os.ReadFile(filepath.Join(root, "docs", "icechunk.md"))
	if err != nil {
		t.Fatal(err)
	}
	ic := filepath.Join(root, "tests", "icechunk")
	if _, err := os.Stat(filepath.Join(ic, "node_modules", "@earthmover", "icechunk-wasm32-wasi")); err != nil {
		peers.Unavailable(t, "the official Icechunk package is not installed (cd tests/icechunk && npm ci)")
	}
	out, err := exec.Command("node", filepath.Join(ic, "fixtures.mjs")).Output()
	if err != nil {
		t.Fatalf("tests/icechunk/fixtures.mjs: %v", err)
	}
	repos := filepath.Join(strings.TrimSpace(string(out)), "repos")
	server := httptest.NewServer(http.FileServer(http.Dir(repos)))
	defer server.Close()
	subs := []substitution{{"https://data.example.com/weather.icechunk", server.URL + "/weather", "a local server instead of a host on the network"}}
	used := map[string]bool{}
	var fragments []Block
	for _, b := range Blocks("docs/icechunk.md", string(text)) {
		if b.Lang != "go" {
			continue
		}
		for _, s := range subs {
			if strings.Contains(b.Code, s.old) {
				b.Code = strings.ReplaceAll(b.Code, s.old, s.new)
				used[s.old] = true
			}
		}
		fragments = append(fragments, b)
	}
	if len(fragments) == 0 {
		t.Fatal("no Go block in docs/icechunk.md")
	}
	for _, s := range subs {
		if !used[s.old] {
			t.Errorf("substitution %q (%s) matches no block", s.old, s.why)
		}
	}
	if elsewhere["docs/icechunk.md"] == "" {
		t.Error("TestDocBlocks runs docs/icechunk.md too")
	}
	bin := buildFragments(t, root, fragments)
	data, work := t.TempDir(), filepath.Join(t.TempDir(), "work")
	for _, b := range fragments {
		t.Run(b.Where(), func(t *testing.T) { run(t, data, work, b, bin, funcName(b)) })
	}
}
