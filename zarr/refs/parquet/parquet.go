// Package parquet is a small Parquet reader for exactly what fsspec
// reference sets need: flat files of INT32/INT64 and BYTE_ARRAY columns,
// required or optional, read whole into memory.
//
// It reads the Thrift compact FileMetaData and page headers; data pages v1
// and v2 and dictionary pages; the PLAIN, PLAIN_DICTIONARY/RLE_DICTIONARY,
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
// BYTE_STREAM_SPLIT encodings; RLE / bit-packed hybrid definition levels;
// and UNCOMPRESSED, SNAPPY, GZIP and ZSTD pages. Repeated (nested list)
// columns, BOOLEAN/INT96/FLOAT/DOUBLE values, encrypted files, columns kept
// in other files and the LZO, BROTLI and LZ4 codecs are errs.Unsupported;
// malformed files are errs.InvalidMetadata. Every size a file declares is
// checked against its length or a limit before anything is allocated, so a
// hostile file costs at most MaxRows rows.
//
// It exists instead of a general Parquet library to keep the WebAssembly
// build small (see zarr/refs/README.md for the measurements).
package parquet

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// MaxRows bounds the rows of a file the reader accepts by default (fsspec's
// record files hold 10 000 or 100 000).
const MaxRows = 1 << 24

// MaxPageSize bounds the decompressed size of a page by default
// (fastparquet writes a column chunk as one page; a raw column of 100 000
// inlined 500-byte chunks is 50 MB).
const MaxPageSize = 256 << 20

// Limits bound what a file may make the reader allocate.
type Limits struct {
	Rows     int // 0: MaxRows
	PageSize int // 0: MaxPageSize
}

var magic = []byte("PAR1")

func corrupt(format string, args ...any) error {
	return errs.New(errs.InvalidMetadata, "", "corrupt Parquet: "+format, args...)
}

func unsupported(format string, args ...any) error {
	return errs.New(errs.Unsupported, "", "Parquet: "+format, args...)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// File is an opened Parquet file held in memory.
type File struct {
	limits    Limits
	data      []byte
	meta      *fileMeta
	leaves    []leaf
	footerPos int
}

// leaf is a column of the schema.
type leaf struct {
	name     string // dotted path
	typ      int32
	typeLen  int32
	maxDef   int
	repeated bool
}

// Open parses the footer of a whole Parquet file.
func Open(data []byte) (*File, error) { return OpenLimits(data, Limits{}) }

// OpenLimits is Open with other limits.
func OpenLimits(data []byte, lim Limits) (*File, error) {
	if lim.Rows <= 0 || lim.Rows > MaxRows {
		lim.Rows = MaxRows
	}
	if lim.PageSize <= 0 {
		lim.PageSize = MaxPageSize
	}
	if len(data) < 12 || !bytes.Equal(data[:4], magic) || !bytes.Equal(data[len(data)-4:], magic) {
		if len(data) >= 4 && bytes.Equal(data[len(data)-4:], []byte("PARE")) {
			return nil, unsupported("encrypted files are not supported")
		}
		return nil, corrupt("not a Parquet file (no PAR1 magic)")
	}
	n := binary.LittleEndian.Uint32(data[len(data)-8:])
	if uint64(n) > uint64(len(data)-12) {
		return nil, corrupt("footer of %d bytes in a %d-byte file", n, len(data))
	}
	pos := len(data) - 8 - int(n)
	fm, err := readFileMeta(data[pos : len(data)-8])
	if err != nil {
		return nil, err
	}
	f := &File{limits: lim, data: data, meta: fm, footerPos: pos}
	if fm.numRows < 0 || fm.numRows > int64(lim.Rows) {
		return nil, corrupt("%d rows (at most %d are read)", fm.numRows, lim.Rows)
	}
	if err := f.flatten(); err != nil {
		return nil, err
	}
	var sum int64
	for _, rg := range fm.rowGroups {
		if rg.numRows < 0 || rg.numRows > int64(lim.Rows) {
			return nil, corrupt("row group of %d rows", rg.numRows)
		}
		sum += rg.numRows
		if len(rg.columns) != len(f.leaves) {
			return nil, corrupt("row group has %d columns, the schema %d", len(rg.columns), len(f.leaves))
		}
	}
	if sum != fm.numRows {
		return nil, corrupt("row groups hold %d rows, the file says %d", sum, fm.numRows)
	}
	return f, nil
}

// flatten walks the schema tree (depth first, as Parquet stores it) and
// records every leaf column with its definition level.
func (f *File) flatten() error {
	s := f.meta.schema
	if len(s) == 0 {
		return corrupt("empty schema")
	}
	pos := 1
	var walk func(prefix string, children int32, def int, rep bool, depth int) error
	walk = func(prefix string, children int32, def int, rep bool, depth int) error {
		if depth > maxDepth {
			return corrupt("schema nested too deeply")
		}
		for c := int32(0); c < children; c++ {
			if pos >= len(s) {
				return corrupt("schema has fewer elements than its groups claim")
			}
			e := s[pos]
			pos++
			d, r := def, rep
			switch e.repetition {
			case repOptional:
				d++
			case repRepeated:
				d++
				r = true
			}
			name := e.name
			if prefix != "" {
				name = prefix + "." + name
			}
			if e.numChildren > 0 {
				if err := walk(name, e.numChildren, d, r, depth+1); err != nil {
					return err
				}
				continue
			}
			if e.numChildren < 0 {
				return corrupt("schema element %q has %d children", e.name, e.numChildren)
			}
			f.leaves = append(f.leaves, leaf{name: name, typ: e.typ, typeLen: e.typeLength, maxDef: d, repeated: r})
		}
		return nil
	}
	if s[0].numChildren < 0 {
		return corrupt("root has %d children", s[0].numChildren)
	}
	if err := walk("", s[0].numChildren, 0, false, 0); err != nil {
		return err
	}
	if pos != len(s) {
		return corrupt("schema has %d elements, its groups claim %d", len(s), pos)
	}
	return nil
}

// NumRows is the number of rows.
func (f *File) NumRows() int { return int(f.meta.numRows) }

// Columns lists the leaf columns by name (nested ones dotted).
func (f *File) Columns() []string {
	out := make([]string, len(f.leaves))
	for i, l := range f.leaves {
		out[i] = l.name
	}
	return out
}

// HasColumn reports whether the file has a column of that name.
func (f *File) HasColumn(name string) bool { return f.leafIndex(name) >= 0 }

func (f *File) leafIndex(name string) int {
	for i, l := range f.leaves {
		if l.name == name {
			return i
		}
	}
	return -1
}

// Column holds the values of one column, one per row.
type Column struct {
	// Ints holds INT32 and INT64 values (null rows hold 0).
	Ints []int64
	// Bytes holds BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY values (null rows
	// hold nil). Values may share memory with each other (dictionaries)
	// and with the file.
	Bytes [][]byte
	// Valid reports, per row, whether the value is present; nil when every
	// row is.
	Valid []bool
}

// Null reports whether row i is null.
func (c *Column) Null(i int) bool { return c.Valid != nil && !c.Valid[i] }

// Column decodes every row of the named column.
func (f *File) Column(name string) (*Column, error) {
	li := f.leafIndex(name)
	if li < 0 {
		return nil, errs.New(errs.NotFound, name, "no such column (the file has %s)", strings.Join(f.Columns(), ", "))
	}
	l := f.leaves[li]
	if l.repeated {
		return nil, unsupported("column %q is repeated (nested lists are not supported)", name)
	}
	isInt := l.typ == typeInt32 || l.typ == typeInt64
	isBytes := l.typ == typeByteArray || l.typ == typeFixed
	if !isInt && !isBytes {
		return nil, unsupported("column %q has type %s (only INT32, INT64 and byte arrays are read)", name, typeName(l.typ))
	}
	if l.typ == typeFixed && (l.typeLen <= 0 || l.typeLen > 1<<20) {
		return nil, corrupt("column %q: FIXED_LEN_BYTE_ARRAY of length %d", name, l.typeLen)
	}
	rows := f.NumRows()
	c := &Column{}
	if isInt {
		c.Ints = make([]int64, 0, rows)
	} else {
		c.Bytes = make([][]byte, 0, rows)
	}
	if l.maxDef > 0 {
		c.Valid = make([]bool, 0, rows)
	}
	for gi, rg := range f.meta.rowGroups {
		cc := rg.columns[li]
		if err := f.readChunk(&l, cc, int(rg.numRows), c); err != nil {
			return nil, wrapColumn(err, name, gi)
		}
	}
	if c.Valid != nil {
		all := true
		for _, v := range c.Valid {
			all = all && v
		}
		if all {
			c.Valid = nil
		}
	}
	return c, nil
}

func wrapColumn(err error, name string, rg int) error {
	var e *errs.Error
	if ee, ok := err.(*errs.Error); ok {
		e = &errs.Error{Code: ee.Code, Where: ee.Where, Msg: ee.Msg, Suggest: ee.Suggest, Err: ee.Err}
		e.Msg = "column " + strconv.Quote(name) + ", row group " + strconv.Itoa(rg) + ": " + e.Msg
		return e
	}
	return err
}

// chunkState is the decoding state of one column chunk.
type chunkState struct {
	l       *leaf
	codec   int32
	dict    *Column // dictionary values (no nulls)
	out     *Column
	rows    int // rows this chunk must deliver
	maxPage int
	got     int // rows delivered
	levels  []uint32
}

func (f *File) readChunk(l *leaf, cc columnChunk, rows int, out *Column) error {
	if cc.filePath != "" {
		return unsupported("column data in another file (%q)", cc.filePath)
	}
	m := cc.meta
	if m == nil {
		return corrupt("column chunk without metadata")
	}
	if m.typ != l.typ {
		return corrupt("column chunk of type %s in a %s column", typeName(m.typ), typeName(l.typ))
	}
	switch m.codec {
	case codecNone, codecSnappy, codecGzip, codecZstd:
	default:
		return unsupported("%s compression is not supported", codecName(m.codec))
	}
	start := m.dataOffset
	if m.dictOffset > 0 && m.dictOffset < start {
		start = m.dictOffset
	}
	end := start + m.compressedSize
	if start < 4 || m.compressedSize < 0 || end > int64(f.footerPos) || end < start {
		return corrupt("column chunk at %d..%d outside the data (%d bytes)", start, end, f.footerPos)
	}
	st := &chunkState{l: l, codec: m.codec, out: out, rows: rows, maxPage: f.limits.PageSize}
	b := f.data[start:end]
	pos := 0
	for st.got < rows {
		if pos >= len(b) {
			return corrupt("column chunk ends after %d of %d rows", st.got, rows)
		}
		t := &thrift{b: b, pos: pos}
		ph, err := readPageHeader(t)
		if err != nil {
			return err
		}
		pos = t.pos
		if int(ph.compressedSize) > len(b)-pos {
			return corrupt("page of %d bytes past the end of its column chunk", ph.compressedSize)
		}
		payload := b[pos : pos+int(ph.compressedSize)]
		pos += int(ph.compressedSize)
		switch ph.typ {
		case pageDictionary:
			err = st.dictionaryPage(ph, payload)
		case pageData:
			err = st.dataPageV1(ph, payload)
		case pageDataV2:
			err = st.dataPageV2(ph, payload)
		default:
			continue // index pages and unknown pages carry no values
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (st *chunkState) dictionaryPage(ph *pageHeader, payload []byte) error {
	if !ph.hasHeader {
		return corrupt("dictionary page without a header")
	}
	if ph.encoding != encPlain && ph.encoding != encPlainDictionary {
		return unsupported("dictionary page with %s encoding", encodingName(ph.encoding))
	}
	if int(ph.numValues) > st.rows {
		return corrupt("dictionary of %d values for %d rows", ph.numValues, st.rows)
	}
	data, err := decompress(st.codec, payload, int(ph.uncompressedSize), st.maxPage)
	if err != nil {
		return err
	}
	d := &Column{}
	if err := decodePlain(st.l, data, int(ph.numValues), d); err != nil {
		return err
	}
	st.dict = d
	return nil
}

func (st *chunkState) dataPageV1(ph *pageHeader, payload []byte) error {
	if !ph.hasHeader {
		return corrupt("data page without a header")
	}
	n := int(ph.numValues)
	if n > st.rows-st.got {
		return corrupt("data page of %d values where %d rows remain", n, st.rows-st.got)
	}
	data, err := decompress(st.codec, payload, int(ph.uncompressedSize), st.maxPage)
	if err != nil {
		return err
	}
	pos := 0
	nonNull := n
	levels := st.levelBuf(n)
	if st.l.maxDef > 0 {
		switch ph.defEncoding {
		case encRLE:
			if len(data) < 4 {
				return corrupt("definition levels past the end")
			}
			ln := binary.LittleEndian.Uint32(data)
			if uint64(ln) > uint64(len(data)-4) {
				return corrupt("definition levels of %d bytes past the end", ln)
			}
			if _, err := rleHybrid(data[4:4+ln], bitWidth(st.l.maxDef), levels); err != nil {
				return err
			}
			pos = 4 + int(ln)
		case encBitPacked:
			return unsupported("BIT_PACKED definition levels (deprecated) are not supported")
		default:
			return unsupported("definition levels with %s encoding", encodingName(ph.defEncoding))
		}
		nonNull = st.countDefined(levels)
	}
	return st.values(ph.encoding, data[pos:], n, nonNull, levels)
}

func (st *chunkState) dataPageV2(ph *pageHeader, payload []byte) error {
	if !ph.hasHeader {
		return corrupt("data page without a header")
	}
	n := int(ph.numValues)
	if n > st.rows-st.got {
		return corrupt("data page of %d values where %d rows remain", n, st.rows-st.got)
	}
	if ph.repLength > 0 {
		return unsupported("repetition levels (nested lists) are not supported")
	}
	ll := int(ph.defLength)
	if ll > len(payload) {
		return corrupt("definition levels of %d bytes past the end", ll)
	}
	levels := st.levelBuf(n)
	nonNull := n
	if st.l.maxDef > 0 {
		if _, err := rleHybrid(payload[:ll], bitWidth(st.l.maxDef), levels); err != nil {
			return err
		}
		nonNull = st.countDefined(levels)
	} else if ll != 0 {
		return corrupt("definition levels in a required column")
	}
	vals := payload[ll:]
	if ph.isCompressed && st.codec != codecNone {
		size := int(ph.uncompressedSize) - ll
		if size < 0 {
			return corrupt("page smaller than its levels")
		}
		var err error
		if vals, err = decompress(st.codec, vals, size, st.maxPage); err != nil {
			return err
		}
	}
	return st.values(ph.encoding, vals, n, nonNull, levels)
}

func (st *chunkState) levelBuf(n int) []uint32 {
	if st.l.maxDef == 0 {
		return nil
	}
	if cap(st.levels) < n {
		st.levels = make([]uint32, n)
	}
	return st.levels[:n]
}

func (st *chunkState) countDefined(levels []uint32) int {
	k := 0
	for _, v := range levels {
		if int(v) == st.l.maxDef {
			k++
		}
	}
	return k
}

// values decodes nonNull values and spreads them over n rows by levels.
func (st *chunkState) values(enc int32, data []byte, n, nonNull int, levels []uint32) error {
	vals := &Column{}
	switch enc {
	case encPlain:
		if err := decodePlain(st.l, data, nonNull, vals); err != nil {
			return err
		}
	case encPlainDictionary, encRLEDictionary:
		if st.dict == nil {
			return corrupt("dictionary-encoded page without a dictionary page")
		}
		if nonNull > 0 {
			if len(data) < 1 {
				return corrupt("dictionary indices past the end")
			}
			idx := make([]uint32, nonNull)
			if _, err := rleHybrid(data[1:], int(data[0]), idx); err != nil {
				return err
			}
			dn := max(len(st.dict.Ints), len(st.dict.Bytes))
			for _, i := range idx {
				if int(i) >= dn {
					return corrupt("dictionary index %d of a %d-entry dictionary", i, dn)
				}
			}
			if st.dict.Ints != nil {
				vals.Ints = make([]int64, nonNull)
				for k, i := range idx {
					vals.Ints[k] = st.dict.Ints[i]
				}
			} else {
				vals.Bytes = make([][]byte, nonNull)
				for k, i := range idx {
					vals.Bytes[k] = st.dict.Bytes[i]
				}
			}
		}
	case encDeltaBinary:
		if st.l.typ != typeInt32 && st.l.typ != typeInt64 {
			return corrupt("DELTA_BINARY_PACKED in a %s column", typeName(st.l.typ))
		}
		v, _, err := deltaBinary(data, nonNull)
		if err != nil {
			return err
		}
		if st.l.typ == typeInt32 {
			for i := range v {
				v[i] = int64(int32(v[i]))
			}
		}
		vals.Ints = v
	case encDeltaLengthBytes:
		if st.l.typ != typeByteArray {
			return corrupt("DELTA_LENGTH_BYTE_ARRAY in a %s column", typeName(st.l.typ))
		}
		v, _, err := deltaLengthBytes(data, nonNull)
		if err != nil {
			return err
		}
		vals.Bytes = v
	case encDeltaBytes:
		if st.l.typ != typeByteArray && st.l.typ != typeFixed {
			return corrupt("DELTA_BYTE_ARRAY in a %s column", typeName(st.l.typ))
		}
		v, err := deltaBytes(data, nonNull)
		if err != nil {
			return err
		}
		vals.Bytes = v
	case encByteStreamSplit:
		if err := byteStreamSplit(st.l, data, nonNull, vals); err != nil {
			return err
		}
	default:
		return unsupported("%s encoding is not supported", encodingName(enc))
	}
	if got := max(len(vals.Ints), len(vals.Bytes)); got != nonNull {
		return corrupt("page holds %d values, its levels %d", got, nonNull)
	}
	out := st.out
	if levels == nil {
		out.Ints = append(out.Ints, vals.Ints...)
		out.Bytes = append(out.Bytes, vals.Bytes...)
	} else {
		k := 0
		for _, lv := range levels {
			ok := int(lv) == st.l.maxDef
			out.Valid = append(out.Valid, ok)
			if out.Ints != nil || vals.Ints != nil {
				var v int64
				if ok {
					v = vals.Ints[k]
				}
				out.Ints = append(out.Ints, v)
			} else {
				var v []byte
				if ok {
					v = vals.Bytes[k]
				}
				out.Bytes = append(out.Bytes, v)
			}
			if ok {
				k++
			}
		}
	}
	st.got += n
	return nil
}

// decodePlain decodes n PLAIN values.
func decodePlain(l *leaf, data []byte, n int, out *Column) error {
	switch l.typ {
	case typeInt32:
		if len(data)/4 < n {
			return corrupt("%d INT32 values in %d bytes", n, len(data))
		}
		out.Ints = make([]int64, n)
		for i := range out.Ints {
			out.Ints[i] = int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
		}
	case typeInt64:
		if len(data)/8 < n {
			return corrupt("%d INT64 values in %d bytes", n, len(data))
		}
		out.Ints = make([]int64, n)
		for i := range out.Ints {
			out.Ints[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
	case typeByteArray:
		if len(data)/4 < n {
			return corrupt("%d byte arrays in %d bytes", n, len(data))
		}
		out.Bytes = make([][]byte, n)
		pos := 0
		for i := range out.Bytes {
			if len(data)-pos < 4 {
				return corrupt("byte array length past the end")
			}
			ln := binary.LittleEndian.Uint32(data[pos:])
			pos += 4
			if uint64(ln) > uint64(len(data)-pos) {
				return corrupt("byte array of %d bytes past the end", ln)
			}
			out.Bytes[i] = data[pos : pos+int(ln) : pos+int(ln)]
			pos += int(ln)
		}
	case typeFixed:
		w := int(l.typeLen)
		if len(data)/w < n {
			return corrupt("%d fixed-length values in %d bytes", n, len(data))
		}
		out.Bytes = make([][]byte, n)
		for i := range out.Bytes {
			out.Bytes[i] = data[i*w : (i+1)*w : (i+1)*w]
		}
	default:
		return unsupported("%s values are not supported", typeName(l.typ))
	}
	return nil
}

func deltaLengthBytes(data []byte, n int) ([][]byte, int, error) {
	lens, pos, err := deltaBinary(data, n)
	if err != nil {
		return nil, 0, err
	}
	if len(lens) != n {
		return nil, 0, corrupt("DELTA_LENGTH_BYTE_ARRAY: %d lengths for %d values", len(lens), n)
	}
	out := make([][]byte, n)
	for i, ln := range lens {
		if ln < 0 || ln > int64(len(data)-pos) {
			return nil, 0, corrupt("DELTA_LENGTH_BYTE_ARRAY: value of %d bytes past the end", ln)
		}
		out[i] = data[pos : pos+int(ln) : pos+int(ln)]
		pos += int(ln)
	}
	return out, pos, nil
}

func deltaBytes(data []byte, n int) ([][]byte, error) {
	prefixes, pos, err := deltaBinary(data, n)
	if err != nil {
		return nil, err
	}
	if len(prefixes) != n {
		return nil, corrupt("DELTA_BYTE_ARRAY: %d prefixes for %d values", len(prefixes), n)
	}
	suffixes, _, err := deltaLengthBytes(data[pos:], n)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, n)
	var prev []byte
	for i := range out {
		p := prefixes[i]
		if p < 0 || p > int64(len(prev)) {
			return nil, corrupt("DELTA_BYTE_ARRAY: prefix of %d bytes after a %d-byte value", p, len(prev))
		}
		v := make([]byte, 0, int(p)+len(suffixes[i]))
		v = append(append(v, prev[:p]...), suffixes[i]...)
		out[i] = v
		prev = v
	}
	return out, nil
}

func byteStreamSplit(l *leaf, data []byte, n int, out *Column) error {
	var w int
	switch l.typ {
	case typeInt32:
		w = 4
	case typeInt64:
		w = 8
	case typeFixed:
		w = int(l.typeLen)
	default:
		return unsupported("BYTE_STREAM_SPLIT for %s values", typeName(l.typ))
	}
	if len(data)/w < n {
		return corrupt("BYTE_STREAM_SPLIT: %d values in %d bytes", n, len(data))
	}
	buf := make([]byte, n*w)
	for i := 0; i < n; i++ {
		for k := 0; k < w; k++ {
			buf[i*w+k] = data[k*n+i]
		}
	}
	return decodePlain(l, buf, n, out)
}
