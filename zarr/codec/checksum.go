package codec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/adler32"
	"hash/crc32"
)

// checksumCodec appends or prepends a 32-bit checksum of the data as 4
// little-endian bytes: v3 "crc32c" (at the end) and numcodecs "crc32",
// "adler32" (at the start unless "location" says "end") and "crc32c" (at
// the end). Decoding verifies the checksum and strips it.
type checksumCodec struct {
	name  string
	sum   func([]byte) uint32
	start bool
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func init() {
	Register(checksumFactory("crc32c", func(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }, false),
		"crc32c")
	Register(checksumFactory("crc32", crc32.ChecksumIEEE, true), "numcodecs.crc32")
	Register(checksumFactory("adler32", adler32.Checksum, true), "numcodecs.adler32")
}

func checksumFactory(name string, sum func([]byte) uint32, start bool) Factory {
	return func(cfg json.RawMessage, _ Spec) (any, error) {
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
			return nil, fmt.Errorf("location must be \"start\" or \"end\", got %q", loc)
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
	if got := c.sum(data); got != stored {
		return nil, Corrupt(c.name, "checksum mismatch: stored %08x, computed %08x", stored, got)
	}
	return append([]byte(nil), data...), nil
}

func (c *checksumCodec) EncodedSize(n int) (int, bool) { return n + 4, true }
