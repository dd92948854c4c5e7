package blosc

import (
	"sync"
	"sync/atomic"
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

// Encoders. Each returns the compressed size written to dst (which has room
// for exactly what would still pay off), or 0 if the stream should be
// stored raw.

type encState struct {
	blz blosclzEncoder
	lz4 lz4Encoder
	buf []byte // scratch output for codecs that append
	z   zlibEncoder
}

var encStates = sync.Pool{New: func() any { return new(encState) }}

func (e *encState) encodeStream(cname string, clevel int, dst, src []byte) int {
	switch cname {
	case "blosclz":
		return e.blz.compress(dst, src, clevel)
	case "lz4", "lz4hc", "snappy", "zlib", "zstd":
		return e.encodeOther(cname, clevel, dst, src)
	}
	return 0
}

func copyIfFits(dst, out []byte) int {
	if len(out) == 0 || len(out) > len(dst) {
		return 0
	}
	return copy(dst, out)
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
