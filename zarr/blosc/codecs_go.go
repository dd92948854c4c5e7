//go:build !zarrcore

package blosc

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

type zlibReader struct {
	br bytes.Reader
	zr io.ReadCloser
}

var zlibReaders sync.Pool

func zlibDecode(d, s []byte) error {
	r, _ := zlibReaders.Get().(*zlibReader)
	if r == nil {
		r = new(zlibReader)
	}
	defer zlibReaders.Put(r)
	r.br.Reset(s)
	if r.zr == nil {
		zr, err := zlib.NewReader(&r.br)
		if err != nil {
			return err
		}
		r.zr = zr
	} else if err := r.zr.(zlib.Resetter).Reset(&r.br, nil); err != nil {
		return err
	}
	if _, err := io.ReadFull(r.zr, d); err != nil {
		return fmtx.Errorf("zlib: %w", err)
	}
	// The stream must end here (this also checks the Adler-32).
	var one [1]byte
	if n, err := r.zr.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("more data than expected")
		}
		return fmtx.Errorf("zlib: %w", err)
	}
	return nil
}

var zstdDec struct {
	once sync.Once
	d    *zstd.Decoder
	err  error
}

func zstdDecoder() (*zstd.Decoder, error) {
	zstdDec.once.Do(func() {
		zstdDec.d, zstdDec.err = zstd.NewReader(nil,
			zstd.WithDecodeAllCapLimit(true), // never write beyond cap(dst)
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecoderMaxMemory(maxBlocksize+1),
		)
	})
	return zstdDec.d, zstdDec.err
}

func zstdDecode(d, s []byte) error {
	dec, err := zstdDecoder()
	if err != nil {
		return err
	}
	out, err := dec.DecodeAll(s, d[:0:len(d)])
	if err != nil {
		return fmtx.Errorf("zstd: %w", err)
	}
	if len(out) != len(d) || (len(out) > 0 && &out[0] != &d[0]) {
		return fmtx.Errorf("zstd stream decodes to %d bytes, want %d", len(out), len(d))
	}
	return nil
}

// zlibEncoder is an encoder's zlib writer and output, kept for its next stream.
type zlibEncoder struct {
	buf   bytes.Buffer
	w     *zlib.Writer
	level int
}

// lz4Encoder is an encoder's LZ4 compressors, kept for its next stream.
type lz4Encoder struct {
	fast lz4.Compressor
	hc   lz4.CompressorHC
}

var lz4Levels = [...]lz4.CompressionLevel{
	lz4.Level1, lz4.Level1, lz4.Level2, lz4.Level3, lz4.Level4,
	lz4.Level5, lz4.Level6, lz4.Level7, lz4.Level8, lz4.Level9,
}

func (e *encState) encodeOther(cname string, clevel int, dst, src []byte) int {
	switch cname {
	case "lz4":
		n, err := e.lz4.fast.CompressBlock(src, dst)
		if err != nil {
			return 0
		}
		return n
	case "lz4hc":
		e.lz4.hc.Level = lz4Levels[clevel]
		n, err := e.lz4.hc.CompressBlock(src, dst)
		if err != nil {
			return 0
		}
		return n
	case "snappy":
		need := snappy.MaxEncodedLen(len(src))
		if need < 0 {
			return 0
		}
		if cap(e.buf) < need {
			e.buf = make([]byte, need)
		}
		out := snappy.Encode(e.buf[:need], src)
		return copyIfFits(dst, out)
	case "zlib":
		e.z.buf.Reset()
		if e.z.w == nil || e.z.level != clevel {
			zw, err := zlib.NewWriterLevel(&e.z.buf, clevel)
			if err != nil {
				return 0
			}
			e.z.w, e.z.level = zw, clevel
		} else {
			e.z.w.Reset(&e.z.buf)
		}
		if _, err := e.z.w.Write(src); err != nil {
			return 0
		}
		if err := e.z.w.Close(); err != nil {
			return 0
		}
		return copyIfFits(dst, e.z.buf.Bytes())
	case "zstd":
		enc, err := zstdEncoder(clevel)
		if err != nil {
			return 0
		}
		e.buf = enc.EncodeAll(src, e.buf[:0])
		return copyIfFits(dst, e.buf)
	}
	return 0
}

var zstdEncs struct {
	mu   sync.Mutex
	encs [10]*zstd.Encoder
}

// zstdEncoder returns a shared encoder for a blosc clevel (1..9). c-blosc
// maps clevel c to zstd level 2c-1, and 9 to the maximum level.
func zstdEncoder(clevel int) (*zstd.Encoder, error) {
	zstdEncs.mu.Lock()
	defer zstdEncs.mu.Unlock()
	if e := zstdEncs.encs[clevel]; e != nil {
		return e, nil
	}
	level := 2*clevel - 1
	if clevel >= 9 {
		level = 22
	}
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithEncoderConcurrency(min(runtime.GOMAXPROCS(0), 4)),
		zstd.WithEncoderCRC(false),
	)
	if err != nil {
		return nil, err
	}
	zstdEncs.encs[clevel] = e
	return e, nil
}
