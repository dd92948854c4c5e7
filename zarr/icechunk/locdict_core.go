//go:build zarrcore

package icechunk

import "github.com/zarr-wasm/zarr-wasm/zarr/errs"

// dictDecoder: the core build has no zstd decoder of its own; the host's
// libzstd decodes with the dictionary (HostZstdDict, which the WebAssembly
// bridge sets).
func dictDecoder(dict []byte, max int) (func([]byte) ([]byte, error), error) {
	if HostZstdDict == nil {
		return nil, &errs.Error{Code: errs.Unsupported, Where: "zstd", Msg: "locations compressed with a dictionary", Err: errs.OtherBuild}
	}
	return func(b []byte) ([]byte, error) {
		out, ok := HostZstdDict(dict, b, max)
		if !ok {
			return nil, errs.New(errs.Codec, "zstd", "the host's zstd decoder declined a location compressed with the manifest's dictionary")
		}
		return out, nil
	}, nil
}
