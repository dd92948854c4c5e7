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
}

// otherBuild is the error of a codec, or a step of one, this build lacks.
func otherBuild(name string) error {
	return &errs.Error{Code: errs.Unsupported, Where: name, Msg: "needs the full build of the engine", Err: errs.OtherBuild}
}

func inOtherBuild(name string) bool {
	_, here := registry[name]
	return !here && slices.Contains(fullOnly, name)
}

// HostCompressor is a compressor whose format a host library writes as
// well (the npm package's libzstd and zlib, compiled to WebAssembly): the
// format ("zstd", "zlib" or "gzip"), the level and whether frames carry a
// checksum. The output need not match the Go encoder's byte for byte, only
// decode to the same bytes everywhere.
type HostCompressor interface {
	HostEncoding() (format string, level int, checksum bool)
}

func (c *zstdCodec) HostEncoding() (string, int, bool) {
	level := c.level
	if level == 0 {
		level = 3 // the zstd library's default, as the Go encoder maps it
	}
	return "zstd", level, c.checksum
}

func (c *zlibCodec) HostEncoding() (string, int, bool) { return "zlib", c.level, false }

func (c *gzipCodec) HostEncoding() (string, int, bool) { return "gzip", c.level, false }

// HostDecodeLimit bounds what a host decoder may produce for a chunk of
// format ("zstd", "zlib", "gzip") whose decoded size the chain does not know:
// the frames' own bound for zstd, deflate's largest ratio otherwise, never
// beyond the engine's limit. 0 means the host should not try (the frames do
// not parse; the Go decoder reports why).
func HostDecodeLimit(format string, b []byte) int {
	limit := effectiveLimit(0)
	switch format {
	case "zstd":
		bound, err := zstdBound(b)
		if err != nil {
			return 0
		}
		return min(bound, limit)
	case "zlib", "gzip":
		return ratioLimit(limit, len(b), deflateMaxRatio, 1024)
	}
	return 0
}
