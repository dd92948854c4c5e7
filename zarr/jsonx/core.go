//go:build zarrcore

package jsonx

import "github.com/zarr-wasm/zarr-wasm/internal/fmtx"

// The core WebAssembly build links no reflect: a target or value of a type
// fields.go does not take is an error there (the full build decodes and
// encodes it by reflection).

func (d *decoder) top(v any) error {
	return &InvalidTargetError{"Unmarshal into " + fmtx.TypeName(v) + ": not supported by the core build"}
}

func (d *decoder) other(p any) {
	d.skip()
	if d.err == nil {
		d.err = &InvalidTargetError{"Unmarshal into " + fmtx.TypeName(p) + ": not supported by the core build"}
	}
}

func (e *encoder) other(v any) error {
	return &EncodeError{"unsupported type in the core build: " + fmtx.TypeName(v)}
}
