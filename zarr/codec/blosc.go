package codec

import (
	"errors"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/blosc"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// bloscCodec is the v3 "blosc" codec over package blosc: shuffle by name,
// typesize explicit (package meta rewrites numcodecs' settings into this
// form; without typesize the input's element size is used).
type bloscCodec struct{ opt blosc.Options }

func init() { Register(newBlosc, "blosc") }

type bloscConfig struct {
	Cname     *string `json:"cname"`
	Clevel    *int    `json:"clevel"`
	Shuffle   *string `json:"shuffle"`
	Typesize  *int    `json:"typesize"`
	Blocksize int     `json:"blocksize"`
}

func (c *bloscConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("cname", &c.Cname), jsonx.F("clevel", &c.Clevel), jsonx.F("shuffle", &c.Shuffle),
		jsonx.F("typesize", &c.Typesize), jsonx.F("blocksize", &c.Blocksize)}
}

func newBlosc(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c bloscConfig
	if err := ParseConfig(cfg, &c); err != nil {
		return nil, err
	}
	opt := blosc.Options{Cname: "lz4", Clevel: 5, Shuffle: 1, Blocksize: c.Blocksize}
	if c.Cname != nil {
		opt.Cname = *c.Cname
	}
	switch opt.Cname {
	case "blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd":
	default:
		return nil, fmtx.Errorf("unknown cname %q (blosclz, lz4, lz4hc, snappy, zlib, zstd)", opt.Cname)
	}
	if c.Clevel != nil {
		opt.Clevel = *c.Clevel
	}
	if opt.Clevel < 0 || opt.Clevel > 9 {
		return nil, fmtx.Errorf("clevel %d is not in 0..9", opt.Clevel)
	}
	if c.Shuffle != nil {
		switch *c.Shuffle {
		case "noshuffle":
			opt.Shuffle = 0
		case "shuffle":
			opt.Shuffle = 1
		case "bitshuffle":
			opt.Shuffle = 2
		default:
			return nil, fmtx.Errorf("shuffle %q is not noshuffle, shuffle or bitshuffle", *c.Shuffle)
		}
	}
	opt.Typesize = 1
	if in.DType != nil && in.DType.Size > 0 {
		opt.Typesize = in.DType.Size
	}
	if c.Typesize != nil {
		if *c.Typesize < 1 {
			return nil, fmtx.Errorf("typesize %d must be positive", *c.Typesize)
		}
		opt.Typesize = *c.Typesize
	}
	if opt.Blocksize < 0 {
		return nil, fmtx.Errorf("blocksize %d must not be negative", opt.Blocksize)
	}
	return &bloscCodec{opt: opt}, nil
}

// Options are the settings chunks are written with (decoding follows each
// chunk's header).
func (c *bloscCodec) Options() blosc.Options { return c.opt }

func (c *bloscCodec) Encode(b []byte) ([]byte, error) {
	out, err := blosc.Encode(b, c.opt)
	if err != nil {
		return nil, errs.Wrap(errs.Codec, "blosc", err, "encode failed")
	}
	return out, nil
}

func (c *bloscCodec) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

// DecodeLimit refuses a chunk whose header declares more than max bytes
// (the chain passes the chunk's known size) before allocating anything.
func (c *bloscCodec) DecodeLimit(b []byte, max int) ([]byte, error) {
	n, err := blosc.DecodedSize(b)
	if err != nil {
		code := errs.Codec
		if errors.Is(err, blosc.ErrUnsupported) {
			code = errs.Unsupported
		}
		return nil, errs.Wrap(code, "blosc", err, "cannot decode")
	}
	if limit := effectiveLimit(max); n > limit {
		return nil, Corrupt("blosc", "the chunk declares %d decoded bytes, more than the %d expected", n, limit)
	}
	out, err := blosc.Decode(make([]byte, 0, n), b)
	if err != nil {
		code := errs.Codec
		if errors.Is(err, blosc.ErrUnsupported) {
			code = errs.Unsupported
		}
		return nil, errs.Wrap(code, "blosc", err, "cannot decode")
	}
	return out, nil
}
