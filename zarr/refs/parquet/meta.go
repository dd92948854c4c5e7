package parquet

// The parts of Parquet's Thrift definitions (parquet.thrift) the reader
// uses, with their field ids. Everything else is skipped.

// Physical types.
const (
	typeBoolean   = 0
	typeInt32     = 1
	typeInt64     = 2
	typeInt96     = 3
	typeFloat     = 4
	typeDouble    = 5
	typeByteArray = 6
	typeFixed     = 7
)

var typeNames = []string{"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"}

func typeName(t int32) string {
	if t >= 0 && int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "type " + itoa(int64(t))
}

// Repetition types.
const (
	repRequired = 0
	repOptional = 1
	repRepeated = 2
)

// Encodings.
const (
	encPlain            = 0
	encPlainDictionary  = 2
	encRLE              = 3
	encBitPacked        = 4
	encDeltaBinary      = 5
	encDeltaLengthBytes = 6
	encDeltaBytes       = 7
	encRLEDictionary    = 8
	encByteStreamSplit  = 9
)

var encodingNames = map[int32]string{
	0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED",
	5: "DELTA_BINARY_PACKED", 6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY",
	8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT",
}

func encodingName(e int32) string {
	if s, ok := encodingNames[e]; ok {
		return s
	}
	return "encoding " + itoa(int64(e))
}

// Compression codecs.
const (
	codecNone   = 0
	codecSnappy = 1
	codecGzip   = 2
	codecLZO    = 3
	codecBrotli = 4
	codecLZ4    = 5
	codecZstd   = 6
	codecLZ4Raw = 7
)

var codecNames = []string{"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"}

func codecName(c int32) string {
	if c >= 0 && int(c) < len(codecNames) {
		return codecNames[c]
	}
	return "codec " + itoa(int64(c))
}

// Page types.
const (
	pageData       = 0
	pageIndex      = 1
	pageDictionary = 2
	pageDataV2     = 3
)

type schemaElement struct {
	typ         int32 // -1 for groups
	typeLength  int32
	repetition  int32
	name        string
	numChildren int32
}

type columnMeta struct {
	typ            int32
	path           []string
	codec          int32
	numValues      int64
	compressedSize int64
	dataOffset     int64
	dictOffset     int64 // 0: none
}

type columnChunk struct {
	filePath string
	meta     *columnMeta
}

type rowGroup struct {
	columns []columnChunk
	numRows int64
}

type fileMeta struct {
	schema    []schemaElement
	numRows   int64
	rowGroups []rowGroup
	createdBy string
}

func readFileMeta(b []byte) (*fileMeta, error) {
	t := &thrift{b: b}
	fm := &fileMeta{}
	err := t.structure(tStruct, func(id int16, typ byte) error {
		var err error
		switch id {
		case 2:
			return t.list(typ, func(et byte) error {
				se, err := readSchemaElement(t, et)
				if err == nil {
					fm.schema = append(fm.schema, se)
				}
				return err
			})
		case 3:
			fm.numRows, err = t.int(typ)
		case 4:
			return t.list(typ, func(et byte) error {
				rg, err := readRowGroup(t, et)
				if err == nil {
					fm.rowGroups = append(fm.rowGroups, rg)
				}
				return err
			})
		case 6:
			var s []byte
			s, err = t.binary(typ)
			fm.createdBy = string(s)
		default:
			err = t.skip(typ)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return fm, nil
}

func readSchemaElement(t *thrift, typ byte) (schemaElement, error) {
	se := schemaElement{typ: -1, repetition: repRequired}
	err := t.structure(typ, func(id int16, ft byte) error {
		var err error
		switch id {
		case 1:
			se.typ, err = t.int32(ft)
		case 2:
			se.typeLength, err = t.int32(ft)
		case 3:
			se.repetition, err = t.int32(ft)
		case 4:
			var s []byte
			s, err = t.binary(ft)
			se.name = string(s)
		case 5:
			se.numChildren, err = t.int32(ft)
		default:
			err = t.skip(ft)
		}
		return err
	})
	return se, err
}

func readRowGroup(t *thrift, typ byte) (rowGroup, error) {
	var rg rowGroup
	err := t.structure(typ, func(id int16, ft byte) error {
		var err error
		switch id {
		case 1:
			return t.list(ft, func(et byte) error {
				cc, err := readColumnChunk(t, et)
				if err == nil {
					rg.columns = append(rg.columns, cc)
				}
				return err
			})
		case 3:
			rg.numRows, err = t.int(ft)
		default:
			err = t.skip(ft)
		}
		return err
	})
	return rg, err
}

func readColumnChunk(t *thrift, typ byte) (columnChunk, error) {
	var cc columnChunk
	err := t.structure(typ, func(id int16, ft byte) error {
		var err error
		switch id {
		case 1:
			var s []byte
			s, err = t.binary(ft)
			cc.filePath = string(s)
		case 3:
			cc.meta, err = readColumnMeta(t, ft)
		default:
			err = t.skip(ft)
		}
		return err
	})
	return cc, err
}

func readColumnMeta(t *thrift, typ byte) (*columnMeta, error) {
	cm := &columnMeta{typ: -1}
	err := t.structure(typ, func(id int16, ft byte) error {
		var err error
		switch id {
		case 1:
			cm.typ, err = t.int32(ft)
		case 3:
			return t.list(ft, func(et byte) error {
				s, err := t.binary(et)
				cm.path = append(cm.path, string(s))
				return err
			})
		case 4:
			cm.codec, err = t.int32(ft)
		case 5:
			cm.numValues, err = t.int(ft)
		case 7:
			cm.compressedSize, err = t.int(ft)
		case 9:
			cm.dataOffset, err = t.int(ft)
		case 11:
			cm.dictOffset, err = t.int(ft)
		default:
			err = t.skip(ft)
		}
		return err
	})
	return cm, err
}

type pageHeader struct {
	typ              int32
	uncompressedSize int32
	compressedSize   int32

	// data page (v1 and v2), dictionary page
	numValues int32
	encoding  int32
	hasHeader bool

	// v1
	defEncoding int32
	repEncoding int32

	// v2
	numNulls     int32
	defLength    int32
	repLength    int32
	isCompressed bool
}

func readPageHeader(t *thrift) (*pageHeader, error) {
	ph := &pageHeader{typ: -1, isCompressed: true, defEncoding: encRLE, repEncoding: encRLE}
	err := t.structure(tStruct, func(id int16, ft byte) error {
		var err error
		switch id {
		case 1:
			ph.typ, err = t.int32(ft)
		case 2:
			ph.uncompressedSize, err = t.int32(ft)
		case 3:
			ph.compressedSize, err = t.int32(ft)
		case 5: // DataPageHeader
			ph.hasHeader = true
			err = t.structure(ft, func(id int16, ft byte) error {
				var err error
				switch id {
				case 1:
					ph.numValues, err = t.int32(ft)
				case 2:
					ph.encoding, err = t.int32(ft)
				case 3:
					ph.defEncoding, err = t.int32(ft)
				case 4:
					ph.repEncoding, err = t.int32(ft)
				default:
					err = t.skip(ft)
				}
				return err
			})
		case 7: // DictionaryPageHeader
			ph.hasHeader = true
			err = t.structure(ft, func(id int16, ft byte) error {
				var err error
				switch id {
				case 1:
					ph.numValues, err = t.int32(ft)
				case 2:
					ph.encoding, err = t.int32(ft)
				default:
					err = t.skip(ft)
				}
				return err
			})
		case 8: // DataPageHeaderV2
			ph.hasHeader = true
			err = t.structure(ft, func(id int16, ft byte) error {
				var err error
				switch id {
				case 1:
					ph.numValues, err = t.int32(ft)
				case 2:
					ph.numNulls, err = t.int32(ft)
				case 4:
					ph.encoding, err = t.int32(ft)
				case 5:
					ph.defLength, err = t.int32(ft)
				case 6:
					ph.repLength, err = t.int32(ft)
				case 7:
					ph.isCompressed, err = t.boolean(ft)
				default:
					err = t.skip(ft)
				}
				return err
			})
		default:
			err = t.skip(ft)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if ph.uncompressedSize < 0 || ph.compressedSize < 0 || ph.numValues < 0 ||
		ph.defLength < 0 || ph.repLength < 0 || ph.numNulls < 0 {
		return nil, corrupt("negative size in a page header")
	}
	return ph, nil
}
