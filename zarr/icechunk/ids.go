package icechunk

import "strings"

// Object ids (12 bytes for snapshots, manifests and chunks; 8 bytes for
// nodes) are written in file names as Crockford base32: uppercase, no
// padding, the last character padded with zero bits.

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// id12 is a snapshot, manifest or chunk id.
type id12 [12]byte

// id8 is a node id.
type id8 [8]byte

func (id id12) String() string { return encodeID(id[:]) }

func encodeID(b []byte) string {
	var out strings.Builder
	out.Grow((len(b)*8 + 4) / 5)
	var acc uint32
	bits := 0
	for _, c := range b {
		acc = acc<<8 | uint32(c)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out.WriteByte(crockford[(acc>>uint(bits))&31])
		}
	}
	if bits > 0 {
		out.WriteByte(crockford[(acc<<uint(5-bits))&31])
	}
	return out.String()
}

// parseID12 reads a 20-character id (case-insensitive; Crockford's I, L
// and O read as 1, 1 and 0). ok is false for anything else.
func parseID12(s string) (id id12, ok bool) {
	if len(s) != 20 {
		return id, false
	}
	var acc uint64
	bits, n := 0, 0
	for i := 0; i < len(s); i++ {
		v := crockfordValue(s[i])
		if v < 0 {
			return id, false
		}
		acc = acc<<5 | uint64(v)
		bits += 5
		if bits >= 8 {
			bits -= 8
			id[n] = byte(acc >> uint(bits))
			n++
		}
	}
	// the 4 padding bits must be zero, or the text is not an encoded id
	return id, acc&(1<<uint(bits)-1) == 0
}

func crockfordValue(c byte) int {
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	switch c {
	case 'I', 'L':
		return 1
	case 'O':
		return 0
	}
	if i := strings.IndexByte(crockford, c); i >= 0 {
		return i
	}
	return -1
}
