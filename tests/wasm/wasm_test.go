// Package wasm_test runs the engine under WebAssembly without Node: it
// builds tests/wasm/runner for GOOS=wasip1 GOARCH=wasm and runs it with
// wazero over the project's fixtures (v2 written by zarr-python, v3 from
// the spec), each case reported as a subtest.
package wasm_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
)

// The module is built once per test run, in a temporary directory.
var (
	buildOnce sync.Once
	buildDir  string
	wasmPath  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func build(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "zarr-wasm-wasip1-")
		if buildErr != nil {
			return
		}
		wasmPath = filepath.Join(buildDir, "runner.wasm")
		cmd := exec.Command("go", "build", "-trimpath", "-o", wasmPath, "./tests/wasm/runner")
		cmd.Dir = peers.RepoRoot()
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New("go build (wasip1): " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return wasmPath
}

// run executes the runner module with the repository's tests/ mounted
// read-only at /tests.
func run(t *testing.T, args ...string) (stdout string, exit uint32) {
	t.Helper()
	bin, err := os.ReadFile(build(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(buildDir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	compiled, err := r.CompileModule(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cfg := wazero.NewModuleConfig().
		WithArgs(append([]string{"runner"}, args...)...).
		WithFSConfig(wazero.NewFSConfig().WithReadOnlyDirMount(filepath.Join(peers.RepoRoot(), "tests"), "/tests")).
		WithStdout(&out).WithStderr(&errb).
		WithSysWalltime().WithSysNanotime().WithRandSource(rand.Reader)
	_, err = r.InstantiateModule(ctx, compiled, cfg)
	var ee *sys.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	default:
		t.Fatalf("running the module: %v\nstderr: %s", err, errb.String())
	}
	if exit > 1 {
		t.Fatalf("runner exited %d\nstderr: %s\nstdout: %s", exit, errb.String(), out.String())
	}
	return out.String(), exit
}

// TestFixturesUnderWASI checks every fixture case inside WebAssembly.
func TestFixturesUnderWASI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a wasip1 module")
	}
	sets := []string{}
	for _, v := range []string{"v2", "v3"} {
		if _, err := os.Stat(filepath.Join(peers.RepoRoot(), "tests", "fixtures", v, "cases.json")); err == nil {
			sets = append(sets, "/tests/fixtures/"+v+"/data", "/tests/fixtures/"+v+"/cases.json")
		}
	}
	if len(sets) == 0 {
		t.Fatal("no fixtures")
	}
	// The same NaN exception as the native fixture test (zarr/fixtures_test.go).
	args := append([]string{"-anynan", "fill/c8_nan_inf"}, sets...)
	out, exit := run(t, args...)
	sc := bufio.NewScanner(strings.NewReader(out))
	n := 0
	summary := ""
	for sc.Scan() {
		line := sc.Text()
		status, rest, _ := strings.Cut(line, " ")
		name, reason, _ := strings.Cut(rest, ": ")
		switch status {
		case "ok", "skip", "FAIL":
			n++
			t.Run(name, func(t *testing.T) {
				switch status {
				case "skip":
					t.Skip(reason)
				case "FAIL":
					t.Error(reason)
				}
			})
		default:
			summary = line
		}
	}
	t.Logf("under wazero: %s", summary)
	if n < 400 {
		t.Errorf("only %d cases ran", n)
	}
	if exit != 0 && !t.Failed() {
		t.Errorf("runner exit status %d: %s", exit, summary)
	}
}

// TestJSModuleIsLean: the GOOS=js module must not link net/http (HTTP is
// done in JS, by FetchStore); it would add about 1.7 MB.
func TestJSModuleIsLean(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./wasm")
	cmd.Dir = peers.RepoRoot()
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "net/http" || pkg == "net" || pkg == "os/exec" {
			t.Errorf("the js/wasm module links %s", pkg)
		}
	}
}
