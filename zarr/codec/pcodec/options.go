package pcodec

import "github.com/zarr-wasm/zarr-wasm/internal/fmtx"

// DeltaSpec says which delta encoding the encoder may use.
type DeltaSpec int

// Delta specs, as numcodecs' and zarrs' delta_spec name them.
const (
	DeltaAuto        DeltaSpec = iota // try none, lookback and consecutive orders 1–7 on a sample
	DeltaNoOp                         // no delta encoding
	DeltaConsecutive                  // consecutive deltas of DeltaOrder (0 means none)
	DeltaLookback                     // lookback deltas
)

// Options steer encoding; decoding needs none.
type Options struct {
	Level      int  // 0–12: how hard to look for good bins
	Classic    bool // mode_spec "classic": numbers as they are, no int-mult/float-mult/float-quant
	Delta      DeltaSpec
	DeltaOrder int // for DeltaConsecutive
	MaxPageN   int // numbers per chunk of the file: equal chunks of at most this many
}

// DefaultOptions are numcodecs' and zarrs' defaults: level 8, automatic
// mode and delta encoding, chunks of up to 2^18 numbers.
func DefaultOptions() Options {
	return Options{Level: 8, Delta: DeltaAuto, MaxPageN: 1 << 18}
}

// Validate refuses options pco refuses.
func (o Options) Validate() error {
	switch {
	case o.Level < 0 || o.Level > 12:
		return fmtx.Errorf("level must be 0 to 12, got %d", o.Level)
	case o.MaxPageN < 1:
		return fmtx.Errorf("equal_pages_up_to must be at least 1, got %d", o.MaxPageN)
	case o.Delta == DeltaConsecutive && (o.DeltaOrder < 0 || o.DeltaOrder > maxConsecutiveOrder):
		return fmtx.Errorf("delta encoding order must be 0 to %d, got %d", maxConsecutiveOrder, o.DeltaOrder)
	}
	return nil
}
