//go:build !wasm

package budget

// Natively only the configured limit applies.
const (
	platformMemory = 0
	platformMargin = 0
)
