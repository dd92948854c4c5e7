package zarr_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
)

// TestZfpyWritesReadByZarrPython writes ZFP arrays in every mode numcodecs
// exposes, for float32/64 and int32/64 in 1 to 4 dimensions, and has
// zarr-python 2.13 with Debian's zfpy check them
// (tests/fixtures/zfpy/check_go_writes.py): it must read the values zfpy's
// own round trip gives, and every chunk must equal zfpy's byte for byte.
func TestZfpyWritesReadByZarrPython(t *testing.T) {
	py := peers.RequirePython(t, "zarr", "numcodecs.zfpy", "zfpy")
	ctx := context.Background()
	root := t.TempDir()
	store, err := zarr.NewDirectoryStore(root)
	if err != nil {
		t.Fatal(err)
	}
	shapes := map[int][2][]int{
		1: {{45}, {20}},
		2: {{13, 10}, {8, 7}},
		3: {{9, 6, 5}, {5, 4, 5}},
		4: {{5, 6, 3, 7}, {4, 5, 3, 4}},
	}
	modes := map[string]map[string]any{
		"rate":       {"id": "zfpy", "mode": 2, "rate": 11.5},
		"precision":  {"id": "zfpy", "mode": 3, "precision": 17},
		"accuracy":   {"id": "zfpy", "mode": 4, "tolerance": 0.05},
		"reversible": {"id": "zfpy", "mode": 4, "tolerance": -1},
	}
	rng := rand.New(rand.NewSource(7))
	n := 0
	for _, dt := range []string{"<f4", "<f8", "<i4", "<i8"} {
		for dims := 1; dims <= 4; dims++ {
			shape, chunks := shapes[dims][0], shapes[dims][1]
			for mode, cfg := range modes {
				name := fmt.Sprintf("%s_%dd_%s", dt[1:], dims, mode)
				values := zfpTestValues(rng, dt, shape)
				for _, target := range []string{name, name + "_input"} {
					opt := zarr.ArrayOptions{ZarrFormat: 2, Shape: shape, Chunks: chunks, DType: dt, Compressor: cfg}
					if target != name {
						opt.Compressor, opt.NoCompressor = nil, true
					}
					arr, err := zarr.CreateArray(ctx, store, target, opt)
					if err != nil {
						t.Fatalf("%s: %v", target, err)
					}
					arr.WriteEmptyChunks = true
					if err := arr.Write(ctx, zarr.Selection{}, values); err != nil {
						t.Fatalf("%s: %v", target, err)
					}
				}
				n++
			}
		}
	}
	script := filepath.Join(peers.RepoRoot(), "tests", "fixtures", "zfpy", "check_go_writes.py")
	out, err := exec.Command(py, script, root).CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "FAIL") || strings.Contains(line, "Traceback") {
			t.Error(line)
		}
	}
	if err != nil {
		t.Fatalf("check_go_writes.py: %v\n%s", err, lastLines(string(out), 5))
	}
	summary := lastLines(string(out), 1)
	if summary != fmt.Sprintf("%d passed, 0 failed", n) {
		t.Fatalf("zarr-python checked %q, want %d arrays", summary, n)
	}
	t.Logf("zarr-python: %s", summary)
}

// zfpTestValues is a smooth field with noise and a zero corner, so that
// every block kind occurs.
func zfpTestValues(rng *rand.Rand, dt string, shape []int) *zarr.NDArray {
	n := 1
	for _, d := range shape {
		n *= d
	}
	size := map[string]int{"<f4": 4, "<f8": 8, "<i4": 4, "<i8": 8}[dt]
	data := make([]byte, n*size)
	for i := 0; i < n; i++ {
		v := math.Sin(float64(i)/7)*50 + rng.NormFloat64()
		if i < 3 {
			v = 0
		}
		switch dt {
		case "<f4":
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(v)))
		case "<f8":
			binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(v*1e3))
		case "<i4":
			binary.LittleEndian.PutUint32(data[4*i:], uint32(int32(v*1e5)))
		case "<i8":
			binary.LittleEndian.PutUint64(data[8*i:], uint64(int64(v*1e12)))
		}
	}
	t, err := dtype.ParseTypestr(dt)
	if err != nil {
		panic(err)
	}
	a, err := zarr.NDArrayFromBytes(t, shape, data)
	if err != nil {
		panic(err)
	}
	return a
}
