// Package fuzzmem gives every fuzz input a memory limit. The engine's
// memory budget (zarr/budget) is lowered while a fuzz target runs, so the
// sizes hostile input claims are refused early, as they would be in a
// small WebAssembly heap; and an input whose allocations (as the runtime
// counts them) pass PerInput fails the target, whatever allocated them.
package fuzzmem

import (
	"runtime/metrics"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
)

const (
	// Budget is the engine's memory limit during fuzzing.
	Budget = 64 << 20
	// PerInput bounds what one input may allocate in all.
	PerInput = 1 << 30
)

// Limit lowers the engine's memory budget for the fuzz target f (restored
// when it ends).
func Limit(f *testing.F) {
	prev := budget.SetLimit(Budget)
	f.Cleanup(func() { budget.SetLimit(prev) })
}

// Input starts counting one input's allocations; call the function it
// returns (deferred) when the input is done.
func Input(t *testing.T) func() {
	before := allocated()
	return func() {
		if n := allocated() - before; n > PerInput {
			t.Fatalf("one input allocated %d MiB, over the %d MiB limit per input", n>>20, PerInput>>20)
		}
	}
}

var sample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

func allocated() uint64 {
	s := []metrics.Sample{sample[0]}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
