//go:build zarrcore

package meta

import "github.com/zarr-wasm/zarr-wasm/zarr/errs"

// parseExtKeyEncoding: the registry's other chunk-key encodings (fanout,
// prefix, suffix, template) are read by the full build (keys_full.go).
func parseExtKeyEncoding(where, name string, _ keyConfig, _ int) (KeyEncoding, error) {
	return KeyEncoding{}, &errs.Error{Code: errs.Unsupported, Where: where, Msg: "the " + name + " chunk key encoding needs the full build of the engine", Err: errs.OtherBuild}
}
