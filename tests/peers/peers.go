// Package peers finds the reference implementations tests compare against
// (Debian's zarr-python, numcodecs, python-blosc). Where one is missing a
// test skips, except under CI (ZARR_WASM_REQUIRE_PEERS=1), where a missing
// peer fails the test: a check that silently did not run proves nothing.
package peers

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Python is Debian's interpreter, which has the python3-* packages.
const Python = "/usr/bin/python3"

// Required reports whether missing peers must fail tests.
func Required() bool { return os.Getenv("ZARR_WASM_REQUIRE_PEERS") == "1" }

// Unavailable skips the test, or fails it when peers are required.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// RequirePython returns the interpreter after checking it can import every
// module.
func RequirePython(t testing.TB, modules ...string) string {
	t.Helper()
	code := "import " + strings.Join(modules, ", ")
	out, err := exec.Command(Python, "-c", code).CombinedOutput()
	if err != nil {
		Unavailable(t, "%s cannot import %s (apt-get install python3-zarr python3-numcodecs python3-blosc): %v\n%s",
			Python, strings.Join(modules, ", "), err, out)
	}
	return Python
}

// RepoRoot returns the repository root (the directory holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// TestData returns tests/testdata: data other projects wrote (zarrita.js's
// fixture stores, c-blosc's compatibility chunks), copied into the
// repository with their licences (tests/testdata/README.md).
func TestData() string {
	return filepath.Join(RepoRoot(), "tests", "testdata")
}
