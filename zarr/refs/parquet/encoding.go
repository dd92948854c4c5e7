package parquet

import (
	"encoding/binary"
	"math/bits"
)

// rleHybrid decodes n values of the RLE / bit-packed hybrid encoding
// (definition levels, dictionary indices) of the given bit width from b,
// into out (len n). It returns the number of bytes read.
func rleHybrid(b []byte, width int, out []uint32) (int, error) {
	if width < 0 || width > 32 {
		return 0, corrupt("RLE bit width %d", width)
	}
	n := len(out)
	pos, i := 0, 0
	vbytes := (width + 7) / 8
	mask := uint64(1)<<uint(width) - 1
	for i < n {
		h, k := binary.Uvarint(b[pos:])
		if k <= 0 {
			return 0, corrupt("RLE run header past the end (%d of %d values)", i, n)
		}
		pos += k
		if h&1 == 0 { // RLE run
			count := h >> 1
			if count == 0 {
				return 0, corrupt("empty RLE run")
			}
			if len(b)-pos < vbytes {
				return 0, corrupt("RLE run value past the end")
			}
			var v uint32
			for j := 0; j < vbytes; j++ {
				v |= uint32(b[pos+j]) << (8 * j)
			}
			pos += vbytes
			if width < 32 && uint64(v) > mask {
				return 0, corrupt("RLE value %d wider than %d bits", v, width)
			}
			m := n - i
			if count < uint64(m) {
				m = int(count)
			}
			for j := 0; j < m; j++ {
				out[i+j] = v
			}
			i += m
			continue
		}
		groups := h >> 1
		if groups == 0 {
			return 0, corrupt("empty bit-packed run")
		}
		nb := groups * uint64(width) // bytes: 8 values per group
		if nb > uint64(len(b)-pos) {
			// the last run of a page may be cut short by writers that do not
			// pad: accept it as long as it holds the values still needed
			need := (uint64(n-i)*uint64(width) + 7) / 8
			if need > uint64(len(b)-pos) {
				return 0, corrupt("bit-packed run of %d bytes past the end", nb)
			}
			nb = uint64(len(b) - pos)
		}
		cnt := groups * 8
		if width > 0 && nb*8/uint64(width) < cnt {
			cnt = nb * 8 / uint64(width)
		}
		m := n - i
		if cnt < uint64(m) {
			m = int(cnt)
		}
		unpack(b[pos:pos+int(nb)], width, out[i:i+m])
		i += m
		pos += int(nb)
	}
	return pos, nil
}

// unpack reads len(out) values of width bits, least significant bit first.
func unpack(b []byte, width int, out []uint32) {
	if width == 0 {
		clear(out)
		return
	}
	var acc uint64
	var nacc int
	pos := 0
	mask := uint64(1)<<uint(width) - 1
	for i := range out {
		for nacc < width {
			acc |= uint64(b[pos]) << uint(nacc)
			pos++
			nacc += 8
		}
		out[i] = uint32(acc & mask)
		acc >>= uint(width)
		nacc -= width
	}
}

// bitWidth is the number of bits needed to hold v.
func bitWidth(v int) int { return bits.Len(uint(v)) }

// deltaBinary decodes DELTA_BINARY_PACKED integers from b. It returns the
// values and the bytes read. limit bounds the count the header may claim.
func deltaBinary(b []byte, limit int) ([]int64, int, error) {
	pos := 0
	uv := func() (uint64, error) {
		v, k := binary.Uvarint(b[pos:])
		if k <= 0 {
			return 0, corrupt("DELTA_BINARY_PACKED: bad varint")
		}
		pos += k
		return v, nil
	}
	zz := func() (int64, error) {
		u, err := uv()
		return int64(u>>1) ^ -int64(u&1), err
	}
	blockSize, err := uv()
	if err != nil {
		return nil, 0, err
	}
	miniblocks, err := uv()
	if err != nil {
		return nil, 0, err
	}
	total, err := uv()
	if err != nil {
		return nil, 0, err
	}
	first, err := zz()
	if err != nil {
		return nil, 0, err
	}
	if blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<20 || miniblocks == 0 ||
		blockSize%miniblocks != 0 || (blockSize/miniblocks)%32 != 0 {
		return nil, 0, corrupt("DELTA_BINARY_PACKED: block size %d with %d miniblocks", blockSize, miniblocks)
	}
	if total > uint64(limit) {
		return nil, 0, corrupt("DELTA_BINARY_PACKED: %d values, more than the %d expected", total, limit)
	}
	out := make([]int64, 0, total)
	if total == 0 {
		return out, pos, nil
	}
	out = append(out, first)
	last := uint64(first)
	per := int(blockSize / miniblocks)
	tmp := make([]uint32, per)
	for uint64(len(out)) < total {
		minDelta, err := zz()
		if err != nil {
			return nil, 0, err
		}
		if len(b)-pos < int(miniblocks) {
			return nil, 0, corrupt("DELTA_BINARY_PACKED: bit widths past the end")
		}
		widths := b[pos : pos+int(miniblocks)]
		pos += int(miniblocks)
		for _, w := range widths {
			if uint64(len(out)) >= total {
				break
			}
			if w > 64 {
				return nil, 0, corrupt("DELTA_BINARY_PACKED: bit width %d", w)
			}
			nb := per * int(w) / 8
			if len(b)-pos < nb {
				return nil, 0, corrupt("DELTA_BINARY_PACKED: miniblock past the end")
			}
			mb := b[pos : pos+nb]
			pos += nb
			m := min(per, int(total)-len(out))
			if w <= 32 {
				unpack(mb, int(w), tmp[:m])
				for j := 0; j < m; j++ {
					last += uint64(minDelta) + uint64(tmp[j])
					out = append(out, int64(last))
				}
			} else {
				for j := 0; j < m; j++ {
					last += uint64(minDelta) + unpack64(mb, int(w), j)
					out = append(out, int64(last))
				}
			}
		}
	}
	return out, pos, nil
}

// unpack64 reads the i-th value of width bits (up to 64), LSB first.
func unpack64(b []byte, width, i int) uint64 {
	var v uint64
	bit := i * width
	for k := 0; k < width; k++ {
		if b[(bit+k)/8]>>uint((bit+k)%8)&1 != 0 {
			v |= 1 << uint(k)
		}
	}
	return v
}
