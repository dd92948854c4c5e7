package parquet

import (
	"bytes"
	"compress/gzip"
	"io"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

var zstdDec struct {
	once sync.Once
	d    *zstd.Decoder
	err  error
}

func zstdDecoder() (*zstd.Decoder, error) {
	zstdDec.once.Do(func() {
		zstdDec.d, zstdDec.err = zstd.NewReader(nil,
			zstd.WithDecodeAllCapLimit(true), // never grow beyond the declared size
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecoderMaxMemory(1<<31))
	})
	return zstdDec.d, zstdDec.err
}

// decompress expands a page body to exactly size bytes (at most limit).
func decompress(codec int32, b []byte, size, limit int) ([]byte, error) {
	if size < 0 || size > limit {
		return nil, corrupt("page of %d bytes (at most %d are read)", size, limit)
	}
	var out []byte
	switch codec {
	case codecNone:
		out = b
	case codecSnappy:
		n, err := snappy.DecodedLen(b)
		if err != nil {
			return nil, corrupt("snappy: %v", err)
		}
		if n != size {
			return nil, corrupt("snappy page decodes to %d bytes, the header says %d", n, size)
		}
		if out, err = snappy.Decode(make([]byte, n), b); err != nil {
			return nil, corrupt("snappy: %v", err)
		}
	case codecGzip:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, corrupt("gzip: %v", err)
		}
		out = make([]byte, size+1)
		n, err := io.ReadFull(zr, out)
		if err != io.ErrUnexpectedEOF && err != io.EOF && err != nil {
			return nil, corrupt("gzip: %v", err)
		}
		out = out[:n]
	case codecZstd:
		d, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		dst := make([]byte, 0, size)
		out, err = d.DecodeAll(b, dst)
		if err != nil {
			return nil, corrupt("zstd: %v", err)
		}
	default:
		return nil, unsupported("%s compression is not supported", codecName(codec))
	}
	if len(out) != size {
		return nil, corrupt("%s page decodes to %d bytes, the header says %d", codecName(codec), len(out), size)
	}
	return out, nil
}
