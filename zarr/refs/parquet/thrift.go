package parquet

import (
	"encoding/binary"
	"math"
)

// Thrift compact protocol: the encoding of Parquet's FileMetaData and page
// headers. Only reading, and only what a struct walk needs: field headers,
// integers, binaries, lists, and skipping everything else.

// compact protocol type codes
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
)

// maxDepth bounds struct and container nesting (Parquet's own schemas need
// about 6 levels).
const maxDepth = 64

type thrift struct {
	b     []byte
	pos   int
	depth int
}

func (t *thrift) byte1() (byte, error) {
	if t.pos >= len(t.b) {
		return 0, corrupt("thrift: unexpected end of data")
	}
	c := t.b[t.pos]
	t.pos++
	return c, nil
}

func (t *thrift) uvarint() (uint64, error) {
	v, n := binary.Uvarint(t.b[t.pos:])
	if n <= 0 {
		return 0, corrupt("thrift: bad varint")
	}
	t.pos += n
	return v, nil
}

func (t *thrift) zigzag() (int64, error) {
	u, err := t.uvarint()
	if err != nil {
		return 0, err
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

// int reads an integer field of any integer type (writers differ on i32 and
// i64 for some fields) and checks it fits in 64 bits.
func (t *thrift) int(typ byte) (int64, error) {
	switch typ {
	case tByte:
		c, err := t.byte1()
		return int64(int8(c)), err
	case tI16, tI32, tI64:
		return t.zigzag()
	}
	return 0, corrupt("thrift: integer field has type %d", typ)
}

// int32 reads an integer that must fit in 32 bits.
func (t *thrift) int32(typ byte) (int32, error) {
	v, err := t.int(typ)
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, corrupt("thrift: %d does not fit in 32 bits", v)
	}
	return int32(v), nil
}

func (t *thrift) binary(typ byte) ([]byte, error) {
	if typ != tBinary {
		return nil, corrupt("thrift: binary field has type %d", typ)
	}
	n, err := t.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(t.b)-t.pos) {
		return nil, corrupt("thrift: binary of %d bytes past the end", n)
	}
	s := t.b[t.pos : t.pos+int(n)]
	t.pos += int(n)
	return s, nil
}

func (t *thrift) boolean(typ byte) (bool, error) {
	switch typ {
	case tTrue:
		return true, nil
	case tFalse:
		return false, nil
	}
	return false, corrupt("thrift: bool field has type %d", typ)
}

// listHeader reads a list or set header: element type and count.
func (t *thrift) listHeader() (byte, int, error) {
	h, err := t.byte1()
	if err != nil {
		return 0, 0, err
	}
	et := h & 0x0f
	n := uint64(h >> 4)
	if n == 15 {
		if n, err = t.uvarint(); err != nil {
			return 0, 0, err
		}
	}
	// every element takes at least one byte, except booleans in some
	// writers' lists, which still take one
	if n > uint64(len(t.b)-t.pos) {
		return 0, 0, corrupt("thrift: list of %d elements in %d bytes", n, len(t.b)-t.pos)
	}
	return et, int(n), nil
}

// list reads a list field, calling fn for each element (fn must consume it).
func (t *thrift) list(typ byte, fn func(et byte) error) error {
	if typ != tList && typ != tSet {
		return corrupt("thrift: list field has type %d", typ)
	}
	et, n, err := t.listHeader()
	if err != nil {
		return err
	}
	if t.depth++; t.depth > maxDepth {
		return corrupt("thrift: nested too deeply")
	}
	defer func() { t.depth-- }()
	for i := 0; i < n; i++ {
		if err := fn(et); err != nil {
			return err
		}
	}
	return nil
}

// structure walks a struct, calling fn for each field. fn consumes the
// field's value (or calls skip). Bool field values are the type code itself.
func (t *thrift) structure(typ byte, fn func(id int16, typ byte) error) error {
	if typ != tStruct {
		return corrupt("thrift: struct field has type %d", typ)
	}
	if t.depth++; t.depth > maxDepth {
		return corrupt("thrift: nested too deeply")
	}
	defer func() { t.depth-- }()
	var last int16
	for {
		h, err := t.byte1()
		if err != nil {
			return err
		}
		if h == tStop {
			return nil
		}
		ft := h & 0x0f
		var id int16
		if d := h >> 4; d != 0 {
			id = last + int16(d)
		} else {
			v, err := t.zigzag()
			if err != nil {
				return err
			}
			if v < math.MinInt16 || v > math.MaxInt16 {
				return corrupt("thrift: field id %d", v)
			}
			id = int16(v)
		}
		last = id
		if err := fn(id, ft); err != nil {
			return err
		}
	}
}

// skip consumes a value of type typ.
func (t *thrift) skip(typ byte) error {
	switch typ {
	case tTrue, tFalse:
		return nil // the value is in the field header
	case tByte:
		_, err := t.byte1()
		return err
	case tI16, tI32, tI64:
		_, err := t.uvarint()
		return err
	case tDouble:
		if len(t.b)-t.pos < 8 {
			return corrupt("thrift: unexpected end of data")
		}
		t.pos += 8
		return nil
	case tBinary:
		_, err := t.binary(typ)
		return err
	case tList, tSet:
		return t.list(typ, func(et byte) error {
			if et == tTrue || et == tFalse {
				_, err := t.byte1() // a bool element is one byte
				return err
			}
			return t.skip(et)
		})
	case tMap:
		n, err := t.uvarint()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		kv, err := t.byte1()
		if err != nil {
			return err
		}
		if n > uint64(len(t.b)-t.pos) {
			return corrupt("thrift: map of %d entries in %d bytes", n, len(t.b)-t.pos)
		}
		if t.depth++; t.depth > maxDepth {
			return corrupt("thrift: nested too deeply")
		}
		defer func() { t.depth-- }()
		for i := uint64(0); i < n; i++ {
			for _, et := range [2]byte{kv >> 4, kv & 0x0f} {
				if et == tTrue || et == tFalse {
					if _, err := t.byte1(); err != nil {
						return err
					}
				} else if err := t.skip(et); err != nil {
					return err
				}
			}
		}
		return nil
	case tStruct:
		return t.structure(typ, func(_ int16, ft byte) error { return t.skip(ft) })
	}
	return corrupt("thrift: unknown type %d", typ)
}
