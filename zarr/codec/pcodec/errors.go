package pcodec

import "github.com/zarr-wasm/zarr-wasm/internal/fmtx"

// FormatError reports data that is not valid pco, or pco this package cannot
// read (a future format version, a number type other than the one asked for).
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return "pcodec: " + e.Msg }

func corrupt(format string, args ...any) error {
	return &FormatError{Msg: fmtx.Sprintf(format, args...)}
}
