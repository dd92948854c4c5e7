package blosc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// streamDecoders are the host's decoders by compressor code (see
// SetStreamDecoder).
var streamDecoders atomic.Pointer[map[int]func(d, s []byte) bool]

// SetStreamDecoder lets a host decode the streams of compressor cname
// itself (the WebAssembly build hands zstd to libzstd compiled to
// WebAssembly). f decodes s into d, filling it exactly, and returns false to
// leave the stream to Go, which then decodes or reports it; nil removes it.
func SetStreamDecoder(cname string, f func(d, s []byte) bool) error {
	code := -1
	for c, n := range codeNames {
		if n == cname {
			code = c
		}
	}
	if code < 0 {
		return unsupported("compressor %q", cname)
	}
	m := map[int]func(d, s []byte) bool{}
	if old := streamDecoders.Load(); old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	if f == nil {
		delete(m, code)
	} else {
		m[code] = f
	}
	streamDecoders.Store(&m)
	return nil
}

// decodeStream decodes one compressed stream into d, which it must fill
// exactly.
func decodeStream(code int, d, s []byte) error {
	if m := streamDecoders.Load(); m != nil {
		if f := (*m)[code]; f != nil && f(d, s) {
			return nil
		}
	}
	switch code {
	case codeBlosclz:
		return blosclzDecode(d, s)
	case codeLZ4:
		return lz4DecodeBlock(d, s)
	case codeSnappy:
		return snappyDecode(d, s)
	case codeZlib:
		return zlibDecode(d, s)
	case codeZstd:
		return zstdDecode(d, s)
	}
	return unsupported("compressor code %d", code)
}

func snappyDecode(d, s []byte) error {
	n, err := snappy.DecodedLen(s)
	if err != nil {
		return err
	}
	if n != len(d) {
		return fmt.Errorf("snappy stream decodes to %d bytes, want %d", n, len(d))
	}
	out, err := snappy.Decode(d, s)
	if err != nil {
		return err
	}
	if len(out) != len(d) || (len(out) > 0 && &out[0] != &d[0]) {
		return errors.New("snappy output size mismatch")
	}
	return nil
}

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
		return fmt.Errorf("zlib: %w", err)
	}
	// The stream must end here (this also checks the Adler-32).
	var one [1]byte
	if n, err := r.zr.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("more data than expected")
		}
		return fmt.Errorf("zlib: %w", err)
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
		return fmt.Errorf("zstd: %w", err)
	}
	if len(out) != len(d) || (len(out) > 0 && &out[0] != &d[0]) {
		return fmt.Errorf("zstd stream decodes to %d bytes, want %d", len(out), len(d))
	}
	return nil
}

// Encoders. Each returns the compressed size written to dst (which has room
// for exactly what would still pay off), or 0 if the stream should be
// stored raw.

type encState struct {
	blz  blosclzEncoder
	lz4  lz4.Compressor
	lz4h lz4.CompressorHC
	buf  []byte       // scratch output for codecs that append
	zbuf bytes.Buffer // zlib output
	zw   *zlib.Writer
	zlvl int
}

var encStates = sync.Pool{New: func() any { return new(encState) }}

var lz4Levels = [...]lz4.CompressionLevel{
	lz4.Level1, lz4.Level1, lz4.Level2, lz4.Level3, lz4.Level4,
	lz4.Level5, lz4.Level6, lz4.Level7, lz4.Level8, lz4.Level9,
}

func (e *encState) encodeStream(cname string, clevel int, dst, src []byte) int {
	switch cname {
	case "blosclz":
		return e.blz.compress(dst, src, clevel)
	case "lz4":
		n, err := e.lz4.CompressBlock(src, dst)
		if err != nil {
			return 0
		}
		return n
	case "lz4hc":
		e.lz4h.Level = lz4Levels[clevel]
		n, err := e.lz4h.CompressBlock(src, dst)
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
		e.zbuf.Reset()
		if e.zw == nil || e.zlvl != clevel {
			zw, err := zlib.NewWriterLevel(&e.zbuf, clevel)
			if err != nil {
				return 0
			}
			e.zw, e.zlvl = zw, clevel
		} else {
			e.zw.Reset(&e.zbuf)
		}
		if _, err := e.zw.Write(src); err != nil {
			return 0
		}
		if err := e.zw.Close(); err != nil {
			return 0
		}
		return copyIfFits(dst, e.zbuf.Bytes())
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

func copyIfFits(dst, out []byte) int {
	if len(out) == 0 || len(out) > len(dst) {
		return 0
	}
	return copy(dst, out)
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

// Scratch buffers for decoding shuffled blocks.
type scratchBufs struct {
	a, b []byte
}

var scratchPool sync.Pool

func getScratch(n int, needB bool) *scratchBufs {
	s, _ := scratchPool.Get().(*scratchBufs)
	if s == nil {
		s = new(scratchBufs)
	}
	if cap(s.a) < n {
		s.a = make([]byte, n)
	}
	s.a = s.a[:n]
	if needB && cap(s.b) < n {
		s.b = make([]byte, n)
	}
	return s
}

func putScratch(s *scratchBufs) {
	// Do not keep very large buffers alive in the pool.
	if cap(s.a) > 16<<20 || cap(s.b) > 16<<20 {
		return
	}
	scratchPool.Put(s)
}
