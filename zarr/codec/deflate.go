package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// DEFLATE expands at most 1032:1 (a 258-byte match in under 2 bits).
const deflateMaxRatio = 1032

// zlibCodec is numcodecs "zlib": the zlib wrapper (RFC 1950) around DEFLATE.
// Decoding also accepts gzip and raw DEFLATE, which some writers put under
// this name.
type zlibCodec struct{ level int }

// gzipCodec is numcodecs "gzip" and the v3 "gzip" codec: the gzip container
// (RFC 1952); decoding reads every member.
type gzipCodec struct{ level int }

func init() {
	Register(newZlib, "numcodecs.zlib")
	Register(newGzip, "gzip")
}

func deflateLevel(cfg jsonx.RawMessage) (int, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return 0, err
	}
	level, err := intOption(m["level"], "level", 1)
	if err != nil {
		return 0, err
	}
	if level < -1 || level > 9 {
		return 0, fmtx.Errorf("level must be between 0 and 9 (or -1 for the default), got %d", level)
	}
	return level, nil
}

func newZlib(cfg jsonx.RawMessage, _ Spec) (any, error) {
	level, err := deflateLevel(cfg)
	if err != nil {
		return nil, err
	}
	return &zlibCodec{level: level}, nil
}

func newGzip(cfg jsonx.RawMessage, _ Spec) (any, error) {
	level, err := deflateLevel(cfg)
	if err != nil {
		return nil, err
	}
	return &gzipCodec{level: level}, nil
}

func (c *zlibCodec) Encode(b []byte) ([]byte, error) {
	if out, ok := hostEncode("zlib", c.level, false, b); ok {
		return out, nil
	}
	return deflateZlib(b, c.level)
}

func (c *zlibCodec) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

func (c *zlibCodec) DecodeLimit(b []byte, max int) ([]byte, error) {
	limit := ratioLimit(effectiveLimit(max), len(b), deflateMaxRatio, 1024)
	if out, ok := hostDecode("zlib", b, max, limit); ok {
		return out, nil
	}
	var out []byte
	var err error
	switch {
	case isZlibHeader(b):
		out, err = inflateZlib(b, limit)
	case len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b:
		out, err = gunzip(b, limit)
	default:
		out, err = inflateRaw(b, limit)
	}
	if err != nil {
		return nil, decodeFailed("zlib", len(b), err)
	}
	return out, nil
}

// isZlibHeader reports whether b starts with a valid RFC 1950 header
// (method 8, window ≤ 32 KiB, check bits).
func isZlibHeader(b []byte) bool {
	return len(b) >= 2 && b[0]&0x0f == 8 && b[0]>>4 <= 7 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0
}

func (c *gzipCodec) Encode(b []byte) ([]byte, error) {
	if out, ok := hostEncode("gzip", c.level, false, b); ok {
		return out, nil
	}
	return deflateGzip(b, c.level)
}

func (c *gzipCodec) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

func (c *gzipCodec) DecodeLimit(b []byte, max int) ([]byte, error) {
	limit := ratioLimit(effectiveLimit(max), len(b), deflateMaxRatio, 1024)
	if out, ok := hostDecode("gzip", b, max, limit); ok {
		return out, nil
	}
	out, err := gunzip(b, limit)
	if err != nil {
		return nil, decodeFailed("gzip", len(b), err)
	}
	return out, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
