package icechunk

import (
	"encoding/binary"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// A bounded reader of FlatBuffers data, just what Icechunk's schemas use:
// tables (through their vtables), scalars with defaults, structs inline in
// tables, offsets to tables, strings and vectors (of bytes, scalars,
// structs, tables and strings), and unions (a type byte beside an offset).
// Every read is checked against the buffer: an offset or a vector length
// that points outside it sets the reader's error (the first one is kept),
// and from then on every read returns zero values and absent fields, so
// callers walk a whole structure and check err once at the end. Nothing
// allocates in proportion to a length read from the data: vectors are
// (position, count) pairs whose count is checked against the bytes left.
// Reading follows no offset twice on its own, so corrupt data cannot make
// it loop: the caller's walk over a fixed schema bounds the work. What
// offsets may share (two tables pointing at one long string or vector) is
// bounded by charge: the strings copied and the elements walked may add
// up to twice the buffer's size, which a file without sharing never
// passes, so a small file cannot make a large amount of work or memory.
type fbReader struct {
	b     []byte
	err   error
	spent int
}

// charge counts n units of work or memory against the buffer's size;
// false (and the reader's error) once they pass it twice over.
func (r *fbReader) charge(n int) bool {
	r.spent += n
	if r.err == nil && r.spent > 2*len(r.b)+4096 {
		r.fail("the buffer's offsets share data: it refers to more than it holds (%d bytes)", len(r.b))
	}
	return r.err == nil
}

// fbTable is a table: where it starts, where its vtable is, the vtable's
// size and the table's inline size, both in bytes. The zero value is a
// table without fields (what reads return after an error).
type fbTable struct {
	at, vt, vtSize, size int
}

// fbVec is a vector: the position of its first element and its length.
type fbVec struct {
	at, n int
}

func (r *fbReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmtx.Errorf(format, args...)
	}
}

// has reports whether n bytes at at lie in the buffer (and notes an error
// when they do not).
func (r *fbReader) has(at, n int, what string) bool {
	if r.err != nil {
		return false
	}
	if at < 0 || n < 0 || at > len(r.b) || n > len(r.b)-at {
		r.fail("%s at byte %d (%d bytes) lies outside the %d-byte buffer", what, at, n, len(r.b))
		return false
	}
	return true
}

func (r *fbReader) u32(at int) uint32 {
	if !r.has(at, 4, "a 32-bit value") {
		return 0
	}
	return binary.LittleEndian.Uint32(r.b[at:])
}

// root is the buffer's root table.
func (r *fbReader) root() fbTable { return r.table(int(r.u32(0)), "the root table") }

// table reads the table that starts at at.
func (r *fbReader) table(at int, what string) fbTable {
	if !r.has(at, 4, what) {
		return fbTable{}
	}
	vt := at - int(int32(binary.LittleEndian.Uint32(r.b[at:])))
	if !r.has(vt, 4, "the vtable of "+what) {
		return fbTable{}
	}
	vtSize := int(binary.LittleEndian.Uint16(r.b[vt:]))
	size := int(binary.LittleEndian.Uint16(r.b[vt+2:]))
	if vtSize < 4 || vtSize%2 != 0 || size < 4 {
		r.fail("the vtable of %s at byte %d is malformed (size %d, table size %d)", what, vt, vtSize, size)
		return fbTable{}
	}
	if !r.has(vt, vtSize, "the vtable of "+what) || !r.has(at, size, what) {
		return fbTable{}
	}
	return fbTable{at: at, vt: vt, vtSize: vtSize, size: size}
}

// field returns the position of field i (its n bytes inside the table),
// or -1 when the table does not have it.
func (r *fbReader) field(t fbTable, i, n int) int {
	slot := 4 + 2*i
	if r.err != nil || slot+2 > t.vtSize {
		return -1
	}
	off := int(binary.LittleEndian.Uint16(r.b[t.vt+slot:]))
	if off == 0 {
		return -1
	}
	if off < 4 || off+n > t.size {
		r.fail("field %d of the table at byte %d lies outside the table", i, t.at)
		return -1
	}
	return t.at + off
}

func (r *fbReader) fieldU8(t fbTable, i int, def uint8) uint8 {
	if p := r.field(t, i, 1); p >= 0 {
		return r.b[p]
	}
	return def
}

func (r *fbReader) fieldU32(t fbTable, i int, def uint32) uint32 {
	if p := r.field(t, i, 4); p >= 0 {
		return binary.LittleEndian.Uint32(r.b[p:])
	}
	return def
}

func (r *fbReader) fieldU64(t fbTable, i int, def uint64) uint64 {
	if p := r.field(t, i, 8); p >= 0 {
		return binary.LittleEndian.Uint64(r.b[p:])
	}
	return def
}

// fieldStruct returns the n bytes of a struct field, or nil when absent.
func (r *fbReader) fieldStruct(t fbTable, i, n int) []byte {
	if p := r.field(t, i, n); p >= 0 {
		return r.b[p : p+n]
	}
	return nil
}

// deref follows the offset at p (an offset field or a vector element) to
// the position it points at.
func (r *fbReader) deref(p int) int {
	off := int(r.u32(p))
	if r.err != nil {
		return -1
	}
	if off == 0 || !r.has(p+off, 4, "an offset's target") {
		r.fail("the offset at byte %d points outside the buffer", p)
		return -1
	}
	return p + off
}

// fieldTable returns the table an offset field points at; ok is false
// when the field is absent.
func (r *fbReader) fieldTable(t fbTable, i int, what string) (fbTable, bool) {
	p := r.field(t, i, 4)
	if p < 0 {
		return fbTable{}, false
	}
	at := r.deref(p)
	if at < 0 {
		return fbTable{}, false
	}
	tt := r.table(at, what)
	return tt, r.err == nil
}

// vecAt reads the vector at at whose elements are elem bytes each.
func (r *fbReader) vecAt(at, elem int, what string) fbVec {
	n := int(r.u32(at))
	if r.err != nil {
		return fbVec{}
	}
	if n > (len(r.b)-at-4)/elem {
		r.fail("%s at byte %d claims %d elements of %d bytes, more than the buffer holds", what, at, n, elem)
		return fbVec{}
	}
	return fbVec{at: at + 4, n: n}
}

// fieldVec returns the vector a field points at (elem bytes an element);
// ok is false when the field is absent.
func (r *fbReader) fieldVec(t fbTable, i, elem int, what string) (fbVec, bool) {
	p := r.field(t, i, 4)
	if p < 0 {
		return fbVec{}, false
	}
	at := r.deref(p)
	if at < 0 {
		return fbVec{}, false
	}
	v := r.vecAt(at, elem, what)
	return v, r.err == nil
}

// fieldBytes returns a [ubyte] field (a sub-slice of the buffer).
func (r *fbReader) fieldBytes(t fbTable, i int, what string) ([]byte, bool) {
	v, ok := r.fieldVec(t, i, 1, what)
	if !ok {
		return nil, false
	}
	return r.b[v.at : v.at+v.n], true
}

// fieldString returns a string field.
func (r *fbReader) fieldString(t fbTable, i int, what string) (string, bool) {
	b, ok := r.fieldBytes(t, i, what)
	if !r.charge(len(b)) {
		return "", false
	}
	return string(b), ok
}

// tableIn returns element j of a vector of tables.
func (r *fbReader) tableIn(v fbVec, j int, what string) fbTable {
	if j < 0 || j >= v.n {
		r.fail("element %d of a %d-element vector of %s", j, v.n, what)
		return fbTable{}
	}
	at := r.deref(v.at + 4*j)
	if at < 0 {
		return fbTable{}
	}
	return r.table(at, what)
}

// stringIn returns element j of a vector of strings.
func (r *fbReader) stringIn(v fbVec, j int, what string) string {
	if j < 0 || j >= v.n {
		r.fail("element %d of a %d-element vector of %s", j, v.n, what)
		return ""
	}
	at := r.deref(v.at + 4*j)
	if at < 0 {
		return ""
	}
	s := r.vecAt(at, 1, what)
	if !r.charge(s.n) {
		return ""
	}
	return string(r.b[s.at : s.at+s.n])
}
