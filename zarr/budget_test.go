package zarr_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
)

// The memory budget's triggers (issue: hostile and oversized input): each
// fails with a TOO_LARGE error naming the size and the limit, quickly and
// without allocating what it asks for, and a normal read works afterwards.
// The npm package's tests/node/memory.test.mjs runs the same triggers in
// WebAssembly, where the budget is what 4 GiB of memory has left.

// checkTooLarge checks err and that the heap did not grow by anything like
// the request.
func checkTooLarge(t *testing.T, what string, err error, heapBefore uint64) {
	t.Helper()
	if errs.CodeOf(err) != errs.TooLarge || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("%s: %v, want TOO_LARGE naming the size", what, err)
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > heapBefore+256<<20 {
		t.Errorf("%s: the heap grew by %d MiB before the refusal", what, (m.HeapAlloc-heapBefore)>>20)
	}
	t.Logf("%s: %v", what, err)
}

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// normalRead proves the engine still works: a small array written and read.
func normalRead(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	a, err := zarr.CreateArray(ctx, s, "ok", zarr.ArrayOptions{Shape: []int{10}, Chunks: []int{5}, DType: "int32"})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := zarr.NDArrayFromBytes(a.DType(), []int{1}, []byte{7, 0, 0, 0})
	sel, _ := zarr.ParseSelection("3")
	if err := a.Write(ctx, sel, v); err != nil {
		t.Fatal(err)
	}
	got, err := a.Read(ctx, sel)
	if err != nil || got.Bytes()[0] != 7 {
		t.Fatalf("a normal read after the refusal: %v", err)
	}
}

func TestBudgetSelection(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	// 12 GiB of float64, no chunk stored: reading it all would allocate 12 GiB
	a, err := zarr.CreateArray(ctx, s, "big", zarr.ArrayOptions{Shape: []int{1 << 15, 1 << 14, 3}, Chunks: []int{1024, 1024, 3}, DType: "float64"})
	if err != nil {
		t.Fatal(err)
	}
	h := heap()
	start := time.Now()
	_, err = a.Read(ctx, nil)
	checkTooLarge(t, "12 GiB selection (default limit 4 GiB)", err, h)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the refusal took %v", d)
	}
	// a configured limit applies to anything over it
	defer zarr.SetMemoryLimit(zarr.SetMemoryLimit(64 << 20))
	sel, _ := zarr.ParseSelection("0:4096, 0:4096")
	_, err = a.Read(ctx, sel)
	checkTooLarge(t, "384 MiB selection, 64 MiB limit", err, h)
	if !strings.Contains(err.Error(), "384.0 MiB") || !strings.Contains(err.Error(), "64.0 MiB") {
		t.Errorf("the message names neither the size nor the limit: %v", err)
	}
	normalRead(t)
}

func TestBudgetWriteIntoHugeChunk(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	// one chunk of 2 GiB - 1 bytes (the largest metadata allows)
	a, err := zarr.CreateArray(ctx, s, "big", zarr.ArrayOptions{Shape: []int{1<<31 - 1}, Chunks: []int{1<<31 - 1}, DType: "uint8", ZarrFormat: 2})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := zarr.NDArrayFromBytes(a.DType(), []int{1}, []byte{1})
	sel, _ := zarr.ParseSelection("5")
	h := heap()
	start := time.Now()
	err = a.Write(ctx, sel, v)
	checkTooLarge(t, "a one-element write into a 2 GiB chunk", err, h)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the refusal took %v", d)
	}
	normalRead(t)
}

func TestBudgetWriteIntoHugeShard(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	// one shard of 2^26 one-byte inner chunks: its index alone is 1 GiB
	a, err := zarr.CreateArray(ctx, s, "sharded", zarr.ArrayOptions{Shape: []int{1 << 26}, Chunks: []int{1}, ShardShape: []int{1 << 26}, DType: "uint8"})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := zarr.NDArrayFromBytes(a.DType(), []int{1}, []byte{1})
	sel, _ := zarr.ParseSelection("5")
	h := heap()
	start := time.Now()
	err = a.Write(ctx, sel, v)
	checkTooLarge(t, "a one-element write into a shard of 2^26 inner chunks", err, h)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the refusal took %v (it took 32 s before the budget)", d)
	}
	normalRead(t)
}

func TestBudgetCompressedReferenceBomb(t *testing.T) {
	ctx := context.Background()
	defer zarr.SetMemoryLimit(zarr.SetMemoryLimit(96 << 20)) // text limit 32 MiB
	// gzip: 64 MiB of JSON from about 64 KB
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write([]byte(`{"version": 1, "refs": {"a": "`))
	zw.Write(make([]byte, 64<<20))
	zw.Write([]byte(`"}}`))
	zw.Close()
	h := heap()
	_, err := refs.FromJSON(ctx, gz.Bytes(), refs.Options{})
	checkTooLarge(t, "gzip reference file of 64 MiB", err, h)
	// zstd: frames claiming 16 GiB from a few hundred KB, refused from
	// their headers before anything is inflated
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	frame := enc.EncodeAll(make([]byte, 256<<20), nil)
	bomb := bytes.Repeat(frame, 64)
	frame = nil
	t.Logf("zstd bomb: %d bytes for 16 GiB", len(bomb))
	h = heap()
	start := time.Now()
	_, err = refs.FromJSON(ctx, bomb, refs.Options{})
	checkTooLarge(t, "zstd reference file of 16 GiB", err, h)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the refusal took %v", d)
	}
	zarr.SetMemoryLimit(0)
	_, err = refs.FromJSON(ctx, bomb, refs.Options{})
	checkTooLarge(t, "zstd reference file of 16 GiB, default limit", err, h)
	normalRead(t)
}
