//go:build wasm

package budget

import "runtime/debug"

// WebAssembly's linear memory is 32-bit: Go's heap cannot pass 4 GiB
// (measured in Node 20: a 256 MiB allocation fails with 3.75 GiB in use).
// The margin is for the runtime's own structures and for the allocations
// too small to be checked.
const (
	platformMemory = 4 << 30
	platformMargin = 320 << 20
)

func init() {
	// Collect before the heap reaches memory's end, rather than growing
	// into a fatal "out of memory".
	if debug.SetMemoryLimit(-1) > platformMemory-platformMargin {
		debug.SetMemoryLimit(platformMemory - platformMargin)
	}
	// With that limit in place the heap may grow further between
	// collections than Go's default: the collector runs on the one
	// thread the engine has, and large metadata documents are millions
	// of small objects (measured in Node: 10^6 references parse with 1.3–1.6 s
	// of CPU instead of 2.4 s).
	debug.SetGCPercent(300)
}
