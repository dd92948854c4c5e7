package blosc

import "github.com/zarr-wasm/zarr-wasm/internal/fmtx"

func cnameCode(cname string) (int, bool) {
	switch cname {
	case "blosclz":
		return codeBlosclz, true
	case "lz4", "lz4hc":
		return codeLZ4, true
	case "snappy":
		return codeSnappy, true
	case "zlib":
		return codeZlib, true
	case "zstd":
		return codeZstd, true
	}
	return 0, false
}

// highCompressionRatio reports c-blosc's HCR codecs, which get larger blocks.
func highCompressionRatio(cname string) bool {
	return cname == "lz4hc" || cname == "zlib" || cname == "zstd"
}

// splitBlock is c-blosc's writer rule (BLOSC_FORWARD_COMPAT_SPLIT): split a
// block into typesize streams unless the codec is zstd, typesize > 16 or the
// block holds fewer than 128 elements. The decoder's compatibility rule is
// the same, so chunks written this way decode in every c-blosc 1.x.
func splitBlock(code, typesize, blocksize int) bool {
	return code != codeZstd && typesize <= maxSplits && blocksize/typesize >= minBuffer
}

// computeBlocksize is c-blosc 1.x's compute_blocksize.
func computeBlocksize(cname string, clevel, typesize, nbytes, forced int) int {
	if nbytes < typesize {
		return 1
	}
	code, _ := cnameCode(cname)
	hcr := highCompressionRatio(cname)
	bs := nbytes
	if forced > 0 {
		bs = min(max(forced, minBuffer), maxBlocksize)
	} else if nbytes >= 32<<10 {
		bs = 32 << 10
		if hcr {
			bs *= 2
		}
		switch clevel {
		case 0:
			bs /= 4
		case 1:
			bs /= 2
		case 2:
		case 3:
			bs *= 2
		case 4, 5:
			bs *= 4
		case 6, 7, 8:
			bs *= 8
		default: // 9
			bs *= 8
			if hcr {
				bs *= 2
			}
		}
	}
	if clevel > 0 && splitBlock(code, typesize, bs) {
		bs = min(bs, 256<<10) * typesize
		bs = min(max(bs, 64<<10), 1<<20)
	}
	bs = min(bs, nbytes)
	if bs > typesize {
		bs = bs / typesize * typesize
	}
	return bs
}

// Encode compresses src into a Blosc1 chunk that c-blosc 1.x can decode.
// Inputs shorter than 128 bytes, clevel 0 and data that does not compress
// are stored raw (a "memcpyed" chunk), as c-blosc does.
func Encode(src []byte, opt Options) ([]byte, error) {
	code, ok := cnameCode(opt.Cname)
	if !ok {
		return nil, unsupported("compressor %q (want blosclz, lz4, lz4hc, snappy, zlib or zstd)", opt.Cname)
	}
	if opt.Clevel < 0 || opt.Clevel > 9 {
		return nil, fmtx.Errorf("blosc: clevel %d outside 0..9", opt.Clevel)
	}
	if opt.Shuffle < -1 || opt.Shuffle > 2 {
		return nil, fmtx.Errorf("blosc: shuffle %d outside -1..2", opt.Shuffle)
	}
	if opt.Typesize < 0 {
		return nil, fmtx.Errorf("blosc: negative typesize %d", opt.Typesize)
	}
	if opt.Blocksize < 0 {
		return nil, fmtx.Errorf("blosc: negative blocksize %d", opt.Blocksize)
	}
	if len(src) > maxNbytes {
		return nil, fmtx.Errorf("blosc: input of %d bytes exceeds the Blosc1 limit of %d", len(src), maxNbytes)
	}
	ts := opt.Typesize
	if ts == 0 || ts > maxTypesize {
		ts = 1
	}
	shuf := opt.Shuffle
	if shuf == -1 {
		shuf = 1
		if ts == 1 {
			shuf = 2
		}
	}
	nbytes := len(src)
	bs := computeBlocksize(opt.Cname, opt.Clevel, ts, nbytes, opt.Blocksize)
	flags := byte(code << 5)
	switch shuf {
	case 1:
		flags |= flagShuffle
	case 2:
		flags |= flagBitshuffle
	}
	if !splitBlock(code, ts, bs) {
		flags |= flagDontSplit
	}
	h := header{flags: flags, typesize: ts, nbytes: nbytes, blocksize: bs}
	if opt.Clevel > 0 && nbytes >= minBuffer {
		if out := h.compressBlocks(src, opt.Cname, opt.Clevel); out != nil {
			return out, nil
		}
	}
	return h.memcpyChunk(src), nil
}

func (h *header) putHeader(out []byte) {
	out[0] = formatVersion
	out[1] = versionLZ
	out[2] = h.flags
	out[3] = byte(h.typesize)
	le.PutUint32(out[4:], uint32(h.nbytes))
	le.PutUint32(out[8:], uint32(h.blocksize))
	le.PutUint32(out[12:], uint32(h.cbytes))
}

func (h *header) memcpyChunk(src []byte) []byte {
	h.flags |= flagMemcpyed
	h.cbytes = headerSize + len(src)
	out := make([]byte, h.cbytes)
	h.putHeader(out)
	copy(out[headerSize:], src)
	return out
}

// compressBlocks writes the blocked form, or returns nil if it would not be
// smaller than the memcpyed chunk.
func (h *header) compressBlocks(src []byte, cname string, clevel int) []byte {
	l := h.layout()
	limit := headerSize + h.nbytes // size of the memcpyed chunk
	pos := headerSize + 4*l.nblocks
	if pos >= limit {
		return nil
	}
	out := make([]byte, limit)
	split := h.flags&flagDontSplit == 0
	shuf := shuffleMode(noShuffle)
	switch {
	case h.flags&flagShuffle != 0 && h.typesize > 1:
		shuf = byteShuffle
	case h.flags&flagBitshuffle != 0:
		shuf = bitShuffle
	}
	var tmp, tmp2 []byte
	if shuf != noShuffle {
		needB := shuf == bitShuffle && h.typesize > 1
		scratch := getScratch(h.blocksize, needB)
		defer putScratch(scratch)
		tmp = scratch.a[:h.blocksize]
		if needB {
			tmp2 = scratch.b[:h.blocksize]
		}
	}
	enc := encStates.Get().(*encState)
	defer encStates.Put(enc)
	for j := 0; j < l.nblocks; j++ {
		bsize := h.blocksize
		last := j == l.nblocks-1 && l.leftover > 0
		if last {
			bsize = l.leftover
		}
		block := src[j*h.blocksize : j*h.blocksize+bsize]
		switch {
		case shuf == byteShuffle:
			shuffle(h.typesize, tmp[:bsize], block)
			block = tmp[:bsize]
		case shuf == bitShuffle && bsize >= h.typesize && (bsize/h.typesize)%8 == 0:
			bitshuffle(h.typesize, tmp[:bsize], block, tmp2)
			block = tmp[:bsize]
		}
		nsplits := 1
		if split && !last {
			nsplits = h.typesize
		}
		neblock := bsize / nsplits
		le.PutUint32(out[headerSize+4*j:], uint32(pos))
		for k := 0; k < nsplits; k++ {
			s := block[k*neblock : (k+1)*neblock]
			if limit-pos < 4 {
				return nil
			}
			room := min(neblock-1, limit-pos-4)
			n := 0
			if room > 0 {
				n = enc.encodeStream(cname, clevel, out[pos+4:pos+4+room], s)
			}
			if n <= 0 || n >= neblock {
				if limit-pos < 4+neblock {
					return nil
				}
				copy(out[pos+4:], s)
				n = neblock
			}
			le.PutUint32(out[pos:], uint32(n))
			pos += 4 + n
		}
	}
	if pos >= limit {
		return nil
	}
	h.cbytes = pos
	out = out[:pos:pos]
	h.putHeader(out)
	return out
}
