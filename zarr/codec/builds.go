package codec

import (
	"slices"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// The engine builds two ways. The default build has every codec. The core
// build (build tag zarrcore: the WebAssembly module the npm package loads
// first, for reading) leaves out the codecs in fullOnly and the Go zstd and
// DEFLATE implementations, whose work the package's libzstd and zlib do;
// what it cannot do fails with errs.OtherBuild, and the package then opens
// the array again in the full build.

// fullOnly are the codecs the core build leaves out.
var fullOnly = []string{
	"numcodecs.bz2", "numcodecs.lzma", "numcodecs.pcodec", "numcodecs.zfpy", "zfp",
	"imagecodecs_lzw", "imagecodecs_packbits", "imagecodecs_delta", "imagecodecs_floatpred",
	"reshape", "zarrs.squeeze", "zarrs.gdeflate", "zarrs.vlen", "zarrs.vlen_v2", "n5_default", "jpeg",
	"cast_value", "scale_offset", "pad", "singleton_dim", "conditional", "optional",
}

// otherBuild is the error of a codec, or a step of one, this build lacks.
func otherBuild(name string) error {
	return &errs.Error{Code: errs.Unsupported, Where: name, Msg: "needs the full build of the engine", Err: errs.OtherBuild}
}

func inOtherBuild(name string) bool {
	_, here := registry[name]
	return !here && slices.Contains(fullOnly, name)
}
