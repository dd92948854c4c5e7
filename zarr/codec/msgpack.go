package codec

import (
	"math"
	"sort"
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// msgpackCodec is numcodecs "msgpack2": the same list as json2 (the chunk as
// nested lists, then the dtype string and the shape) packed as MessagePack
// the way msgpack-python's packb does it, so encodings match byte for byte.
// Map keys are written sorted (the engine's objects keep no key order).
type msgpackCodec struct {
	singleFloat bool // use_single_float: floats as float32
	binType     bool // use_bin_type: bytes as bin, strings may use str8
	raw         bool // raw: strings decode to bytes
}

func init() { Register(newMsgpack, "numcodecs.msgpack2") }

func newMsgpack(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	c := &msgpackCodec{}
	if c.singleFloat, err = boolOption(m["use_single_float"], "use_single_float", false); err != nil {
		return nil, err
	}
	if c.binType, err = boolOption(m["use_bin_type"], "use_bin_type", true); err != nil {
		return nil, err
	}
	if c.raw, err = boolOption(m["raw"], "raw", false); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *msgpackCodec) Encode(a *nd.Array) ([]byte, error) {
	items, err := listItems("msgpack2", a)
	if err != nil {
		return nil, err
	}
	w := &msgpackWriter{c: c}
	if err := w.value(items, 0); err != nil {
		return nil, fmtx.Errorf("msgpack2: %v", err)
	}
	return w.b, nil
}

func (c *msgpackCodec) Decode(b []byte, out Spec) (*nd.Array, error) {
	r := &msgpackReader{b: b, raw: c.raw}
	v, err := r.value(0)
	if err != nil {
		return nil, Corrupt("msgpack2", "%v", err)
	}
	if r.p != len(b) {
		return nil, Corrupt("msgpack2", "%d bytes after the packed value", len(b)-r.p)
	}
	return itemsToArray("msgpack2", v, out)
}

// maxNesting bounds how deep lists and maps may nest, in both directions.
const maxNesting = 1000

type msgpackWriter struct {
	c *msgpackCodec
	b []byte
}

// head writes a type byte followed by n in size bytes (big-endian).
func (w *msgpackWriter) head(tag byte, n uint64, size int) {
	w.b = append(w.b, tag)
	for i := size - 1; i >= 0; i-- {
		w.b = append(w.b, byte(n>>(8*i)))
	}
}

func (w *msgpackWriter) int(v int64) {
	switch {
	case v >= 0:
		w.uint(uint64(v))
	case v >= -32:
		w.b = append(w.b, byte(v))
	case v >= math.MinInt8:
		w.head(0xd0, uint64(v), 1)
	case v >= math.MinInt16:
		w.head(0xd1, uint64(v), 2)
	case v >= math.MinInt32:
		w.head(0xd2, uint64(v), 4)
	default:
		w.head(0xd3, uint64(v), 8)
	}
}

func (w *msgpackWriter) uint(v uint64) {
	switch {
	case v < 128:
		w.b = append(w.b, byte(v))
	case v <= math.MaxUint8:
		w.head(0xcc, v, 1)
	case v <= math.MaxUint16:
		w.head(0xcd, v, 2)
	case v <= math.MaxUint32:
		w.head(0xce, v, 4)
	default:
		w.head(0xcf, v, 8)
	}
}

func (w *msgpackWriter) float(f float64) {
	if w.c.singleFloat {
		w.head(0xca, uint64(math.Float32bits(float32(f))), 4)
	} else {
		w.head(0xcb, math.Float64bits(f), 8)
	}
}

// sized writes the header of a type with a length: tag8 with a 1-byte
// length (when tag8 is not 0), else tag16 or tag32.
func (w *msgpackWriter) sized(n uint64, tag8, tag16, tag32 byte) {
	switch {
	case n <= math.MaxUint8 && tag8 != 0:
		w.head(tag8, n, 1)
	case n <= math.MaxUint16:
		w.head(tag16, n, 2)
	default:
		w.head(tag32, n, 4)
	}
}

// str writes a string: fixstr, str8 (only with use_bin_type, as
// msgpack-python), str16, str32.
func (w *msgpackWriter) str(s string) {
	if n := uint64(len(s)); n < 32 {
		w.b = append(w.b, 0xa0|byte(n))
	} else if w.c.binType {
		w.sized(n, 0xd9, 0xda, 0xdb)
	} else {
		w.sized(n, 0, 0xda, 0xdb)
	}
	w.b = append(w.b, s...)
}

func (w *msgpackWriter) bytes(p []byte) {
	if !w.c.binType {
		w.str(string(p)) // the old spec's raw type
		return
	}
	w.sized(uint64(len(p)), 0xc4, 0xc5, 0xc6)
	w.b = append(w.b, p...)
}

func (w *msgpackWriter) container(fix, tag16, tag32 byte, n int) {
	if n < 16 {
		w.b = append(w.b, fix|byte(n))
	} else {
		w.sized(uint64(n), 0, tag16, tag32)
	}
}

func (w *msgpackWriter) value(v any, depth int) error {
	if depth > maxNesting {
		return fmtx.Errorf("values nested too deeply")
	}
	switch x := v.(type) {
	case nil:
		w.b = append(w.b, 0xc0)
	case bool:
		if x {
			w.b = append(w.b, 0xc3)
		} else {
			w.b = append(w.b, 0xc2)
		}
	case int:
		w.int(int64(x))
	case int32:
		w.int(int64(x))
	case int64:
		w.int(x)
	case uint64:
		w.uint(x)
	case float32:
		w.float(float64(x))
	case float64:
		w.float(x)
	case jsonx.Number:
		if i, err := x.Int64(); err == nil {
			w.int(i)
		} else if f, err := x.Float64(); err == nil {
			w.float(f)
		} else {
			return fmtx.Errorf("cannot pack the number %s", x)
		}
	case string:
		w.str(x)
	case []byte:
		w.bytes(x)
	case []any:
		w.container(0x90, 0xdc, 0xdd, len(x))
		for _, e := range x {
			if err := w.value(e, depth+1); err != nil {
				return err
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.container(0x80, 0xde, 0xdf, len(keys))
		for _, k := range keys {
			w.str(k)
			if err := w.value(x[k], depth+1); err != nil {
				return err
			}
		}
	default:
		return fmtx.Errorf("cannot pack a %T", v)
	}
	return nil
}

// msgpackReader unpacks as msgpack-python's unpackb: nil, bool, int64
// (uint64 above the int64 range), float64, string (or []byte with raw),
// []byte, []any and map[string]any (keys must be strings, as with
// strict_map_key). Counts are checked against the bytes left before
// anything is allocated.
type msgpackReader struct {
	b   []byte
	p   int
	raw bool
}

func (r *msgpackReader) take(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.p {
		return nil, fmtx.Errorf("truncated at byte %d (%d more bytes needed)", r.p, n)
	}
	s := r.b[r.p : r.p+n]
	r.p += n
	return s, nil
}

// uintN reads a big-endian unsigned integer of size bytes.
func (r *msgpackReader) uintN(size int) (uint64, error) {
	s, err := r.take(size)
	if err != nil {
		return 0, err
	}
	var v uint64
	for _, c := range s {
		v = v<<8 | uint64(c)
	}
	return v, nil
}

// count reads a length of size bytes; every element takes at least min bytes.
func (r *msgpackReader) count(size, min int) (int, error) {
	n, err := r.uintN(size)
	if err != nil {
		return 0, err
	}
	if n > uint64(len(r.b)-r.p)/uint64(min) {
		return 0, fmtx.Errorf("a length of %d at byte %d is more than the data holds", n, r.p)
	}
	return int(n), nil
}

func (r *msgpackReader) value(depth int) (any, error) {
	if depth > maxNesting {
		return nil, fmtx.Errorf("values nested too deeply")
	}
	at := r.p
	t, err := r.take(1)
	if err != nil {
		return nil, err
	}
	c := t[0]
	switch {
	case c <= 0x7f:
		return int64(c), nil
	case c >= 0xe0:
		return int64(int8(c)), nil
	case c&0xf0 == 0x80:
		return r.mapOf(int(c&0x0f), depth)
	case c&0xf0 == 0x90:
		return r.list(int(c&0x0f), depth)
	case c&0xe0 == 0xa0:
		return r.text(int(c & 0x1f))
	}
	switch c {
	case 0xc0:
		return nil, nil
	case 0xc2:
		return false, nil
	case 0xc3:
		return true, nil
	case 0xc4, 0xc5, 0xc6:
		n, err := r.count(1<<(c-0xc4), 1)
		if err != nil {
			return nil, err
		}
		s, _ := r.take(n)
		return append([]byte{}, s...), nil
	case 0xca:
		v, err := r.uintN(4)
		return float64(math.Float32frombits(uint32(v))), err
	case 0xcb:
		v, err := r.uintN(8)
		return math.Float64frombits(v), err
	case 0xcc, 0xcd, 0xce, 0xcf:
		v, err := r.uintN(1 << (c - 0xcc))
		if err != nil {
			return nil, err
		}
		if v > math.MaxInt64 {
			return v, nil
		}
		return int64(v), nil
	case 0xd0, 0xd1, 0xd2, 0xd3:
		size := 1 << (c - 0xd0)
		v, err := r.uintN(size)
		if err != nil {
			return nil, err
		}
		shift := 64 - 8*size // sign-extend
		return int64(v<<shift) >> shift, nil
	case 0xd9, 0xda, 0xdb:
		n, err := r.count(1<<(c-0xd9), 1)
		if err != nil {
			return nil, err
		}
		return r.text(n)
	case 0xdc, 0xdd:
		n, err := r.count(2<<(c-0xdc), 1)
		if err != nil {
			return nil, err
		}
		return r.list(n, depth)
	case 0xde, 0xdf:
		n, err := r.count(2<<(c-0xde), 2)
		if err != nil {
			return nil, err
		}
		return r.mapOf(n, depth)
	}
	return nil, fmtx.Errorf("type byte 0x%02x at byte %d (an extension type or reserved) cannot be unpacked", c, at)
}

func (r *msgpackReader) text(n int) (any, error) {
	s, err := r.take(n)
	if err != nil {
		return nil, err
	}
	if r.raw {
		return append([]byte{}, s...), nil
	}
	if !utf8.Valid(s) {
		return nil, fmtx.Errorf("a string ending at byte %d is not valid UTF-8", r.p)
	}
	return string(s), nil
}

func (r *msgpackReader) list(n, depth int) (any, error) {
	if n > len(r.b)-r.p {
		return nil, fmtx.Errorf("a list of %d items at byte %d is more than the data holds", n, r.p)
	}
	out := make([]any, n)
	for i := range out {
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (r *msgpackReader) mapOf(n, depth int) (any, error) {
	if n > (len(r.b)-r.p)/2 {
		return nil, fmtx.Errorf("a map of %d entries at byte %d is more than the data holds", n, r.p)
	}
	out := make(map[string]any, n)
	for i := 0; i < n; i++ {
		at := r.p
		k, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		var key string
		switch x := k.(type) {
		case string:
			key = x
		case []byte:
			key = string(x)
		default:
			return nil, fmtx.Errorf("a map key at byte %d is a %T; only strings are allowed", at, k)
		}
		if out[key], err = r.value(depth + 1); err != nil {
			return nil, err
		}
	}
	return out, nil
}
