//go:build !zarrcore

package codec

import (
	"bytes"
	"encoding/binary"
	"io"
	"strconv"
	"strings"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// lzmaCodec is numcodecs "lzma" (Python's lzma module): format 1 is an xz
// stream, 2 the legacy .lzma ("alone") format, 3 a raw stream described by
// the filters list, 0 (decode only) detects xz or alone. LZMA2 is
// available, and for raw streams LZMA1 and delta filters before it; branch
// (BCJ) filters, and delta inside xz containers, are reported as unsupported.
type lzmaCodec struct {
	format int
	check  byte
	preset int
	filter *lzmaFilterSpec // the single filter of a raw stream or of "filters"
}

type lzmaFilterSpec struct {
	lzma1      bool
	dictSize   int
	lc, lp, pb int
	// deltas are the distances of xz delta filters listed before the LZMA
	// filter (raw streams only): applied in order before compressing.
	deltas []int
}

const (
	lzmaFormatAuto  = 0
	lzmaFormatXZ    = 1
	lzmaFormatAlone = 2
	lzmaFormatRaw   = 3

	lzmaFilterLZMA1 = "4611686018427387905" // 0x4000000000000001
	lzmaFilterLZMA2 = "33"                  // 0x21
	lzmaFilterDelta = "3"
)

// liblzma's dictionary size for presets 0-9.
var lzmaPresetDict = [10]int{1 << 18, 1 << 20, 1 << 21, 1 << 22, 1 << 22, 1 << 23, 1 << 23, 1 << 24, 1 << 25, 1 << 26}

// xz filter ids, for messages.
var xzFilterNames = map[uint64]string{
	0x03: "delta", 0x04: "x86 BCJ", 0x05: "PowerPC BCJ", 0x06: "IA-64 BCJ", 0x07: "ARM BCJ",
	0x08: "ARM-Thumb BCJ", 0x09: "SPARC BCJ", 0x0A: "ARM64 BCJ", 0x0B: "RISC-V BCJ", 0x21: "LZMA2",
	0x4000000000000001: "LZMA1",
}

func init() { Register(newLZMA, "numcodecs.lzma") }

func newLZMA(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	c := &lzmaCodec{}
	if c.format, err = intOption(m["format"], "format", lzmaFormatXZ); err != nil {
		return nil, err
	}
	if c.format < 0 || c.format > 3 {
		return nil, fmtx.Errorf("format must be 0 (auto), 1 (xz), 2 (alone) or 3 (raw), got %d", c.format)
	}
	check, err := intOption(m["check"], "check", -1)
	if err != nil {
		return nil, err
	}
	switch check {
	case -1, 4:
		c.check = xz.CRC64
	case 0:
		c.check = xz.None
	case 1:
		c.check = xz.CRC32
	case 10:
		c.check = xz.SHA256
	default:
		return nil, fmtx.Errorf("check must be -1, 0 (none), 1 (crc32), 4 (crc64) or 10 (sha256), got %d", check)
	}
	if c.preset, err = intOption(m["preset"], "preset", 6); err != nil {
		return nil, err
	}
	if c.preset&0x7fffffff > 9 || c.preset < -(1<<31) {
		return nil, fmtx.Errorf("preset must be 0-9 (optionally with the extreme flag), got %d", c.preset)
	}
	c.preset &= 0x7fffffff // the extreme flag only changes the compression effort
	if f := strings.TrimSpace(string(m["filters"])); f != "" && f != "null" {
		if c.filter, err = parseLZMAFilters(m["filters"], c.preset); err != nil {
			return nil, err
		}
	}
	if c.format == lzmaFormatRaw && c.filter == nil {
		return nil, fmtx.Errorf("format 3 (raw) needs a filters list")
	}
	if c.format == lzmaFormatXZ && c.filter != nil && c.filter.lzma1 {
		return nil, fmtx.Errorf("xz streams cannot use the LZMA1 filter")
	}
	if c.format != lzmaFormatRaw && c.filter != nil && len(c.filter.deltas) > 0 {
		return nil, errs.New(errs.Unsupported, "lzma", "the delta filter is supported in raw streams (format 3) only")
	}
	return c, nil
}

func parseLZMAFilters(raw jsonx.RawMessage, preset int) (*lzmaFilterSpec, error) {
	var list []map[string]jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(raw, &list); err != nil {
		return nil, fmtx.Errorf("filters must be a list of objects with an \"id\": %v", err)
	}
	var spec *lzmaFilterSpec
	var deltas []int
	for _, f := range list {
		id := strings.TrimSpace(string(f["id"]))
		switch id {
		case lzmaFilterDelta:
			if spec != nil {
				return nil, errs.New(errs.Unsupported, "lzma", "a delta filter after the LZMA filter is not supported")
			}
			dist, err := intOption(f["dist"], "dist", 1)
			if err != nil {
				return nil, err
			}
			if dist < 1 || dist > 256 {
				return nil, fmtx.Errorf("delta dist must be 1-256, got %d", dist)
			}
			deltas = append(deltas, dist)
		case lzmaFilterLZMA1, lzmaFilterLZMA2:
			if spec != nil {
				return nil, fmtx.Errorf("filters has more than one LZMA filter")
			}
			p, err := intOption(f["preset"], "preset", preset)
			if err != nil {
				return nil, err
			}
			p &= 0x7fffffff
			if p > 9 {
				return nil, fmtx.Errorf("filter preset must be 0-9, got %d", p)
			}
			spec = &lzmaFilterSpec{lzma1: id == lzmaFilterLZMA1}
			if spec.dictSize, err = intOption(f["dict_size"], "dict_size", lzmaPresetDict[p]); err != nil {
				return nil, err
			}
			if spec.lc, err = intOption(f["lc"], "lc", 3); err != nil {
				return nil, err
			}
			if spec.lp, err = intOption(f["lp"], "lp", 0); err != nil {
				return nil, err
			}
			if spec.pb, err = intOption(f["pb"], "pb", 2); err != nil {
				return nil, err
			}
			if spec.dictSize < 4096 || spec.dictSize > 1<<30+1<<29 {
				return nil, fmtx.Errorf("dict_size %d is out of range", spec.dictSize)
			}
			if spec.lc < 0 || spec.lc > 8 || spec.lp < 0 || spec.lp > 4 || spec.pb < 0 || spec.pb > 4 {
				return nil, fmtx.Errorf("lc, lp or pb out of range")
			}
			if !spec.lzma1 && spec.lc+spec.lp > 4 {
				return nil, fmtx.Errorf("LZMA2 needs lc + lp <= 4")
			}
		default:
			name := id
			if n, err := strconv.ParseUint(id, 10, 64); err == nil {
				if s, ok := xzFilterNames[n]; ok {
					name = fmtx.Sprintf("%s (id %d)", s, n)
				}
			}
			return nil, errs.New(errs.Unsupported, "lzma", "the lzma filter %s is not supported; only a single LZMA1 or LZMA2 filter is", name)
		}
	}
	if spec == nil {
		return nil, fmtx.Errorf("filters has no LZMA1 or LZMA2 filter")
	}
	spec.deltas = deltas
	return spec, nil
}

// deltaEncode applies xz's delta filter in place: each byte minus the byte
// dist positions before it (zero before the start).
func deltaEncode(b []byte, dist int) {
	for i := len(b) - 1; i >= dist; i-- {
		b[i] -= b[i-dist]
	}
}

// deltaDecode undoes deltaEncode in place.
func deltaDecode(b []byte, dist int) {
	for i := dist; i < len(b); i++ {
		b[i] += b[i-dist]
	}
}

// encodeDictSize picks a dictionary no larger than needed: the decoder
// allocates what the header says.
func encodeDictSize(dict, n int) int {
	need := 4096
	for need < n && need < dict {
		need <<= 1
	}
	if need < dict {
		return need
	}
	return dict
}

func (c *lzmaCodec) props() (*lzma.Properties, int) {
	if c.filter != nil {
		return &lzma.Properties{LC: c.filter.lc, LP: c.filter.lp, PB: c.filter.pb}, c.filter.dictSize
	}
	return &lzma.Properties{LC: 3, LP: 0, PB: 2}, lzmaPresetDict[c.preset]
}

func (c *lzmaCodec) Encode(b []byte) ([]byte, error) {
	if c.filter != nil && len(c.filter.deltas) > 0 {
		b = append([]byte(nil), b...)
		for _, d := range c.filter.deltas {
			deltaEncode(b, d)
		}
	}
	props, dict := c.props()
	dict = encodeDictSize(dict, len(b))
	out, err := compressAll(b, func(w io.Writer) (io.WriteCloser, error) {
		switch {
		case c.format == lzmaFormatAlone, c.format == lzmaFormatRaw && c.filter.lzma1:
			return lzma.WriterConfig{Properties: props, DictCap: dict, EOSMarker: true}.NewWriter(w)
		case c.format == lzmaFormatRaw:
			return lzma.Writer2Config{Properties: props, DictCap: dict}.NewWriter2(w)
		}
		return xz.WriterConfig{Properties: props, DictCap: dict, CheckSum: c.check, NoCheckSum: c.check == xz.None}.NewWriter(w)
	})
	if err != nil {
		return nil, err
	}
	if c.format == lzmaFormatRaw && c.filter.lzma1 {
		out = out[lzma.HeaderLen:] // a raw stream has no header
	}
	return out, nil
}

func (c *lzmaCodec) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

func (c *lzmaCodec) DecodeLimit(b []byte, max int) ([]byte, error) {
	limit := effectiveLimit(max)
	format := c.format
	if format == lzmaFormatAuto {
		format = lzmaFormatAlone
		if bytes.HasPrefix(b, xzMagic) {
			format = lzmaFormatXZ
		}
	}
	var r io.Reader
	var err error
	switch format {
	case lzmaFormatXZ:
		// The dictionary is allocated whatever the output size, so it is
		// bounded by the default limit, not the caller's output limit.
		if err := checkXZ(b, effectiveLimit(0)); err != nil {
			return nil, err
		}
		// DictCap is a minimum here: the block header's size is used if larger.
		r, err = xz.ReaderConfig{DictCap: lzma.MinDictCap}.NewReader(bytes.NewReader(b))
	case lzmaFormatAlone:
		if len(b) >= lzma.HeaderLen {
			if d := binary.LittleEndian.Uint32(b[1:]); int64(d) > int64(effectiveLimit(0)) {
				return nil, Corrupt("lzma", "dictionary size %d in the header exceeds the limit", d)
			}
		}
		r, err = lzma.ReaderConfig{DictCap: effectiveLimit(0)}.NewReader(bytes.NewReader(b))
	case lzmaFormatRaw:
		dict := c.filter.dictSize
		if dict > effectiveLimit(0) {
			dict = effectiveLimit(0)
		}
		if dict < lzma.MinDictCap {
			dict = lzma.MinDictCap
		}
		if c.filter.lzma1 {
			// A raw LZMA1 stream is the .lzma format without its header and
			// with an end marker: give it a header of unknown size.
			hdr := make([]byte, lzma.HeaderLen)
			hdr[0] = byte((c.filter.pb*5+c.filter.lp)*9 + c.filter.lc)
			binary.LittleEndian.PutUint32(hdr[1:], uint32(dict))
			binary.LittleEndian.PutUint64(hdr[5:], ^uint64(0))
			r, err = lzma.ReaderConfig{DictCap: effectiveLimit(0)}.NewReader(io.MultiReader(bytes.NewReader(hdr), bytes.NewReader(b)))
		} else {
			r, err = lzma.Reader2Config{DictCap: dict}.NewReader2(bytes.NewReader(b))
		}
	}
	if err != nil {
		return nil, Corrupt("lzma", "cannot decompress %d bytes: %v", len(b), err)
	}
	out, err := readAllLimit(r, limit)
	if err != nil {
		return nil, Corrupt("lzma", "cannot decompress %d bytes: %v", len(b), err)
	}
	if format == lzmaFormatRaw {
		for i := len(c.filter.deltas) - 1; i >= 0; i-- {
			deltaDecode(out, c.filter.deltas[i])
		}
	}
	return out, nil
}

var xzMagic = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}

// checkXZ looks at the first block header of an xz stream: a filter other
// than LZMA2 is unsupported (the xz package would call it corrupt), and a
// dictionary beyond the limit would be allocated before any check.
func checkXZ(b []byte, limit int) error {
	const streamHeader = 12
	if len(b) < streamHeader+2 || !bytes.HasPrefix(b, xzMagic) {
		return nil // let the xz reader report it
	}
	h := b[streamHeader:]
	if h[0] == 0 {
		return nil // no blocks: the index follows
	}
	size := (int(h[0]) + 1) * 4
	if size > len(h) {
		return nil
	}
	h = h[1:size]
	flags := h[0]
	p := 1
	nfilters := int(flags&3) + 1
	varint := func() (uint64, bool) {
		var v uint64
		for i := 0; i < 9 && p < len(h); i++ {
			c := h[p]
			p++
			v |= uint64(c&0x7f) << (7 * i)
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	if flags&0x40 != 0 {
		if _, ok := varint(); !ok {
			return nil
		}
	}
	if flags&0x80 != 0 {
		if _, ok := varint(); !ok {
			return nil
		}
	}
	for i := 0; i < nfilters; i++ {
		id, ok1 := varint()
		n, ok2 := varint()
		if !ok1 || !ok2 || uint64(len(h)-p) < n {
			return nil
		}
		props := h[p : p+int(n)]
		p += int(n)
		if id != 0x21 {
			name, ok := xzFilterNames[id]
			if !ok {
				return Corrupt("lzma", "unknown xz filter id %#x", id)
			}
			return errs.New(errs.Unsupported, "lzma", "the xz stream uses the %s filter (id %#x); only LZMA2 is supported", name, id)
		}
		if len(props) == 1 && props[0]&0x3f <= 40 {
			bits := uint(props[0] & 0x3f)
			dict := int64(0xFFFFFFFF)
			if bits < 40 {
				dict = int64(2|bits&1) << (bits/2 + 11)
			}
			if dict > int64(limit) {
				return Corrupt("lzma", "dictionary size %d in the xz block header exceeds the limit", dict)
			}
		}
	}
	return nil
}
