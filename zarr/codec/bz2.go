//go:build !zarrcore

package codec

import (
	"bytes"
	"io"

	"github.com/dsnet/compress/bzip2"
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// bz2Codec is numcodecs "bz2": a bzip2 stream (decoding reads concatenated
// streams, as Python's bz2.decompress does).
type bz2Codec struct{ level int }

func init() { Register(newBZ2, "numcodecs.bz2") }

func newBZ2(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	level, err := intOption(m["level"], "level", 1)
	if err != nil {
		return nil, err
	}
	if level < 1 || level > 9 {
		return nil, fmtx.Errorf("level must be between 1 and 9, got %d", level)
	}
	return &bz2Codec{level: level}, nil
}

func (c *bz2Codec) Encode(b []byte) ([]byte, error) {
	return compressAll(b, func(w io.Writer) (io.WriteCloser, error) {
		return bzip2.NewWriter(w, &bzip2.WriterConfig{Level: c.level})
	})
}

func (c *bz2Codec) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

func (c *bz2Codec) DecodeLimit(b []byte, max int) (out []byte, err error) {
	defer func() {
		// The bzip2 package reports corrupt input by panicking internally
		// and recovering; guard against any panic that escapes.
		if r := recover(); r != nil {
			out, err = nil, Corrupt("bz2", "cannot decompress %d bytes: %v", len(b), r)
		}
	}()
	if len(b) == 0 {
		return nil, Corrupt("bz2", "empty input")
	}
	r, err := bzip2.NewReader(bytes.NewReader(b), nil)
	if err != nil {
		return nil, Corrupt("bz2", "cannot decompress %d bytes: %v", len(b), err)
	}
	out, err = readAllLimit(r, effectiveLimit(max))
	if err != nil {
		return nil, Corrupt("bz2", "cannot decompress %d bytes: %v", len(b), err)
	}
	return out, nil
}
