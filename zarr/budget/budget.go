// Package budget bounds the memory the engine allocates for a request
// before it allocates it. Sizes that come from input (a selection, a chunk
// shape, a shard's inner chunk count, a decompressed document) are checked
// here first; a size over the budget is an errs.TooLarge error naming the
// size and the limit, and nothing is allocated, so the engine stays usable.
//
// The budget is the smaller of a configurable limit (SetLimit; 4 GiB unless
// set) and, in WebAssembly, what 32-bit linear memory can still give: 4 GiB
// minus what the Go heap already holds and a margin for the runtime. There
// the package also sets Go's soft memory limit, so the collector works
// harder before the heap outgrows memory instead of the runtime aborting.
package budget

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// DefaultLimit is the limit unless SetLimit changes it.
const DefaultLimit = 4 << 30

// small is the size below which Check does not look at the heap (the cost
// of reading runtime metrics is not worth it, and the margin covers it).
const small = 8 << 20

var limit atomic.Int64

func init() { limit.Store(DefaultLimit) }

// SetLimit sets the most one request may allocate (n <= 0 restores
// DefaultLimit) and returns the previous limit. In WebAssembly the memory
// left is checked as well, whatever the limit.
func SetLimit(n int64) int64 {
	if n <= 0 {
		n = DefaultLimit
	}
	return limit.Swap(n)
}

// Limit returns the configured limit.
func Limit() int64 { return limit.Load() }

// Available returns how many bytes a request may allocate now: the limit,
// or in WebAssembly what memory has left if that is less.
func Available() int64 {
	a := limit.Load()
	if platformMemory > 0 {
		a = min(a, platformAvailable())
	}
	return max(a, 0)
}

var gcMu sync.Mutex

// Check returns nil when n more bytes may be allocated for what (a key,
// path or field), else a TOO_LARGE error naming n and the budget. In
// WebAssembly a request that would not fit makes the collector run once
// first (garbage counts as used until then).
func Check(what string, n int64) error {
	if n <= 0 {
		return nil
	}
	lim := limit.Load()
	if n > lim {
		return tooLarge(what, n, lim, "the memory limit")
	}
	if platformMemory == 0 || n < small {
		return nil
	}
	if n <= platformAvailable() {
		return nil
	}
	gcMu.Lock()
	if n > platformAvailable() {
		runtime.GC()
	}
	gcMu.Unlock()
	if avail := platformAvailable(); n > avail {
		return tooLarge(what, n, max(avail, 0), fmtx.Sprintf("what WebAssembly's 4 GiB memory has left (%s in use)", Size(inUse())))
	}
	return nil
}

// Bytes allocates n bytes after checking them.
func Bytes(what string, n int) ([]byte, error) {
	if err := Check(what, int64(n)); err != nil {
		return nil, err
	}
	return make([]byte, n), nil
}

func tooLarge(what string, n, avail int64, which string) error {
	return errs.New(errs.TooLarge, what, "needs %s (%d bytes), more than the %s (%d bytes) left by %s", Size(n), n, Size(avail), avail, which)
}

// Size formats a byte count for messages ("3.5 GiB").
func Size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmtx.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmtx.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmtx.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmtx.Sprintf("%d bytes", n)
}

// Mul returns a*b, or a value over every limit when it overflows.
func Mul(a, b int64) int64 {
	if a < 0 || b < 0 {
		return 1 << 62
	}
	if a != 0 && b > (1<<62)/a {
		return 1 << 62
	}
	return a * b
}

var samples = []metrics.Sample{
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
}
var samplesMu sync.Mutex

// inUse is the memory the Go runtime holds and cannot give to a new
// allocation: everything mapped except free heap pages.
func inUse() int64 {
	samplesMu.Lock()
	defer samplesMu.Unlock()
	metrics.Read(samples)
	total := int64(samples[0].Value.Uint64())
	free := int64(samples[1].Value.Uint64() + samples[2].Value.Uint64())
	return total - free
}

// platformAvailable is what linear memory can still give (WebAssembly).
func platformAvailable() int64 {
	return platformMemory - platformMargin - inUse()
}
