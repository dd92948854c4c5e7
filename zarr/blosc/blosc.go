// Package blosc reads and writes Blosc chunks in the c-blosc 1.x format
// (chunk format version 2, "Blosc1"), in pure Go.
//
// Zarr v2 and v3 arrays written by zarr-python/numcodecs use c-blosc 1.x as
// their default compressor. zarr-wasm runs in the browser as
// GOOS=js GOARCH=wasm, where cgo and libblosc are not available, so this
// package implements the format itself: the 16-byte header, blocks, split
// streams, byte shuffle and bitshuffle, and the codecs (its own blosclz,
// LZ4 and snappy decoders and blosclz compressor; lz4/lz4hc compression,
// snappy compression, zlib and zstd via github.com/pierrec/lz4/v4 and
// github.com/klauspost/compress). The core WebAssembly build (build tag
// zarrcore), which only reads, leaves zlib and zstd streams to the host's
// decoders (SetStreamDecoder).
//
// Decoding follows the rules of the c-blosc 1.21 decoder and reads every
// chunk c-blosc 1.x writes. Encoding produces chunks c-blosc decodes, with
// c-blosc's choices of block size, split mode and header flags. Blosc2 chunks
// (format versions 3 to 5, with a well-formed header) are rejected with
// ErrUnsupported; anything else that is not Blosc1 is ErrCorrupt.
//
// Decode is safe on hostile input: a corrupt chunk yields an error wrapping
// ErrCorrupt, never a panic or an out-of-bounds access. Before anything is
// allocated, the block index and every stream header are checked against
// the chunk's size, and each stream against the most its codec can expand
// that many bytes to (raw 1x, snappy 22x, blosclz and lz4 256x, zlib 1032x,
// zstd 32768x, which are the formats' own limits). So the output a header
// claims, which is all Decode allocates besides one block of scratch, is
// bounded by what the streams could really produce.
//
// Large chunks (>= 1 MiB, several blocks) are decoded on up to GOMAXPROCS
// goroutines (at most 8), as c-blosc uses threads; under wasm GOMAXPROCS
// is 1 and decoding stays on the calling goroutine.
package blosc

import (
	"errors"
	"runtime"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// Options are the Blosc compressor settings, as numcodecs' Blosc takes them.
type Options struct {
	Cname     string // "blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"
	Clevel    int    // 0..9
	Shuffle   int    // -1 auto (bitshuffle if Typesize==1 else byte shuffle), 0 none, 1 byte, 2 bit
	Typesize  int    // element size in bytes; >255 is written as 1 like c-blosc does
	Blocksize int    // 0 = automatic (c-blosc's compute_blocksize rules)
}

// ErrUnsupported is returned (wrapped) for well-formed Blosc2 chunks
// (versions 3 to 5), and by Encode for options it does not know. A header
// that is not a valid Blosc1 or Blosc2 one is ErrCorrupt.
var ErrUnsupported = errors.New("blosc: unsupported")

// ErrCorrupt is wrapped by every error about a malformed chunk.
var ErrCorrupt = errors.New("blosc: corrupt chunk")

func corrupt(format string, args ...any) error {
	return fmtx.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func unsupported(format string, args ...any) error {
	return fmtx.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}

// Format constants (c-blosc 1.x).
const (
	headerSize    = 16
	formatVersion = 2
	versionLZ     = 1
	minBuffer     = 128 // MIN_BUFFERSIZE: smaller inputs are stored raw
	maxSplits     = 16  // MAX_SPLITS: larger typesizes are never split
	maxTypesize   = 255
	// maxBlocksize is BLOSC_MAX_BLOCKSIZE.
	maxBlocksize = (1<<31 - 1 - maxTypesize*4) / 3
	// maxNbytes is the largest input c-blosc accepts (BLOSC_MAX_BUFFERSIZE).
	maxNbytes = 1<<31 - 1 - headerSize

	flagShuffle    = 0x01
	flagMemcpyed   = 0x02
	flagBitshuffle = 0x04
	flagReserved   = 0x08
	flagDontSplit  = 0x10
)

// Compressor format codes (flags bits 5..7).
const (
	codeBlosclz = 0
	codeLZ4     = 1 // lz4 and lz4hc
	codeSnappy  = 2
	codeZlib    = 3
	codeZstd    = 4
)

var codeNames = [...]string{"blosclz", "lz4", "snappy", "zlib", "zstd"}

type header struct {
	flags     byte
	typesize  int
	nbytes    int
	blocksize int
	cbytes    int
}

func (h *header) memcpyed() bool { return h.flags&flagMemcpyed != 0 }
func (h *header) code() int      { return int(h.flags >> 5) }

// parseHeader validates the 16-byte header against len(src).
func parseHeader(src []byte) (header, error) {
	var h header
	if len(src) < headerSize {
		return h, corrupt("chunk is %d bytes, shorter than the 16-byte header", len(src))
	}
	version := src[0]
	if version >= 3 {
		// Only a header Blosc2 could have written is "unsupported"; any
		// other first byte is a corrupt chunk (a CODEC error, not a
		// format this package merely lacks).
		if err := checkBlosc2Header(src); err != nil {
			return h, err
		}
		return h, unsupported("Blosc2 chunk (format version %d); only Blosc1 (version 2) chunks are supported", version)
	}
	if version == 0 {
		return h, corrupt("format version 0")
	}
	h.flags = src[2]
	h.typesize = int(src[3])
	nbytes := int32(le.Uint32(src[4:]))
	blocksize := int32(le.Uint32(src[8:]))
	cbytes := int32(le.Uint32(src[12:]))
	if h.typesize == 0 {
		return h, corrupt("typesize 0")
	}
	if nbytes < 0 || blocksize < 0 || cbytes < 0 {
		return h, corrupt("negative size in header (nbytes %d, blocksize %d, cbytes %d)", nbytes, blocksize, cbytes)
	}
	h.nbytes, h.blocksize, h.cbytes = int(nbytes), int(blocksize), int(cbytes)
	if h.cbytes < headerSize {
		return h, corrupt("cbytes %d smaller than the header", h.cbytes)
	}
	if h.cbytes > len(src) {
		return h, corrupt("chunk truncated: header says %d bytes, have %d", h.cbytes, len(src))
	}
	if h.flags&flagReserved != 0 {
		return h, corrupt("reserved flag bit 3 set (flags 0x%02x)", h.flags)
	}
	if h.nbytes == 0 {
		return h, nil
	}
	if h.memcpyed() {
		if h.nbytes > h.cbytes-headerSize {
			return h, corrupt("memcpyed chunk: nbytes %d but only %d payload bytes", h.nbytes, h.cbytes-headerSize)
		}
		return h, nil
	}
	if h.code() >= len(codeNames) {
		// codes 5-7 are reserved or Blosc2-only: no Blosc1 writer uses them
		return h, corrupt("compressor code %d in a Blosc1 chunk", h.code())
	}
	if h.blocksize == 0 || h.blocksize > maxBlocksize {
		return h, corrupt("blocksize %d", h.blocksize)
	}
	return h, nil
}

// Blosc2 header facts (c-blosc2's README_CHUNK_FORMAT): format versions
// 3 (alpha), 4 (beta) and 5 (stable); flags bits 0 and 2 both set mean
// the 32-byte extended header; compressor code 5 is reserved.
const (
	blosc2MaxVersion     = 5
	blosc2ExtendedHeader = 32
)

// checkBlosc2Header reports a corrupt chunk unless src starts with a
// header a Blosc2 writer could have produced.
func checkBlosc2Header(src []byte) error {
	version, flags := src[0], src[2]
	if version > blosc2MaxVersion {
		return corrupt("format version %d (Blosc1 is 2, Blosc2 3 to %d)", version, blosc2MaxVersion)
	}
	hlen := headerSize
	if flags&(flagShuffle|flagBitshuffle) == flagShuffle|flagBitshuffle {
		hlen = blosc2ExtendedHeader
	}
	if len(src) < hlen {
		return corrupt("Blosc2 chunk of %d bytes, shorter than its %d-byte header", len(src), hlen)
	}
	nbytes := int32(le.Uint32(src[4:]))
	blocksize := int32(le.Uint32(src[8:]))
	cbytes := int32(le.Uint32(src[12:]))
	switch {
	case src[3] == 0:
		return corrupt("typesize 0")
	case nbytes < 0 || blocksize < 0 || cbytes < 0:
		return corrupt("negative size in header (nbytes %d, blocksize %d, cbytes %d)", nbytes, blocksize, cbytes)
	case int(cbytes) < hlen || int(cbytes) > len(src):
		return corrupt("Blosc2 header says %d bytes, the chunk has %d (header %d)", cbytes, len(src), hlen)
	case flags>>5 == 5:
		return corrupt("reserved compressor code 5")
	}
	return nil
}

// layout describes the block structure of a non-memcpyed chunk.
type layout struct {
	nblocks  int
	leftover int // size of the short last block, 0 if none
}

func (h *header) layout() layout {
	l := layout{nblocks: h.nbytes / h.blocksize, leftover: h.nbytes % h.blocksize}
	if l.leftover > 0 {
		l.nblocks++
	}
	return l
}

// blockGeom returns the size of block j, its number of streams and the
// size of each stream, following the c-blosc 1.x decoder's rule: a block is
// split into typesize streams iff the dont-split flag is clear, typesize <= 16,
// blocksize/typesize >= 128 and it is not the short last block.
func (h *header) blockGeom(l layout, j int) (bsize, nsplits, neblock int) {
	bsize = h.blocksize
	last := j == l.nblocks-1 && l.leftover > 0
	if last {
		bsize = l.leftover
	}
	nsplits = 1
	if h.flags&flagDontSplit == 0 && h.typesize <= maxSplits && h.blocksize/h.typesize >= minBuffer && !last {
		nsplits = h.typesize
	}
	return bsize, nsplits, bsize / nsplits
}

// maxExpansion is an upper bound on what a stream of csize bytes can decode
// to with the given codec (raw streams are handled separately).
func maxExpansion(code, csize int) int {
	switch code {
	case codeBlosclz, codeLZ4:
		// at most 255 output bytes per input byte plus a short tail
		return 256*csize + 64
	case codeSnappy:
		// the longest copy (64 bytes) takes 3 bytes
		return 22*csize + 64
	case codeZlib:
		// deflate: 258 bytes per 2 bits at best
		return 1032*csize + 1024
	case codeZstd:
		// a zstd block (<= 128 KiB output) takes at least 4 bytes
		return 32768*csize + 131072
	}
	return 0
}

// walk validates the block index and every stream header of a
// non-memcpyed chunk, without decoding anything. After it succeeds, every
// stream lies inside src[:cbytes] and could plausibly produce its size.
func (h *header) walk(src []byte) error {
	l := h.layout()
	code := h.code()
	bstartsEnd := headerSize + 4*l.nblocks
	if l.nblocks > (h.cbytes-headerSize)/4 || bstartsEnd > h.cbytes {
		return corrupt("%d blocks do not fit in %d bytes", l.nblocks, h.cbytes)
	}
	for j := 0; j < l.nblocks; j++ {
		bsize, nsplits, neblock := h.blockGeom(l, j)
		if nsplits > 1 && bsize%nsplits != 0 {
			return corrupt("block %d: size %d not a multiple of %d streams", j, bsize, nsplits)
		}
		off := int(le.Uint32(src[headerSize+4*j:]))
		if off < bstartsEnd || off > h.cbytes {
			return corrupt("block %d starts at %d, outside [%d, %d]", j, off, bstartsEnd, h.cbytes)
		}
		for k := 0; k < nsplits; k++ {
			if h.cbytes-off < 4 {
				return corrupt("block %d stream %d: header beyond end", j, k)
			}
			csize := int(int32(le.Uint32(src[off:])))
			off += 4
			if csize <= 0 || csize > h.cbytes-off {
				return corrupt("block %d stream %d: csize %d (room %d)", j, k, csize, h.cbytes-off)
			}
			if csize != neblock && neblock > maxExpansion(code, csize) {
				return corrupt("block %d stream %d: %d bytes cannot decode to %d with %s", j, k, csize, neblock, codeNames[code])
			}
			off += csize
		}
	}
	return nil
}

// DecodedSize returns the uncompressed size recorded in a chunk's header,
// after validating the header and the chunk's block and stream index (so
// the size can be trusted for allocation). It does not decode the streams.
func DecodedSize(src []byte) (int, error) {
	h, err := parseHeader(src)
	if err != nil {
		return 0, err
	}
	if h.nbytes > 0 && !h.memcpyed() {
		if err := h.walk(src); err != nil {
			return 0, err
		}
	}
	return h.nbytes, nil
}

// Decode decodes the chunk src. If cap(dst) is at least the decoded size,
// the output is written to dst[:n] and that slice is returned; otherwise a
// new slice is allocated. dst must not overlap src. Bytes after the chunk's
// cbytes are ignored. On error the contents of dst[:cap(dst)] are
// unspecified.
//
// Format versions 1 and 2 are accepted (c-blosc 1.x writes 2); versionlz is
// not checked.
func Decode(dst, src []byte) ([]byte, error) {
	h, err := parseHeader(src)
	if err != nil {
		return nil, err
	}
	if h.nbytes == 0 {
		return dst[:0], nil
	}
	if h.memcpyed() {
		out := sized(dst, h.nbytes)
		copy(out, src[headerSize:headerSize+h.nbytes])
		return out, nil
	}
	if err := h.walk(src); err != nil {
		return nil, err
	}
	out := sized(dst, h.nbytes)
	if err := h.decodeBlocks(out, src[:h.cbytes]); err != nil {
		return nil, err
	}
	return out, nil
}

func sized(dst []byte, n int) []byte {
	if cap(dst) >= n {
		return dst[:n]
	}
	return make([]byte, n)
}

// shuffleMode is what a block needs after its streams are decoded.
type shuffleMode int

const (
	noShuffle shuffleMode = iota
	byteShuffle
	bitShuffle
)

func (h *header) decodeShuffle() shuffleMode {
	if h.flags&flagShuffle != 0 && h.typesize > 1 {
		return byteShuffle
	}
	if h.flags&flagBitshuffle != 0 {
		return bitShuffle
	}
	return noShuffle
}

// Parallel decoding (native builds with GOMAXPROCS > 1 only; under wasm
// GOMAXPROCS is 1): chunks of at least parallelMinBytes with several blocks
// are decoded by up to maxWorkers goroutines, one block at a time, like
// c-blosc's threads. decodeWorkers overrides the worker count (tests and
// benchmarks; 0 = automatic).
const (
	parallelMinBytes = 1 << 20
	maxWorkers       = 8
)

var decodeWorkers = 0

func (h *header) workers(l layout) int {
	w := decodeWorkers
	if w <= 0 {
		if h.nbytes < parallelMinBytes {
			return 1
		}
		w = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	return max(1, min(w, l.nblocks))
}

// decodeBlocks decodes all blocks of a walked chunk into out (len nbytes).
func (h *header) decodeBlocks(out, src []byte) error {
	l := h.layout()
	nw := h.workers(l)
	if nw == 1 {
		return h.decodeRange(out, src, l, 0, 1)
	}
	errs := make([]error, nw)
	var wg sync.WaitGroup
	for w := 0; w < nw; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			errs[w] = h.decodeRange(out, src, l, w, nw)
		}(w)
	}
	wg.Wait()
	// report the failure of the lowest block, as a serial decode would
	var first error
	firstBlock := l.nblocks
	for _, err := range errs {
		var be *blockError
		if errors.As(err, &be) && be.block < firstBlock {
			first, firstBlock = err, be.block
		}
	}
	return first
}

type blockError struct {
	block int
	err   error
}

func (e *blockError) Error() string { return e.err.Error() }
func (e *blockError) Unwrap() error { return e.err }

// decodeRange decodes blocks start, start+step, ... and stops at the first
// error.
func (h *header) decodeRange(out, src []byte, l layout, start, step int) error {
	mode := h.decodeShuffle()
	var scratch *scratchBufs
	if mode != noShuffle {
		bs := min(h.blocksize, h.nbytes)
		scratch = getScratch(bs, mode == bitShuffle && h.typesize > 1)
		defer putScratch(scratch)
	}
	code := h.code()
	for j := start; j < l.nblocks; j += step {
		bsize, nsplits, neblock := h.blockGeom(l, j)
		dest := out[j*h.blocksize : j*h.blocksize+bsize]
		// Blocks that come out unchanged from the shuffle step are
		// decoded straight into the output.
		target := dest
		bmode := mode
		if bmode == bitShuffle && (bsize < h.typesize || (bsize/h.typesize)%8 != 0) {
			bmode = noShuffle
		}
		if bmode != noShuffle {
			target = scratch.a[:bsize]
		}
		off := int(le.Uint32(src[headerSize+4*j:]))
		for k := 0; k < nsplits; k++ {
			csize := int(int32(le.Uint32(src[off:])))
			off += 4
			stream := src[off : off+csize]
			off += csize
			d := target[k*neblock : (k+1)*neblock]
			if csize == neblock {
				copy(d, stream)
				continue
			}
			if err := decodeStream(code, d, stream); err != nil {
				return &blockError{j, corrupt("block %d stream %d (%s): %w", j, k, codeNames[code], err)}
			}
		}
		switch bmode {
		case byteShuffle:
			unshuffle(h.typesize, dest, target)
		case bitShuffle:
			var tmp []byte
			if h.typesize > 1 {
				tmp = scratch.b[:bsize]
			}
			bitunshuffle(h.typesize, dest, target, tmp)
		}
	}
	return nil
}
