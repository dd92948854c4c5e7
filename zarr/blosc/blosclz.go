package blosc

import (
	"errors"
	"math/bits"
)

// blosclz is the FastLZ "level 2" derived format c-blosc uses as its default
// codec. Stream layout (all of it is in the c-blosc 1.x decoder):
//
//	first byte: literal run control (top 3 bits are a marker and ignored)
//	ctrl < 32:  literal run of ctrl+1 bytes
//	ctrl >= 32: match, L = ctrl>>5 (1..7), hi = ctrl&31
//	            L == 7: extension bytes follow, each added to the length, until one != 255
//	            then one byte lo; length = L+2 (+ extensions), back distance = hi<<8|lo + 1
//	            hi == 31 && lo == 255: two more bytes (big endian) d, back distance = d + 8192
//
// c-blosc >= 1.20 stops decoding, without copying, at a match that is the
// last item of the stream, and needs two bytes after a match's control byte;
// so a stream must end with a literal run.

var errLZ = errors.New("invalid blosclz stream")

// blosclzDecode decodes src into dst, which must come out exactly full.
func blosclzDecode(dst, src []byte) error {
	if len(src) == 0 {
		return errLZ
	}
	ip, op := 1, 0
	ctrl := int(src[0] & 31)
	for {
		if ctrl >= 32 {
			length := (ctrl >> 5) - 1
			ofs := (ctrl & 31) << 8
			if length == 6 {
				for {
					if ip+1 >= len(src) {
						return errLZ
					}
					c := int(src[ip])
					ip++
					length += c
					if c != 255 {
						break
					}
				}
			} else if ip+1 >= len(src) {
				return errLZ
			}
			code := int(src[ip])
			ip++
			length += 3
			dist := ofs + code
			if code == 255 && ofs == 31<<8 {
				if ip+1 >= len(src) {
					return errLZ
				}
				dist = (int(src[ip])<<8 | int(src[ip+1])) + 8191
				ip += 2
			}
			dist++ // back distance
			if length > len(dst)-op || dist > op {
				return errLZ
			}
			if ip >= len(src) {
				// c-blosc 1.21 ends here without copying the match; its
				// output is then short, which blosc rejects.
				return errLZ
			}
			ctrl = int(src[ip])
			ip++
			matchCopy(dst, op, dist, length)
			op += length
		} else {
			n := ctrl + 1
			if n > len(dst)-op || n > len(src)-ip {
				return errLZ
			}
			if n <= 16 && len(dst)-op >= 16 && len(src)-ip >= 16 {
				// Copy 16 bytes; only n of them count.
				le.PutUint64(dst[op:], le.Uint64(src[ip:]))
				le.PutUint64(dst[op+8:], le.Uint64(src[ip+8:]))
			} else {
				copy(dst[op:op+n], src[ip:ip+n])
			}
			op += n
			ip += n
			if ip >= len(src) {
				break
			}
			ctrl = int(src[ip])
			ip++
		}
	}
	if op != len(dst) {
		return errLZ
	}
	return nil
}

// matchCopy copies length bytes from dst[op-dist:] to dst[op:] with LZ77
// (overlapping, byte by byte) semantics. The caller has checked
// 1 <= dist <= op and op+length <= len(dst).
func matchCopy(dst []byte, op, dist, length int) {
	if dist >= 8 && length <= 16 && len(dst)-op >= 16 {
		// Two 8-byte moves; with dist >= 8 the second load sees the
		// bytes the first store wrote, as byte-wise copying would.
		le.PutUint64(dst[op:], le.Uint64(dst[op-dist:]))
		le.PutUint64(dst[op+8:], le.Uint64(dst[op-dist+8:]))
		return
	}
	if dist >= length {
		copy(dst[op:op+length], dst[op-dist:op])
		return
	}
	// Overlapping: the pattern of dist bytes repeats; double it up.
	copy(dst[op:op+dist], dst[op-dist:op])
	done := dist
	for done < length {
		done += copy(dst[op+done:op+length], dst[op:op+done])
	}
}

// blosclz compressor: a greedy hash-chain-less matcher (one candidate per
// hash slot). It never starts a match at the first byte and always leaves a
// literal tail, so the stream starts and ends with a literal run.
// It returns the compressed size, or 0 if the output does not fit in dst.

const (
	blzMaxCopy     = 32
	blzMaxNear     = 8191               // largest back distance with the 2-byte form
	blzMaxFar      = 65535 + blzMaxNear // largest back distance with the far form
	blzMinInput    = 16
	blzTailLiteral = 12 // no match starts within this many bytes of the end
)

type blosclzEncoder struct {
	table []int32
}

func hashLogFor(clevel int) uint {
	switch {
	case clevel <= 2:
		return 12
	case clevel <= 5:
		return 14
	default:
		return 15
	}
}

func (e *blosclzEncoder) compress(dst, src []byte, clevel int) int {
	if len(src) < blzMinInput || len(dst) < 2 {
		return 0
	}
	hlog := hashLogFor(clevel)
	size := 1 << hlog
	if len(src) < size/2 {
		// small inputs: a smaller table is cheaper to clear
		for size > 256 && len(src) < size/2 {
			size >>= 1
			hlog--
		}
	}
	if cap(e.table) < size {
		e.table = make([]int32, size)
	}
	table := e.table[:size]
	clear(table)
	shift := 32 - hlog

	limit := len(src) - blzTailLiteral // matches start before limit
	if limit < 1 {
		return 0
	}
	matchEnd := len(src) - 1 // matches may not reach the last byte
	op := 0
	anchor := 0 // start of pending literals
	ip := 1
	skip := 32 // grows while no match is found (faster on incompressible data)

	emitLiterals := func(from, to int) bool {
		for from < to {
			n := min(to-from, blzMaxCopy)
			if op+1+n > len(dst) {
				return false
			}
			dst[op] = byte(n - 1)
			copy(dst[op+1:], src[from:from+n])
			op += 1 + n
			from += n
		}
		return true
	}

	for ip < limit {
		seq := le.Uint32(src[ip:])
		h := (seq * 2654435761) >> shift
		ref := int(table[h])
		table[h] = int32(ip)
		dist := ip - ref
		// An empty slot holds 0, which is a valid (if unlikely) candidate
		// too: ref < ip always holds.
		if dist > blzMaxFar || le.Uint32(src[ref:]) != seq {
			ip += skip >> 5
			skip++
			continue
		}
		skip = 32
		// extend the match
		length := 4
		for ip+length+8 <= matchEnd {
			x := le.Uint64(src[ip+length:]) ^ le.Uint64(src[ref+length:])
			if x != 0 {
				length += bits.TrailingZeros64(x) >> 3
				goto found
			}
			length += 8
		}
		for ip+length < matchEnd && src[ip+length] == src[ref+length] {
			length++
		}
	found:
		if dist > blzMaxNear && length < 5 {
			// a far match costs 4 bytes; not worth it for 4 bytes
			ip++
			continue
		}
		if !emitLiterals(anchor, ip) {
			return 0
		}
		if !emitMatch(dst, &op, dist, length) {
			return 0
		}
		// update the hash table at a couple of positions inside the match
		end := ip + length
		if end-2 < limit && end-2 > ip {
			p := end - 2
			table[(le.Uint32(src[p:])*2654435761)>>shift] = int32(p)
		}
		ip = end
		anchor = ip
	}
	if !emitLiterals(anchor, len(src)) {
		return 0
	}
	dst[0] |= 1 << 5 // the marker c-blosc writes (and ignores)
	return op
}

// emitMatch writes a match of length >= 3 (here >= 4) at back distance dist.
func emitMatch(dst []byte, op *int, dist, length int) bool {
	d := dist - 1
	o := *op
	// worst case size: ctrl + ext bytes + lo + 2 far bytes
	need := 4 + (length-9)/255 + 1
	if o+need > len(dst) {
		return false
	}
	l := length - 2 // 1..6 short form, >= 7 long form
	if d < blzMaxNear {
		if l < 7 {
			dst[o] = byte(l<<5 | d>>8)
			dst[o+1] = byte(d)
			o += 2
		} else {
			dst[o] = byte(7<<5 | d>>8)
			o++
			for rem := length - 9; ; rem -= 255 {
				if rem < 255 {
					dst[o] = byte(rem)
					o++
					break
				}
				dst[o] = 255
				o++
			}
			dst[o] = byte(d)
			o++
		}
	} else {
		d -= blzMaxNear
		if l < 7 {
			dst[o] = byte(l<<5 | 31)
			o++
		} else {
			dst[o] = byte(7<<5 | 31)
			o++
			for rem := length - 9; ; rem -= 255 {
				if rem < 255 {
					dst[o] = byte(rem)
					o++
					break
				}
				dst[o] = 255
				o++
			}
		}
		dst[o] = 255
		dst[o+1] = byte(d >> 8)
		dst[o+2] = byte(d)
		o += 3
	}
	*op = o
	return true
}
