package readme

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	s3test "github.com/zarr-wasm/zarr-wasm/tests/s3"
)

// TestObjectStoreDoc runs the Go blocks of docs/object-stores.md
// (tests/node/objstore-docs.test.mjs runs the others) against tests/s3's
// fake S3 server, which holds zarr-python's v2 fixture as data.zarr in
// my-bucket and requires a signature.
func TestObjectStoreDoc(t *testing.T) {
	root := peers.RepoRoot()
	const doc = "docs/object-stores.md"
	text, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	f := s3test.NewFake("my-bucket")
	if err := f.PutDir(filepath.Join(root, "tests", "fixtures", "v2", "data", "v2.zarr"), "data.zarr/"); err != nil {
		t.Fatal(err)
	}
	f.RequireAuth = true
	server := httptest.NewServer(f)
	defer server.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "docs-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "docs-secret")
	subs := []substitution{{`Region: "eu-west-1",`, fmt.Sprintf("Endpoint: %q,", server.URL), "the fake S3 server instead of AWS"}}
	used := map[string]bool{}
	n := 0
	for _, b := range Blocks(string(text)) {
		if b.Lang != "go" {
			continue
		}
		n++
		code := b.Code
		for _, s := range subs {
			if strings.Contains(code, s.old) {
				code = strings.ReplaceAll(code, s.old, s.new)
				used[s.old] = true
			}
		}
		t.Run(fmt.Sprintf("%s:%d", doc, b.Line), func(t *testing.T) { runGo(t, root, t.TempDir(), doc, b.Line, code) })
	}
	if n == 0 {
		t.Error("no Go block")
	}
	for _, s := range subs {
		if !used[s.old] {
			t.Errorf("substitution %q (%s) matches no block", s.old, s.why)
		}
	}
}
