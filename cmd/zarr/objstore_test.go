package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	s3test "github.com/zarr-wasm/zarr-wasm/tests/s3"
)

// s3:// locations, with the AWS CLI's environment: a bucket answering 403
// for missing keys, listed, signed.
func TestObjectStoreLocation(t *testing.T) {
	f := s3test.NewFake("bucket")
	if err := f.PutDir(filepath.Join(peers.RepoRoot(), "tests", "fixtures", "v3", "data", "v3.zarr"), "v3.zarr/"); err != nil {
		t.Fatal(err)
	}
	f.RequireAuth = true
	srv := httptest.NewServer(f)
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "id")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"info", "s3://bucket/v3.zarr"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "v3.zarr") || strings.Count(out.String(), "\n") < 5 {
		t.Errorf("info printed:\n%s", out.String())
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	errOut.Reset()
	if code := run(context.Background(), []string{"info", "s3://bucket/v3.zarr"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "ACCESS_DENIED") {
		t.Errorf("anonymous: exit %d, %s", code, errOut.String())
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"info", "s4://bucket/v3.zarr"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), `did you mean "s3"`) {
		t.Errorf("s4://: exit %d, %s", code, errOut.String())
	}
}
