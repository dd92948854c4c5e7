//go:build zarrcore

package icechunk

import "github.com/zarr-wasm/zarr-wasm/zarr/errs"

// dictDecoder: the core build has no zstd decoder of its own (the host's
// libzstd decodes chunks, without dictionaries), so manifests with
// compressed virtual chunk locations are read by the full build.
func dictDecoder([]byte, int) (func([]byte) ([]byte, error), error) {
	return nil, &errs.Error{Code: errs.Unsupported, Where: "zstd", Msg: "locations compressed with a dictionary", Err: errs.OtherBuild}
}
