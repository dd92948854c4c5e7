package codec

import (
	"sync/atomic"

	"github.com/zarr-wasm/zarr-wasm/zarr/blosc"
)

// Stream formats. A host may lend the engine its own implementations of
// them (HostCodecs): the npm package's libzstd and libdeflate, compiled to
// WebAssembly, run about three times as fast as the Go decoders compiled
// to WebAssembly, and the core WebAssembly build has no Go zstd or DEFLATE
// at all. Codecs whose stored bytes are one stream of such a format say so
// (Streamed), which is how a reader outside the engine (zarr/hostread)
// knows who can decode a chunk.

// Streamed is a bytes→bytes codec whose stored bytes are one stream of a
// format other libraries decode too: "zstd", "zlib" (zlib-wrapped DEFLATE;
// decoding also accepts gzip and raw DEFLATE), "gzip" or "blosc".
type Streamed interface {
	StreamFormat() string
}

func (c *zstdCodec) StreamFormat() string  { return "zstd" }
func (c *zlibCodec) StreamFormat() string  { return "zlib" }
func (c *gzipCodec) StreamFormat() string  { return "gzip" }
func (c *bloscCodec) StreamFormat() string { return "blosc" }

// HostCodecs are a host's implementations of the formats "zstd", "zlib"
// and "gzip". Each method may decline (ok false): the Go implementation then
// decodes (and reports what is wrong) or encodes.
type HostCodecs interface {
	// DecodeInto decodes src into dst, which has room for exactly the
	// decoded size the caller expects: the size written.
	DecodeInto(format string, dst, src []byte) (n int, ok bool)
	// Decode decodes src whose decoded size is not known, producing at
	// most limit bytes.
	Decode(format string, src []byte, limit int) (out []byte, ok bool)
	// Encode compresses src at level (zstd: with a checksum when asked).
	// The output need not match the Go encoder's byte for byte, only decode
	// to the same bytes everywhere.
	Encode(format string, level int, checksum bool, src []byte) (out []byte, ok bool)
}

type hostBox struct{ h HostCodecs }

var hostCodecs atomic.Pointer[hostBox]

// UseHostCodecs hands the engine a host's codecs (nil: Go's alone), for
// the zstd, zlib and gzip codecs and for Blosc's zstd and zlib streams.
func UseHostCodecs(h HostCodecs) {
	if h == nil {
		hostCodecs.Store(nil)
	} else {
		hostCodecs.Store(&hostBox{h})
	}
	for cname, format := range map[string]string{"zstd": "zstd", "zlib": "zlib"} {
		var f func(d, s []byte) bool
		if h != nil {
			f = func(d, s []byte) bool {
				n, ok := h.DecodeInto(format, d, s)
				return ok && n == len(d)
			}
		}
		_ = blosc.SetStreamDecoder(cname, f)
	}
}

func host() HostCodecs {
	if b := hostCodecs.Load(); b != nil {
		return b.h
	}
	return nil
}

// hostDecode decodes b of format with the host's codec: known is the
// decoded size when the chain knows it (the host then writes exactly
// that), else bound limits what it may produce. ok is false when there is
// no host codec or it declined.
func hostDecode(format string, b []byte, known, bound int) ([]byte, bool) {
	h := host()
	if h == nil || len(b) == 0 {
		return nil, false
	}
	if known > 0 {
		out := make([]byte, known)
		n, ok := h.DecodeInto(format, out, b)
		if !ok || n < 0 || n > known {
			return nil, false
		}
		return out[:n], true
	}
	if bound <= 0 {
		return nil, false
	}
	out, ok := h.Decode(format, b, bound)
	if !ok || len(out) > bound {
		return nil, false
	}
	return out, true
}

// hostEncode compresses b with the host's codec, if there is one.
func hostEncode(format string, level int, checksum bool, b []byte) ([]byte, bool) {
	h := host()
	if h == nil || len(b) == 0 {
		return nil, false
	}
	return h.Encode(format, level, checksum, b)
}
