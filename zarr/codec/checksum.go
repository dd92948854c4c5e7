package codec

import (
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"math"
	"math/bits"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// checksumCodec appends or prepends a 32-bit checksum of the data as 4
// little-endian bytes: v3 "crc32c" (at the end) and numcodecs "crc32",
// "adler32" (at the start unless "location" says "end"), "crc32c" and
// "fletcher32" (at the end). Decoding verifies the checksum and strips it.
type checksumCodec struct {
	name  string
	sum   func([]byte) uint32
	start bool
	// alt, when set, is another writer's variant also accepted on read.
	alt func([]byte) uint32
}

// castagnoli is made on first use: building the table at package init made
// V8 optimise the table builder during every WebAssembly start.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func init() {
	Register(checksumFactory("crc32c", func(b []byte) uint32 { return crc32.Checksum(b, castagnoli()) }, false),
		"crc32c")
	Register(checksumFactory("crc32", crc32.ChecksumIEEE, true), "numcodecs.crc32")
	Register(checksumFactory("adler32", adler32.Checksum, true), "numcodecs.adler32")
	Register(func(cfg jsonx.RawMessage, in Spec) (any, error) {
		c, err := checksumFactory("fletcher32", fletcher32, false)(cfg, in)
		if err == nil {
			// zarrs (to 0.23 at least) leaves a trailing odd byte out of the
			// sum; its chunks are accepted too. Writing follows numcodecs.
			c.(*checksumCodec).alt = func(b []byte) uint32 { return fletcher32(b[:len(b)&^1]) }
		}
		return c, err
	}, "numcodecs.fletcher32")
	Register(newJenkins, "numcodecs.jenkins_lookup3")
}

// fletcher32 is HDF5's (and netCDF's) Fletcher checksum, as numcodecs'
// fletcher32 codec computes it: big-endian 16-bit words (a trailing odd byte
// is the high byte of a last word), both sums folded to 16 bits after every
// 360 words.
func fletcher32(b []byte) uint32 {
	var lo, hi uint32
	fold := func() {
		lo = lo&0xffff + lo>>16
		hi = hi&0xffff + hi>>16
	}
	words := len(b) / 2
	for i := 0; i < words; {
		n := min(words-i, 360)
		for k := i; k < i+n; k++ {
			lo += uint32(b[2*k])<<8 | uint32(b[2*k+1])
			hi += lo
		}
		i += n
		fold()
	}
	if len(b)%2 == 1 {
		lo += uint32(b[len(b)-1]) << 8
		hi += lo
		fold()
	}
	fold()
	return hi<<16 | lo
}

// jenkinsCodec is numcodecs "jenkins_lookup3": Bob Jenkins' lookup3
// hashlittle of (prefix + data) seeded with initval, appended as 4
// little-endian bytes.
type jenkinsCodec struct {
	initval uint32
	prefix  []byte
}

func newJenkins(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	initval, err := intOption(m["initval"], "initval", 0)
	if err != nil {
		return nil, err
	}
	if initval < 0 || initval > math.MaxUint32 {
		return nil, fmtx.Errorf("initval %d is not a 32-bit unsigned integer", initval)
	}
	c := &jenkinsCodec{initval: uint32(initval)}
	if raw := m["prefix"]; len(raw) > 0 && string(raw) != "null" {
		var list []byte
		var ints []int
		var text string
		switch {
		case jsonx.UnmarshalStrict(raw, &ints) == nil:
			for _, v := range ints {
				if v < 0 || v > 255 {
					return nil, fmtx.Errorf("prefix byte %d is out of range", v)
				}
				list = append(list, byte(v))
			}
		case jsonx.UnmarshalStrict(raw, &text) == nil:
			list = []byte(text)
		default:
			return nil, fmtx.Errorf("prefix must be null, a list of byte values or a string")
		}
		c.prefix = list
	}
	return c, nil
}

func (c *jenkinsCodec) sum(b []byte) uint32 {
	if len(c.prefix) > 0 {
		b = append(append([]byte(nil), c.prefix...), b...)
	}
	return lookup3(b, c.initval)
}

func (c *jenkinsCodec) Encode(b []byte) ([]byte, error) {
	out := make([]byte, len(b)+4)
	copy(out, b)
	binary.LittleEndian.PutUint32(out[len(b):], c.sum(b))
	return out, nil
}

func (c *jenkinsCodec) Decode(b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, Corrupt("jenkins_lookup3", "%d bytes are too short to hold the 4-byte checksum", len(b))
	}
	data, stored := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if got := c.sum(data); got != stored {
		return nil, Corrupt("jenkins_lookup3", "checksum mismatch: stored %08x, computed %08x", stored, got)
	}
	return append([]byte(nil), data...), nil
}

func (c *jenkinsCodec) EncodedSize(n int) (int, bool) { return n + 4, true }

// lookup3 is Bob Jenkins' hashlittle (lookup3.c, public domain) reading the
// key byte by byte: 12-byte blocks as three little-endian words mixed in,
// the last 1-12 bytes added and finalised; an empty key returns c as set up.
func lookup3(k []byte, initval uint32) uint32 {
	a := 0xdeadbeef + uint32(len(k)) + initval
	b, c := a, a
	word := func(p []byte) uint32 {
		var w uint32
		for i, x := range p {
			w |= uint32(x) << (8 * i)
		}
		return w
	}
	for len(k) > 12 {
		a += word(k[0:4])
		b += word(k[4:8])
		c += word(k[8:12])
		a -= c
		a ^= bits.RotateLeft32(c, 4)
		c += b
		b -= a
		b ^= bits.RotateLeft32(a, 6)
		a += c
		c -= b
		c ^= bits.RotateLeft32(b, 8)
		b += a
		a -= c
		a ^= bits.RotateLeft32(c, 16)
		c += b
		b -= a
		b ^= bits.RotateLeft32(a, 19)
		a += c
		c -= b
		c ^= bits.RotateLeft32(b, 4)
		b += a
		k = k[12:]
	}
	if len(k) == 0 {
		return c
	}
	a += word(k[0:min(4, len(k))])
	if len(k) > 4 {
		b += word(k[4:min(8, len(k))])
	}
	if len(k) > 8 {
		c += word(k[8:])
	}
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return c
}

func checksumFactory(name string, sum func([]byte) uint32, start bool) Factory {
	return func(cfg jsonx.RawMessage, _ Spec) (any, error) {
		m, err := configMembers(cfg)
		if err != nil {
			return nil, err
		}
		def := "end"
		if start {
			def = "start"
		}
		loc, err := stringOption(m["location"], "location", def)
		if err != nil {
			return nil, err
		}
		if loc != "start" && loc != "end" {
			return nil, fmtx.Errorf("location must be \"start\" or \"end\", got %q", loc)
		}
		return &checksumCodec{name: name, sum: sum, start: loc == "start"}, nil
	}
}

func (c *checksumCodec) Encode(b []byte) ([]byte, error) {
	out := make([]byte, len(b)+4)
	sum := c.sum(b)
	if c.start {
		binary.LittleEndian.PutUint32(out, sum)
		copy(out[4:], b)
	} else {
		copy(out, b)
		binary.LittleEndian.PutUint32(out[len(b):], sum)
	}
	return out, nil
}

func (c *checksumCodec) Decode(b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, Corrupt(c.name, "%d bytes are too short to hold the 4-byte checksum", len(b))
	}
	var data []byte
	var stored uint32
	if c.start {
		stored, data = binary.LittleEndian.Uint32(b), b[4:]
	} else {
		data, stored = b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	}
	if got := c.sum(data); got != stored && (c.alt == nil || c.alt(data) != stored) {
		return nil, Corrupt(c.name, "checksum mismatch: stored %08x, computed %08x", stored, got)
	}
	return append([]byte(nil), data...), nil
}

func (c *checksumCodec) EncodedSize(n int) (int, bool) { return n + 4, true }
