package pcodec

import "encoding/binary"

// join turns a batch of primary (and secondary) latents into numbers,
// written little-endian into dst, following the chunk's mode.
func (m *chunkMeta) join(primary, secondary []uint64, dst []byte) error {
	t := m.t
	bits := t.Bits()
	mask := widthMask(bits)
	mid := uint64(1) << (bits - 1)
	switch m.mode {
	case modeClassic:
		switch t {
		case U64:
			for i, l := range primary {
				binary.LittleEndian.PutUint64(dst[i*8:], l)
			}
		case I64:
			for i, l := range primary {
				binary.LittleEndian.PutUint64(dst[i*8:], l^1<<63)
			}
		case U32:
			for i, l := range primary {
				binary.LittleEndian.PutUint32(dst[i*4:], uint32(l))
			}
		case I32:
			for i, l := range primary {
				binary.LittleEndian.PutUint32(dst[i*4:], uint32(l)^1<<31)
			}
		default:
			for i, l := range primary {
				put(t, dst, i, t.fromLatentOrdered(l))
			}
		}
	case modeDict:
		for i, l := range primary {
			if l >= uint64(len(m.dict)) {
				return corrupt("dict index %d beyond the dict's %d values", l, len(m.dict))
			}
			put(t, dst, i, t.fromLatentOrdered(m.dict[l]))
		}
	case modeIntMult:
		for i, l := range primary {
			put(t, dst, i, t.fromLatentOrdered((l*m.base+secondary[i])&mask))
		}
	case modeFloatMult:
		base := t.fromLatentOrdered(m.base)
		for i, l := range primary {
			unadjusted := t.floatMul(t.intFloatFromLatent(l), base)
			put(t, dst, i, t.fromLatentOrdered((t.toLatentOrdered(unadjusted)+secondary[i]+mid)&mask))
		}
	case modeFloatQuant:
		k := m.quantK
		signCutoff := mid >> k
		lowMax := uint64(1)<<k - 1
		for i, y := range primary {
			low := secondary[i]
			if y < signCutoff {
				low = (lowMax - low) & mask
			}
			put(t, dst, i, t.fromLatentOrdered((y<<k+low)&mask))
		}
	}
	return nil
}

// put stores the i-th number (low bits of x) of type t into dst.
func put(t NumberType, dst []byte, i int, x uint64) {
	switch t.Bits() {
	case 8:
		dst[i] = byte(x)
	case 16:
		binary.LittleEndian.PutUint16(dst[i*2:], uint16(x))
	case 32:
		binary.LittleEndian.PutUint32(dst[i*4:], uint32(x))
	default:
		binary.LittleEndian.PutUint64(dst[i*8:], x)
	}
}
