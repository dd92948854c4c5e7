//go:build !zarrcore

package codec

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Encoders and the decoder are expensive to create; EncodeAll and DecodeAll
// are safe for concurrent use, so one of each is shared.
var (
	zstdEncoders sync.Map // zstdKey → *zstd.Encoder
	zstdDecOnce  sync.Once
	zstdDec      *zstd.Decoder
	zstdDecErr   error
)

type zstdKey struct {
	level    zstd.EncoderLevel
	checksum bool
}

func zstdEncoder(level int, checksum bool) (*zstd.Encoder, error) {
	if level == 0 {
		level = 3 // the zstd library default
	}
	key := zstdKey{zstd.EncoderLevelFromZstd(level), checksum}
	if e, ok := zstdEncoders.Load(key); ok {
		return e.(*zstd.Encoder), nil
	}
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(key.level),
		zstd.WithEncoderCRC(checksum),
		zstd.WithEncoderConcurrency(1),
		// numcodecs before 0.13 needs the content size in every frame;
		// without a single segment the library omits it for small inputs.
		zstd.WithSingleSegment(true),
		// An empty chunk still becomes a frame: numcodecs cannot read an
		// empty buffer.
		zstd.WithZeroFrames(true))
	if err != nil {
		return nil, err
	}
	actual, _ := zstdEncoders.LoadOrStore(key, e)
	return actual.(*zstd.Encoder), nil
}

func zstdDecoder() (*zstd.Decoder, error) {
	zstdDecOnce.Do(func() {
		zstdDec, zstdDecErr = zstd.NewReader(nil,
			zstd.WithDecoderMaxMemory(maxDecodedSize),
			// a single-segment frame's window is its content size, so a
			// chunk as large as metadata allows needs a window that large
			// (DecodeAll decodes into the output; nothing else is kept)
			zstd.WithDecoderMaxWindow(maxDecodedSize),
			zstd.WithDecoderConcurrency(0))
	})
	return zstdDec, zstdDecErr
}

func zstdCompress(b []byte, level int, checksum bool) ([]byte, error) {
	e, err := zstdEncoder(level, checksum)
	if err != nil {
		return nil, err
	}
	return e.EncodeAll(b, make([]byte, 0, len(b)/2+64)), nil
}

// zstdDecompress decodes every frame of b (its size already checked).
func zstdDecompress(b []byte) ([]byte, error) {
	d, err := zstdDecoder()
	if err != nil {
		return nil, err
	}
	out, err := d.DecodeAll(b, nil)
	if err != nil {
		return nil, Corrupt("zstd", "cannot decompress %d bytes: %v", len(b), err)
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}
