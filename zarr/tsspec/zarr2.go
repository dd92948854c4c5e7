package tsspec

import (
	"slices"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
)

// V2Constraints are the zarr2 driver's "metadata" member: the members of a
// .zarray, every one optional.
type V2Constraints struct {
	Rank               int // chunked rank implied by shape or chunks; -1 unknown
	Shape, Chunks      []int64
	DType              *dtype.DataType
	DTypeJSON          jsonx.RawMessage
	Compressor         jsonx.RawMessage // normalised; "null" for none
	Filters            jsonx.RawMessage
	FillValue          jsonx.RawMessage // as given ("null" allowed)
	Order              string
	DimensionSeparator string
}

func (s *Spec) parseV2Members(o *object) error {
	c := &V2Constraints{Rank: -1}
	s.V2 = c
	if raw, ok := o.get("metadata"); ok {
		if err := c.parse(raw); err != nil {
			return err
		}
	}
	if k, ok, err := o.string("metadata_key"); err != nil {
		return err
	} else if ok {
		if k == "" {
			return invalid("spec.metadata_key", "must not be empty")
		}
		s.MetadataKey = k
	}
	if k, ok, err := o.string("key_encoding"); err != nil {
		return err
	} else if ok {
		if k != "." && k != "/" {
			return invalid("spec.key_encoding", "must be \".\" or \"/\", got %q", k)
		}
		if c.DimensionSeparator != "" && c.DimensionSeparator != k {
			return invalid("spec.key_encoding", "value (%q) does not match value in metadata (%q)", k, c.DimensionSeparator)
		}
		c.DimensionSeparator = k
	}
	return nil
}

func (c *V2Constraints) parse(raw jsonx.RawMessage) error {
	o, err := newObject("spec.metadata", raw)
	if err != nil {
		return err
	}
	if f, ok, err := o.int("zarr_format", 2, 2); err != nil {
		return err
	} else if ok && f != 2 {
		return invalid(o.path("zarr_format"), "must be 2")
	}
	setRank := func(member string, n int) error {
		if c.Rank >= 0 && c.Rank != n {
			return invalid(o.path(member), "has %d entries; shape has %d", n, c.Rank)
		}
		c.Rank = n
		return nil
	}
	if raw, ok := o.get("shape"); ok {
		if c.Shape, err = parseInts(o.path("shape"), raw, 0, maxIndex); err != nil {
			return err
		}
		if err := setRank("shape", len(c.Shape)); err != nil {
			return err
		}
	}
	if raw, ok := o.get("chunks"); ok {
		if c.Chunks, err = parseInts(o.path("chunks"), raw, 1, maxIndex); err != nil {
			return err
		}
		if err := setRank("chunks", len(c.Chunks)); err != nil {
			return err
		}
	}
	if raw, ok := o.get("dtype"); ok {
		if c.DType, err = parseV2DType(o.path("dtype"), raw); err != nil {
			return err
		}
		c.DTypeJSON = raw
	}
	if raw, ok := o.get("compressor"); ok {
		if c.Compressor, err = normalizeCompressor(o.path("compressor"), raw); err != nil {
			return err
		}
	}
	if raw, ok := o.get("filters"); ok {
		if string(raw) != "null" {
			var l []jsonx.RawMessage
			if err := jsonx.UnmarshalStrict(raw, &l); err != nil {
				return invalid(o.path("filters"), "must be null or a list of codec objects")
			}
		}
		c.Filters = raw
	}
	if raw, ok := o.get("fill_value"); ok {
		if c.DType == nil {
			return invalid(o.path("fill_value"), "must be specified in conjunction with \"dtype\"")
		}
		if _, err := c.DType.ParseFillV2(raw); err != nil {
			return errs.Wrap(errs.InvalidMetadata, o.path("fill_value"), err, "")
		}
		c.FillValue = raw
	}
	if v, ok, err := o.string("order"); err != nil {
		return err
	} else if ok {
		if v != "C" && v != "F" {
			return invalid(o.path("order"), "must be \"C\" or \"F\", got %q", v)
		}
		c.Order = v
	}
	if v, ok, err := o.string("dimension_separator"); err != nil {
		return err
	} else if ok {
		if v != "." && v != "/" {
			return invalid(o.path("dimension_separator"), "must be \".\" or \"/\", got %q", v)
		}
		c.DimensionSeparator = v
	}
	return o.finish()
}

func parseV2DType(where string, raw jsonx.RawMessage) (*dtype.DataType, error) {
	t, err := dtype.ParseV2(raw)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, where, err, "")
	}
	return t, nil
}

// compressorDefaults are the members, with their defaults, of the
// compressors TensorStore's zarr2 driver knows; it fills them in.
var compressorDefaults = map[string]map[string]int64{
	"blosc": {"clevel": 5, "shuffle": -1, "blocksize": 0},
	"zlib":  {"level": 1},
	"gzip":  {"level": 1},
	"bz2":   {"level": 1},
	"zstd":  {"level": 1},
}

var compressorRanges = map[string][2]int64{
	"blosc.clevel": {0, 9}, "blosc.shuffle": {-1, 2}, "blosc.blocksize": {0, maxIndex},
	"zlib.level": {0, 9}, "gzip.level": {0, 9}, "bz2.level": {1, 9}, "zstd.level": {-131072, 22},
}

var bloscCnames = []string{"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"}

// normalizeCompressor checks a compressor object and fills in the defaults
// of TensorStore's compressors (blosc: cname lz4, clevel 5, shuffle -1,
// blocksize 0; zlib, gzip, bz2, zstd: level 1). Compressors TensorStore
// does not have (numcodecs' lz4, lzma, ...) are kept as given.
func normalizeCompressor(where string, raw jsonx.RawMessage) (jsonx.RawMessage, error) {
	if string(raw) == "null" {
		return raw, nil
	}
	var m map[string]any
	if err := jsonx.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, invalid(where, "must be null or an object with an \"id\", got %s", short(raw))
	}
	id, ok := m["id"].(string)
	if !ok {
		return nil, invalid(where+".id", "is required (a string)")
	}
	defaults, known := compressorDefaults[id]
	if !known {
		return canonicalJSON(m), nil
	}
	for k, v := range m {
		if k == "id" {
			continue
		}
		if id == "blosc" && k == "cname" {
			s, ok := v.(string)
			if !ok || !contains(bloscCnames, s) {
				return nil, invalid(where+".cname", "must be one of %v, got %v", bloscCnames, v)
			}
			continue
		}
		if _, ok := defaults[k]; !ok {
			names := []string{"id"}
			for n := range defaults {
				names = append(names, n)
			}
			if id == "blosc" {
				names = append(names, "cname")
			}
			return nil, unknownMember(where+"."+k, k, names, "unknown member of the %s compressor", id)
		}
		n, ok := v.(jsonx.Number)
		var iv int64
		var err error
		if ok {
			iv, err = n.Int64()
		}
		r := compressorRanges[id+"."+k]
		if !ok || err != nil || iv < r[0] || iv > r[1] {
			return nil, invalid(where+"."+k, "must be an integer in [%d, %d], got %v", r[0], r[1], v)
		}
		m[k] = iv
	}
	for k, d := range defaults {
		if _, ok := m[k]; !ok {
			m[k] = d
		}
	}
	if id == "blosc" {
		if _, ok := m["cname"]; !ok {
			m["cname"] = "lz4"
		}
	}
	return canonicalJSON(m), nil
}

func canonicalJSON(v any) jsonx.RawMessage {
	b, err := jsonx.Marshal(v, "")
	if err != nil {
		return jsonx.RawMessage("null")
	}
	return b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// V2Metadata is a complete .zarray, as stored or as created.
type V2Metadata struct {
	Shape, Chunks      []int64
	DType              *dtype.DataType
	DTypeJSON          jsonx.RawMessage
	Compressor         jsonx.RawMessage // normalised; "null" for none
	Filters            jsonx.RawMessage // "null" or a list
	Fill               dtype.Fill
	Order              string
	DimensionSeparator string // "" when the document has none
	// Extra holds members beyond the spec's, kept as read.
	Extra map[string]jsonx.RawMessage
}

// ParseV2Metadata reads a stored .zarray for comparison with constraints
// and for the schema (the engine parses it separately for reading).
func ParseV2Metadata(key string, data []byte) (*V2Metadata, error) {
	doc, err := jsonx.Object(data)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key, err, "not a JSON object")
	}
	m := &V2Metadata{Order: "C", Extra: map[string]jsonx.RawMessage{}}
	need := func(member string) (jsonx.RawMessage, error) {
		raw, ok := doc[member]
		if !ok {
			return nil, invalid(key, "missing member %q", member)
		}
		return raw, nil
	}
	for _, member := range []string{"zarr_format", "shape", "chunks", "dtype", "compressor", "fill_value", "order", "filters"} {
		raw, err := need(member)
		if err != nil {
			return nil, err
		}
		where := key + ": " + member
		switch member {
		case "zarr_format":
			if _, err := parseInt(where, raw, 2, 2); err != nil {
				return nil, err
			}
		case "shape":
			m.Shape, err = parseInts(where, raw, 0, maxIndex)
		case "chunks":
			m.Chunks, err = parseInts(where, raw, 1, maxIndex)
		case "dtype":
			m.DType, err = parseV2DType(where, raw)
			m.DTypeJSON = raw
		case "compressor":
			m.Compressor, err = normalizeCompressor(where, raw)
		case "fill_value":
			m.Fill, err = m.DType.ParseFillV2(raw)
			if err != nil {
				err = errs.Wrap(errs.InvalidMetadata, where, err, "")
			}
		case "order":
			if jsonx.UnmarshalStrict(raw, &m.Order) != nil || (m.Order != "C" && m.Order != "F") {
				err = invalid(where, "must be \"C\" or \"F\"")
			}
		case "filters":
			m.Filters = raw
		}
		if err != nil {
			return nil, err
		}
	}
	if len(m.Chunks) != len(m.Shape) {
		return nil, invalid(key+": chunks", "has %d entries, shape has %d", len(m.Chunks), len(m.Shape))
	}
	if raw, ok := doc["dimension_separator"]; ok && string(raw) != "null" {
		if jsonx.UnmarshalStrict(raw, &m.DimensionSeparator) != nil || (m.DimensionSeparator != "." && m.DimensionSeparator != "/") {
			return nil, invalid(key+": dimension_separator", "must be \".\" or \"/\"")
		}
	}
	for k, v := range doc {
		switch k {
		case "zarr_format", "shape", "chunks", "dtype", "compressor", "fill_value", "order", "filters", "dimension_separator":
		default:
			m.Extra[k] = v
		}
	}
	return m, nil
}

// FillJSON is the .zarray form of the fill value.
func (m *V2Metadata) FillJSON() any {
	v, err := m.DType.FillV2JSON(m.Fill)
	if err != nil {
		return nil
	}
	return v
}

// Document is the .zarray to store, as TensorStore writes it (with
// dimension_separator).
func (m *V2Metadata) Document() *meta.V2ArrayDocument {
	return &meta.V2ArrayDocument{
		Shape: m.Shape, Chunks: m.Chunks, DType: m.DTypeJSON, FillValue: m.FillJSON(), Order: m.Order,
		Compressor: m.Compressor, Filters: m.Filters, DimensionSeparator: m.DimensionSeparator, Extra: m.Extra,
	}
}

func int64sJSON(v []int64) []any {
	out := make([]any, len(v))
	for i, n := range v {
		out[i] = n
	}
	return out
}

// Field is one field of a zarr2 data type as TensorStore opens it: a
// scalar element type and the subarray dimensions it adds to the domain. A
// non-structured data type is one unnamed field.
type Field struct {
	Name   string
	Index  int
	Type   *dtype.DataType
	Shape  []int64
	Offset int
}

// Fields lists the fields TensorStore sees in a data type.
func Fields(t *dtype.DataType) []Field {
	if t.Kind != dtype.Struct {
		return []Field{{Type: t}}
	}
	out := make([]Field, len(t.Fields))
	for i, f := range t.Fields {
		sh := make([]int64, len(f.Shape))
		for j, n := range f.Shape {
			sh[j] = int64(n)
		}
		out[i] = Field{Name: f.Name, Index: i, Type: f.Type, Shape: sh, Offset: f.Offset}
	}
	return out
}

// SelectField picks the field a spec names ("" for the only one).
func SelectField(t *dtype.DataType, name string) (Field, error) {
	fields := Fields(t)
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	quoted, _ := jsonx.MarshalStrict(names)
	if name == "" {
		if len(fields) != 1 {
			return Field{}, errs.New(errs.InvalidMetadata, "spec.field", "Must specify a \"field\" that is one of: %s", quoted)
		}
		return fields[0], nil
	}
	if t.Kind != dtype.Struct {
		return Field{}, errs.New(errs.InvalidMetadata, "spec.field", "Requested field %q but dtype does not have named fields", name)
	}
	for _, f := range fields {
		if f.Name == name {
			if f.Type.Kind == dtype.Struct {
				return Field{}, unsupported("spec.field", "field %q is itself structured; TensorStore opens scalar fields only", name)
			}
			return f, nil
		}
	}
	return Field{}, errs.New(errs.NotFound, "spec.field", "Requested field %q is not one of: %s", name, quoted).WithSuggestion(name, names)
}

// TSDataType is TensorStore's name of an element type ("" when it has
// none: strings, datetimes, objects).
func TSDataType(t *dtype.DataType) string {
	if n := t.Numeric(); n != nil {
		return n.Name
	}
	return ""
}

// v2DTypeFor chooses the .zarray dtype of a TensorStore data type:
// little-endian NumPy typestrs, TensorStore's names for its extensions.
func v2DTypeFor(where, name string) (*dtype.DataType, jsonx.RawMessage, error) {
	n := dtype.LookupNumeric(name)
	var s string
	switch {
	case n == nil || name != n.Name:
		return nil, nil, unsupported(where, "Data type not supported: %s", name)
	case n.V2Ext:
		s = name
	case n.Typestr == "":
		return nil, nil, unsupported(where, "Data type not supported: %s", name)
	case n.Size == 1:
		s = "|" + n.Typestr
	default:
		s = "<" + n.Typestr
	}
	raw, _ := jsonx.MarshalStrict(s)
	t, err := dtype.ParseV2(raw)
	if err != nil {
		return nil, nil, errs.Wrap(errs.Unsupported, where, err, "")
	}
	return t, raw, nil
}

// mismatch is TensorStore's metadata mismatch error, naming the member.
func mismatch(member string, want, got any) error {
	return errs.New(errs.InvalidMetadata, "metadata."+member, "Expected %q of %s but received: %s", member, jsonText(want), jsonText(got))
}

func jsonText(v any) string {
	if r, ok := v.(jsonx.RawMessage); ok {
		return canonical(r)
	}
	b, err := jsonx.Marshal(v, "")
	if err != nil {
		return fmtx.Sprint(v)
	}
	return string(b)
}

// CheckV2 checks stored metadata against the spec's metadata and schema
// constraints and returns the field the spec opens.
func (s *Spec) CheckV2(m *V2Metadata) (Field, error) {
	c := s.V2
	if c == nil {
		c = &V2Constraints{Rank: -1}
	}
	if c.Shape != nil && !slices.Equal(c.Shape, m.Shape) {
		return Field{}, mismatch("shape", int64sJSON(c.Shape), int64sJSON(m.Shape))
	}
	if c.Chunks != nil && !slices.Equal(c.Chunks, m.Chunks) {
		return Field{}, mismatch("chunks", int64sJSON(c.Chunks), int64sJSON(m.Chunks))
	}
	if c.Compressor != nil && canonical(c.Compressor) != canonical(m.Compressor) {
		return Field{}, mismatch("compressor", c.Compressor, m.Compressor)
	}
	if c.Order != "" && c.Order != m.Order {
		return Field{}, mismatch("order", c.Order, m.Order)
	}
	if c.DType != nil && canonical(c.DTypeJSON) != canonical(m.DTypeJSON) {
		return Field{}, mismatch("dtype", c.DTypeJSON, m.DTypeJSON)
	}
	if c.FillValue != nil {
		f, err := m.DType.ParseFillV2(c.FillValue)
		if err != nil {
			return Field{}, errs.Wrap(errs.InvalidMetadata, "metadata.fill_value", err, "")
		}
		if !sameFill(f, m.Fill) {
			want, _ := m.DType.FillV2JSON(f)
			return Field{}, mismatch("fill_value", want, m.FillJSON())
		}
	}
	if c.Filters != nil && canonical(c.Filters) != canonical(m.Filters) {
		return Field{}, mismatch("filters", c.Filters, m.Filters)
	}
	if c.DimensionSeparator != "" && m.DimensionSeparator != "" && c.DimensionSeparator != m.DimensionSeparator {
		return Field{}, mismatch("dimension_separator", c.DimensionSeparator, m.DimensionSeparator)
	}
	f, err := SelectField(m.DType, s.Field)
	if err != nil {
		return Field{}, err
	}
	return f, s.checkV2Schema(m, f)
}

func sameFill(a, b dtype.Fill) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	return string(a.Bytes) == string(b.Bytes)
}

// BaseShape is the array's domain as TensorStore sees it: the chunked
// dimensions, then the field's subarray dimensions.
func (m *V2Metadata) BaseShape(f Field) []int64 {
	return append(append([]int64(nil), m.Shape...), f.Shape...)
}

// BaseChunks is the chunk shape over BaseShape (subarray dimensions whole).
func (m *V2Metadata) BaseChunks(f Field) []int64 {
	return append(append([]int64(nil), m.Chunks...), f.Shape...)
}

// innerOrder is the chunk layout's inner order over BaseShape: the chunked
// dimensions in C or F order, then the subarray dimensions.
func innerOrder(chunked, full int, order string) []int {
	p := make([]int, full)
	for i := range p {
		p[i] = i
	}
	if order == "F" {
		for i, j := 0, chunked-1; i < j; i, j = i+1, j-1 {
			p[i], p[j] = p[j], p[i]
		}
	}
	return p
}

// checkV2Schema checks the schema constraints (rank, dtype, domain, codec,
// fill value, chunk layout, units) against metadata.
func (s *Spec) checkV2Schema(m *V2Metadata, f Field) error {
	sc := &s.Schema
	b, err := s.checkRankDType(len(m.Shape)+len(f.Shape), f.Type)
	if err != nil {
		return err
	}
	if sc.Domain != nil {
		if err := b.checkDomain(sc.Domain, m.BaseShape(f), len(m.Shape)); err != nil {
			return err
		}
	}
	if sc.Codec != nil {
		if _, _, err := mergeCodec(sc.Codec, m.Compressor, m.Filters); err != nil {
			return errs.Wrap(errs.InvalidMetadata, "spec.schema.codec", err, "codec from metadata does not match codec in schema")
		}
	}
	if sc.FillValue != nil {
		if m.Fill.Null {
			return invalid("spec.schema.fill_value", "Invalid fill_value: schema requires fill value of %s, but metadata specifies no fill value", short(sc.FillValue))
		}
		want, err := s.schemaFill(f, b)
		if err != nil {
			return err
		}
		got := m.Fill.Bytes[f.Offset : f.Offset+len(want)]
		if m.DType.Kind != dtype.Struct {
			got = m.Fill.Bytes
		}
		if string(want) != string(got) {
			return invalid("spec.schema.fill_value", "Invalid fill_value: schema requires fill value of %s, but metadata specifies another", short(sc.FillValue))
		}
	}
	if cl := sc.ChunkLayout; cl != nil {
		if err := b.checkChunkLayout(cl, m, f); err != nil {
			return err
		}
	}
	if sc.hasUnits() {
		return invalid("spec.schema.dimension_units", "Dimension units not supported by zarr driver")
	}
	return nil
}

// checkRankDType checks the schema's rank and data type against an array
// of full dimensions and element type t, and maps the spec's dimensions to
// the array's.
func (s *Spec) checkRankDType(full int, t *dtype.DataType) (baseMap, error) {
	rank := full
	if s.Transform != nil {
		rank = s.Transform.Domain.Rank
		if len(s.Transform.Output) != full {
			return baseMap{}, invalid("spec.transform", "has %d output dimensions; the array has %d", len(s.Transform.Output), full)
		}
	}
	if s.Schema.Rank >= 0 && s.Schema.Rank != rank {
		return baseMap{}, invalid("spec.rank", "Rank is %d, but schema specifies rank of %d", rank, s.Schema.Rank)
	}
	if s.Schema.DType != "" && s.Schema.DType != TSDataType(t) {
		return baseMap{}, invalid("spec.dtype", "dtype from metadata (%s) does not match dtype in schema (%s)", nameOr(t), s.Schema.DType)
	}
	return s.baseMap(full), nil
}

func nameOr(t *dtype.DataType) string {
	if n := TSDataType(t); n != "" {
		return n
	}
	return t.String()
}

// mergeCodec merges a schema codec into a compressor and filters (either
// may be nil: unconstrained), failing where both are given and differ.
func mergeCodec(codec map[string]jsonx.RawMessage, compressor, filters jsonx.RawMessage) (jsonx.RawMessage, jsonx.RawMessage, error) {
	var driver string
	if err := jsonx.UnmarshalStrict(codec["driver"], &driver); err != nil {
		return nil, nil, invalid("spec.schema.codec.driver", "is required")
	}
	if driver != "zarr" && driver != "zarr2" {
		return nil, nil, invalid("spec.schema.codec.driver", "Cannot merge codec spec with driver %q into the zarr driver's", driver)
	}
	for k := range codec {
		if k != "driver" && k != "compressor" && k != "filters" {
			return nil, nil, unknownMember("spec.schema.codec."+k, k, []string{"driver", "compressor", "filters"}, "unknown member")
		}
	}
	if raw, ok := codec["compressor"]; ok {
		c, err := normalizeCompressor("spec.schema.codec.compressor", raw)
		if err != nil {
			return nil, nil, err
		}
		if compressor != nil && canonical(compressor) != canonical(c) {
			return nil, nil, invalid("spec.schema.codec.compressor", "\"compressor\" does not match")
		}
		compressor = c
	}
	if raw, ok := codec["filters"]; ok && string(raw) != "null" {
		if filters != nil && string(filters) != "null" && canonical(filters) != canonical(raw) {
			return nil, nil, invalid("spec.schema.codec.filters", "\"filters\" does not match")
		}
		filters = raw
	}
	return compressor, filters, nil
}

// baseMap relates the spec's (transformed) dimensions to the array's.
type baseMap struct {
	toInput []int   // per array dimension: the input dimension, or -1
	offset  []int64 // per array dimension: array index = input index + offset
	rank    int     // input rank
}

func (s *Spec) baseMap(full int) baseMap {
	b := baseMap{toInput: make([]int, full), offset: make([]int64, full), rank: full}
	if s.Transform == nil {
		for d := range b.toInput {
			b.toInput[d] = d
		}
		return b
	}
	b.rank = s.Transform.Domain.Rank
	for d, m := range s.Transform.Output {
		if d >= full {
			break
		}
		b.toInput[d] = m.InputDim
		b.offset[d] = m.Offset
	}
	return b
}

// checkDomain checks a schema domain (over the input dimensions) against
// the array's base shape: zero origins, equal upper bounds where given.
func (b baseMap) checkDomain(dom *Domain, shape []int64, chunked int) error {
	for d, i := range b.toInput {
		if i < 0 {
			continue
		}
		if dom.InclusiveMin != nil {
			lo := dom.InclusiveMin[i]
			if !lo.Infinite && lo.Value+b.offset[d] != 0 && !(lo.Implicit && d < chunked) {
				return invalid("spec.schema.domain", "domain from metadata does not match domain in schema: dimension %d starts at %d, the array at 0", i, lo.Value+b.offset[d])
			}
		}
		if dom.ExclusiveMax != nil {
			hi := dom.ExclusiveMax[i]
			if !hi.Infinite && hi.Value+b.offset[d] != shape[d] {
				return invalid("spec.schema.domain", "domain from metadata does not match domain in schema: dimension %d ends at %d, the array at %d", i, hi.Value+b.offset[d], shape[d])
			}
		}
	}
	return nil
}

// gridConstraints combines a chunk layout's chunk, read_chunk and
// write_chunk (zarr has one level of chunking) over the array dimensions.
type gridConstraints struct {
	shape    []int64
	soft     []int64
	aspect   []float64
	elements int64
}

func (b baseMap) combineGrids(cl *ChunkLayout, full int) (gridConstraints, error) {
	g := gridConstraints{shape: make([]int64, full), soft: make([]int64, full), aspect: make([]float64, full)}
	if cl == nil {
		return g, nil
	}
	if len(cl.CodecChunk.Shape) > 0 {
		for _, n := range cl.CodecChunk.Shape {
			if n > 0 {
				return g, invalid("spec.schema.chunk_layout.codec_chunk", "codec_chunk_shape not supported")
			}
		}
	}
	for d, i := range b.toInput {
		if i < 0 {
			continue
		}
		for _, src := range []Grid{cl.Chunk, cl.ReadChunk, cl.WriteChunk} {
			if i < len(src.Shape) && src.Shape[i] != 0 {
				n := src.Shape[i]
				if n == -1 {
					g.soft[d] = -1
					continue
				}
				if g.shape[d] != 0 && g.shape[d] != n {
					return g, invalid("spec.schema.chunk_layout", "write_chunk constraints not compatible with existing read_chunk constraints (dimension %d: %d and %d)", i, g.shape[d], n)
				}
				g.shape[d] = n
			}
			if i < len(src.ShapeSoft) && src.ShapeSoft[i] != 0 && g.soft[d] == 0 {
				g.soft[d] = src.ShapeSoft[i]
			}
			if i < len(src.AspectRatio) && src.AspectRatio[i] != 0 && g.aspect[d] == 0 {
				g.aspect[d] = src.AspectRatio[i]
			}
		}
		for _, src := range []Grid{cl.Chunk, cl.ReadChunk, cl.WriteChunk} {
			if i < len(src.AspectRatioSoft) && src.AspectRatioSoft[i] != 0 && g.aspect[d] == 0 {
				g.aspect[d] = src.AspectRatioSoft[i]
			}
		}
	}
	for _, src := range []Grid{cl.ReadChunk, cl.WriteChunk, cl.Chunk} {
		if src.Elements != 0 && g.elements == 0 {
			g.elements = src.Elements
		}
	}
	for _, src := range []Grid{cl.ReadChunk, cl.WriteChunk, cl.Chunk} {
		if src.ElementsSoft != 0 && g.elements == 0 {
			g.elements = src.ElementsSoft
		}
	}
	for d, i := range b.toInput {
		if i < 0 {
			continue
		}
		if cl.GridOrigin != nil && cl.GridOrigin[i] != nil && *cl.GridOrigin[i]+b.offset[d] != 0 {
			return g, invalid("spec.schema.chunk_layout.grid_origin", "the zarr chunk grid starts at 0; dimension %d asks for %d", i, *cl.GridOrigin[i])
		}
	}
	return g, nil
}

// innerOrderConstraint maps a chunk layout's inner_order to the array
// dimensions (hard reports whether it is a hard constraint).
func (b baseMap) innerOrderConstraint(cl *ChunkLayout) (order []int, hard bool) {
	if cl == nil {
		return nil, false
	}
	src, hard := cl.InnerOrder, true
	if src == nil {
		src, hard = cl.InnerOrderSoft, false
	}
	if src == nil {
		return nil, false
	}
	inputToBase := map[int]int{}
	for d, i := range b.toInput {
		if i >= 0 {
			inputToBase[i] = d
		}
	}
	for _, i := range src {
		order = append(order, inputToBase[i])
	}
	return order, hard
}

func (b baseMap) checkChunkLayout(cl *ChunkLayout, m *V2Metadata, f Field) error {
	full := len(m.Shape) + len(f.Shape)
	g, err := b.combineGrids(cl, full)
	if err != nil {
		return err
	}
	chunks := m.BaseChunks(f)
	for d, n := range g.shape {
		if n != 0 && n != chunks[d] {
			return invalid("spec.schema.chunk_layout", "chunk shape from metadata %v does not match chunk layout (dimension %d: %d)", chunks, b.toInput[d], n)
		}
	}
	if order, hard := b.innerOrderConstraint(cl); hard {
		have := innerOrder(len(m.Shape), full, m.Order)
		for i := range order {
			if i >= len(have) || order[i] != have[i] {
				return invalid("spec.schema.chunk_layout.inner_order", "inner order from metadata %v does not match %v", have, cl.InnerOrder)
			}
		}
	}
	return nil
}

// schemaFill converts the schema's fill_value to one field element (bytes
// of f.Type, broadcast over the field's subarray shape).
func (s *Spec) schemaFill(f Field, b baseMap) ([]byte, error) {
	where := "spec.schema.fill_value"
	vals, shape, err := nestedValues(where, s.Schema.FillValue)
	if err != nil {
		return nil, err
	}
	// The schema's dimensions are the input dimensions; broadcast against
	// the field's subarray dimensions in input order.
	chunked := len(b.toInput) - len(f.Shape)
	target := make([]int64, 0, len(f.Shape))
	if s.Transform != nil && !s.Transform.IsIdentity() && len(shape) > 0 {
		return nil, unsupported(where, "a non-scalar fill_value together with a transform is not supported")
	}
	target = append(target, f.Shape...)
	_ = chunked
	if len(shape) > len(target) {
		// Leading dimensions of extent 1 broadcast over chunked dimensions.
		extra := shape[:len(shape)-len(target)]
		for _, n := range extra {
			if n != 1 {
				return nil, invalid(where, "shape %v cannot be broadcast to the field shape %v", shape, f.Shape)
			}
		}
		shape = shape[len(shape)-len(target):]
	}
	n := int64(1)
	for _, x := range target {
		n *= x
	}
	size := f.Type.Size
	out := make([]byte, int(n)*size)
	off := len(target) - len(shape)
	for k := int64(0); k < n; k++ {
		// Index of element k in target, mapped to the source by broadcasting.
		src, stride, rem := int64(0), int64(1), k
		idx := make([]int64, len(target))
		for d := len(target) - 1; d >= 0; d-- {
			idx[d] = rem % target[d]
			rem /= target[d]
		}
		for d := len(shape) - 1; d >= 0; d-- {
			t := target[d+off]
			switch shape[d] {
			case t:
				src += idx[d+off] * stride
			case 1:
			default:
				return nil, invalid(where, "shape %v cannot be broadcast to the field shape %v", shape, f.Shape)
			}
			stride *= shape[d]
		}
		fill, err := f.Type.FillFromValue(vals[src])
		if err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, where, err, "Invalid fill_value")
		}
		copy(out[int(k)*size:], fill.Bytes)
	}
	return out, nil
}

// nestedValues flattens a JSON scalar or nested list (C order) and returns
// its shape.
func nestedValues(where string, raw jsonx.RawMessage) ([]any, []int64, error) {
	var v any
	if err := jsonx.Unmarshal(raw, &v); err != nil {
		return nil, nil, invalid(where, "is not valid JSON")
	}
	var shape []int64
	for x := v; ; {
		l, ok := x.([]any)
		if !ok {
			break
		}
		shape = append(shape, int64(len(l)))
		if len(l) == 0 || len(shape) > MaxRank {
			return nil, nil, invalid(where, "must be a scalar or a non-empty nested list")
		}
		x = l[0]
	}
	var flat []any
	var walk func(x any, d int) error
	walk = func(x any, d int) error {
		if d == len(shape) {
			if _, isList := x.([]any); isList {
				return invalid(where, "is not a regular nested list")
			}
			flat = append(flat, x)
			return nil
		}
		l, ok := x.([]any)
		if !ok || int64(len(l)) != shape[d] {
			return invalid(where, "is not a regular nested list")
		}
		for _, e := range l {
			if err := walk(e, d+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(v, 0); err != nil {
		return nil, nil, err
	}
	return flat, shape, nil
}

// NewV2Metadata computes the .zarray of a new array from the spec's
// metadata and schema constraints, with TensorStore's defaults: dtype from
// the schema (little endian), the domain from the metadata shape, the
// schema domain or the transform, the chunk shape chosen from the chunk
// layout (aspect ratio, elements: 2^20 by default), compressor blosc (lz4,
// clevel 5, shuffle -1), order C unless inner_order asks for F, fill_value
// null unless given, dimension_separator ".".
func (s *Spec) NewV2Metadata() (*V2Metadata, Field, error) {
	c := s.V2
	if c == nil {
		c = &V2Constraints{Rank: -1}
	}
	fail := func(err error) (*V2Metadata, Field, error) {
		return nil, Field{}, errs.Wrap(errs.InvalidMetadata, "spec", err, "Cannot create using specified \"metadata\" and schema")
	}
	m := &V2Metadata{DimensionSeparator: ".", Order: "C", Extra: map[string]jsonx.RawMessage{}, Filters: jsonx.RawMessage("null")}
	if c.DimensionSeparator != "" {
		m.DimensionSeparator = c.DimensionSeparator
	}
	var f Field
	var err error
	if c.DType != nil {
		m.DType, m.DTypeJSON = c.DType, c.DTypeJSON
		if f, err = SelectField(m.DType, s.Field); err != nil {
			return nil, Field{}, err
		}
	} else {
		if s.Field != "" {
			return fail(invalid("spec.metadata.dtype", "\"dtype\" must be specified in \"metadata\" if \"field\" is specified"))
		}
		if s.Schema.DType == "" {
			return fail(invalid("spec.dtype", "\"dtype\" must be specified"))
		}
		if m.DType, m.DTypeJSON, err = v2DTypeFor("spec.dtype", s.Schema.DType); err != nil {
			return fail(err)
		}
		f = Fields(m.DType)[0]
	}
	fieldRank := len(f.Shape)
	full := -1
	if s.Transform != nil {
		full = len(s.Transform.Output)
	} else if s.Schema.Rank >= 0 {
		full = s.Schema.Rank
	}
	chunked := c.Rank
	if full < 0 && chunked >= 0 {
		full = chunked + fieldRank
	}
	if full >= 0 && (full < fieldRank || chunked >= 0 && chunked+fieldRank != full) {
		return fail(invalid("spec.rank", "Rank specified by schema (%d) is not compatible with metadata", full))
	}
	if full < 0 {
		return fail(invalid("spec", "domain must be specified"))
	}
	chunked = full - fieldRank
	b := s.baseMap(full)

	// The domain: the metadata shape, the field's subarray, the schema
	// domain and the transform's bounds must agree where they overlap.
	ext := make([]int64, full)
	for d := range ext {
		ext[d] = -1
	}
	set := func(d int, n int64, what string) error {
		if ext[d] >= 0 && ext[d] != n {
			return invalid("spec", "Invalid domain: %s gives extent %d for dimension %d, which is %d", what, n, d, ext[d])
		}
		ext[d] = n
		return nil
	}
	for d, n := range c.Shape {
		ext[d] = n
	}
	for j, n := range f.Shape {
		ext[chunked+j] = n
	}
	if dom := s.Schema.Domain; dom != nil {
		for d, i := range b.toInput {
			if i < 0 {
				continue
			}
			if dom.InclusiveMin != nil && !dom.InclusiveMin[i].Infinite && dom.InclusiveMin[i].Value+b.offset[d] != 0 {
				return fail(invalid("spec.schema.domain", "Invalid domain: zarr arrays start at 0; dimension %d starts at %d", i, dom.InclusiveMin[i].Value+b.offset[d]))
			}
			if dom.ExclusiveMax != nil && !dom.ExclusiveMax[i].Infinite {
				if err := set(d, dom.ExclusiveMax[i].Value+b.offset[d], "the schema domain"); err != nil {
					return fail(err)
				}
			}
		}
	}
	if t := s.Transform; t != nil {
		for d, i := range b.toInput {
			if i < 0 || t.Domain.ExclusiveMax == nil || t.Domain.ExclusiveMax[i].Infinite || t.Domain.ExclusiveMax[i].Implicit {
				continue
			}
			lo := int64(0)
			if t.Domain.InclusiveMin != nil && !t.Domain.InclusiveMin[i].Infinite {
				lo = t.Domain.InclusiveMin[i].Value + b.offset[d]
			}
			if lo == 0 {
				if err := set(d, t.Domain.ExclusiveMax[i].Value+b.offset[d], "the transform"); err != nil {
					return fail(err)
				}
			}
		}
	}
	for _, n := range ext {
		if n < 0 {
			return fail(invalid("spec", "domain must be specified"))
		}
	}
	m.Shape = append([]int64{}, ext[:chunked]...)

	// The chunk shape.
	g, err := b.combineGrids(s.Schema.ChunkLayout, full)
	if err != nil {
		return fail(err)
	}
	for d, n := range c.Chunks {
		if g.shape[d] != 0 && g.shape[d] != n {
			return fail(invalid("spec.metadata.chunks", "%v does not match the chunk layout's shape in dimension %d (%d)", c.Chunks, d, g.shape[d]))
		}
		g.shape[d] = n
	}
	for j, n := range f.Shape {
		d := chunked + j
		if g.shape[d] != 0 && g.shape[d] != n {
			return fail(invalid("spec.schema.chunk_layout", "subarray dimension %d is chunked whole (%d), not %d", d, n, g.shape[d]))
		}
		g.shape[d] = max(n, 1)
	}
	for d := range g.shape {
		if g.shape[d] == 0 && g.soft[d] != 0 {
			g.shape[d] = g.soft[d]
		}
	}
	m.Chunks = ChooseChunkShape(ext, g.shape, g.aspect, g.elements)[:chunked]

	// Compressor and filters: the metadata's, merged with the schema codec;
	// blosc when neither says.
	comp, filters := c.Compressor, c.Filters
	if s.Schema.Codec != nil {
		if comp, filters, err = mergeCodec(s.Schema.Codec, comp, filters); err != nil {
			return fail(err)
		}
	}
	if comp == nil {
		comp, _ = normalizeCompressor("", jsonx.RawMessage(`{"id":"blosc"}`))
	}
	m.Compressor = comp
	if filters != nil {
		m.Filters = filters
	}

	// Order: the metadata's, or from the inner_order constraint.
	order, hard := b.innerOrderConstraint(s.Schema.ChunkLayout)
	m.Order = c.Order
	if m.Order == "" {
		m.Order = "C"
		if order != nil {
			switch {
			case slices.Equal(order, innerOrder(chunked, full, "C")):
			case slices.Equal(order, innerOrder(chunked, full, "F")):
				m.Order = "F"
			case hard:
				return fail(invalid("spec.schema.chunk_layout.inner_order", "Invalid \"inner_order\" constraint: %v", s.Schema.ChunkLayout.InnerOrder))
			}
		}
	} else if hard && !slices.Equal(order, innerOrder(chunked, full, m.Order)) {
		return fail(invalid("spec.schema.chunk_layout.inner_order", "%v does not match order %q", s.Schema.ChunkLayout.InnerOrder, m.Order))
	}

	// Fill value: the metadata's, or the schema's (one field only), or null.
	switch {
	case c.FillValue != nil:
		if m.Fill, err = m.DType.ParseFillV2(c.FillValue); err != nil {
			return fail(errs.Wrap(errs.InvalidMetadata, "spec.metadata.fill_value", err, ""))
		}
	case s.Schema.FillValue != nil:
		if len(Fields(m.DType)) > 1 {
			return fail(invalid("spec.schema.fill_value", "Cannot specify fill_value through schema for structured zarr data type %s", canonical(m.DTypeJSON)))
		}
		elem, err := s.schemaFill(f, b)
		if err != nil {
			return fail(err)
		}
		fill := make([]byte, m.DType.Size)
		copy(fill[f.Offset:], elem)
		m.Fill = dtype.Fill{Bytes: fill}
	default:
		m.Fill = m.DType.ZeroFill()
	}
	if err := s.checkV2Schema(m, f); err != nil {
		return fail(err)
	}
	return m, f, nil
}

// V2Schema is the Schema JSON of field f of an array with metadata m, seen
// through view v (nil: the whole domain, untransformed).
func V2Schema(m *V2Metadata, f Field, v *View) map[string]any {
	codec := map[string]any{"driver": "zarr", "compressor": jsonx.RawMessage(m.Compressor), "filters": jsonx.RawMessage(m.Filters)}
	chunked := len(m.Shape)
	return schemaJSON(m.BaseShape(f), chunked, m.BaseChunks(f), innerOrder(chunked, chunked+len(f.Shape), m.Order),
		codec, TSDataType(f.Type), fieldFill(m, f), f, v)
}

// fieldFill returns the fill value of field f (nil when it is null).
func fieldFill(m *V2Metadata, f Field) []byte {
	if m.Fill.Null {
		return nil
	}
	n := f.Type.Size
	for _, x := range f.Shape {
		n *= int(x)
	}
	if m.DType.Kind != dtype.Struct {
		return m.Fill.Bytes
	}
	return m.Fill.Bytes[f.Offset : f.Offset+n]
}

// schemaJSON assembles a Schema: the base (array) dimensions are the
// chunked ones followed by the subarray ones; v maps them to the opened
// dimensions.
func schemaJSON(shape []int64, chunked int, chunks []int64, inner []int, codec map[string]any, dt string, fill []byte, f Field, v *View) map[string]any {
	full := len(shape)
	if v == nil {
		v = DefaultView(shape, chunked, nil)
	}
	out := map[string]any{"rank": v.Rank, "codec": codec}
	if dt != "" {
		out["dtype"] = dt
	} else {
		out["dtype"] = f.Type.String()
	}
	if v.Rank == 0 {
		out["domain"] = map[string]any{"rank": 0}
		out["chunk_layout"] = map[string]any{"rank": 0}
	} else {
		vj := v.JSON(full)
		dom := map[string]any{"inclusive_min": vj["input_inclusive_min"], "exclusive_max": vj["input_exclusive_max"]}
		if l, ok := vj["input_labels"]; ok {
			dom["labels"] = l
		}
		out["domain"] = dom
		origin := make([]any, v.Rank)
		cs := make([]any, v.Rank)
		baseToInput := make([]int, full)
		for d := range baseToInput {
			baseToInput[d] = -1
		}
		for i := 0; i < v.Rank; i++ {
			origin[i] = -v.Offset[i]
			if chunks != nil {
				cs[i] = chunks[v.ToBase[i]]
			}
			baseToInput[v.ToBase[i]] = i
		}
		var order []any
		for _, d := range inner {
			if baseToInput[d] >= 0 {
				order = append(order, baseToInput[d])
			}
		}
		out["chunk_layout"] = map[string]any{
			"grid_origin": origin, "inner_order": order,
			"read_chunk": map[string]any{"shape": cs}, "write_chunk": map[string]any{"shape": cs},
		}
	}
	if fill != nil {
		out["fill_value"] = fillJSONArray(f, fill, chunked, v)
	}
	return out
}

// DefaultView is the untransformed view of an array: zero origin, the
// chunked dimensions resizable, labels as given.
func DefaultView(shape []int64, chunked int, labels []string) *View {
	n := len(shape)
	v := &View{Rank: n, Origin: make([]int64, n), Extent: append([]int64(nil), shape...), ImplicitUpper: make([]bool, n),
		Labels: make([]string, n), ToBase: make([]int, n), Offset: make([]int64, n), Fixed: map[int]int64{}}
	copy(v.Labels, labels)
	for i := range v.ToBase {
		v.ToBase[i] = i
		v.ImplicitUpper[i] = i < chunked
	}
	return v
}

// fillJSONArray writes the field's fill value as TensorStore reports it:
// over the opened dimensions in their order, extent 1 where a dimension is
// chunked (the value is broadcast), leading extent-1 dimensions dropped.
func fillJSONArray(f Field, fill []byte, chunked int, v *View) any {
	// The subarray element of each opened dimension.
	shape := make([]int64, v.Rank)
	sub := make([]int, v.Rank) // subarray dimension index or -1
	for i := 0; i < v.Rank; i++ {
		d := v.ToBase[i]
		shape[i], sub[i] = 1, -1
		if d >= chunked {
			shape[i], sub[i] = f.Shape[d-chunked], d-chunked
		}
	}
	start := 0
	for start < len(shape) && shape[start] == 1 {
		start++
	}
	// Strides of the subarray (C order) and the fixed subarray indices.
	stride := make([]int64, len(f.Shape))
	acc := int64(1)
	for j := len(f.Shape) - 1; j >= 0; j-- {
		stride[j] = acc
		acc *= f.Shape[j]
	}
	base := int64(0)
	for d, c := range v.Fixed {
		if d >= chunked {
			base += c * stride[d-chunked]
		}
	}
	size := f.Type.Size
	scalar := func(k int64) any {
		b := fill[int(k)*size : int(k+1)*size]
		j, err := f.Type.FillV2JSON(dtype.Fill{Bytes: b})
		if err != nil {
			return nil
		}
		return j
	}
	var build func(i int, k int64) any
	build = func(i int, k int64) any {
		if i == len(shape) {
			return scalar(k)
		}
		if i < start {
			return build(i+1, k)
		}
		l := make([]any, shape[i])
		for x := range l {
			kk := k
			if sub[i] >= 0 {
				kk += int64(x) * stride[sub[i]]
			}
			l[x] = build(i+1, kk)
		}
		return l
	}
	return build(0, base)
}

// V2Spec is the Spec JSON that reopens field f of an array with metadata m
// through view v: the driver, kvstore (when known), full metadata, dtype,
// transform, and the options that differ from their defaults.
func (s *Spec) V2Spec(m *V2Metadata, f Field, v *View) map[string]any {
	out := map[string]any{"driver": "zarr", "metadata": m.Document().Members()}
	s.commonSpec(out, TSDataType(f.Type), v, len(m.Shape)+len(f.Shape))
	if f.Name != "" {
		out["field"] = f.Name
	}
	if s.MetadataKey != ".zarray" {
		out["metadata_key"] = s.MetadataKey
	}
	return out
}

func (s *Spec) commonSpec(out map[string]any, dt string, v *View, full int) {
	if s.KvStore != nil {
		out["kvstore"] = s.KvStore.JSON()
	}
	if dt != "" {
		out["dtype"] = dt
	}
	if v != nil {
		if v.Rank == 0 {
			out["transform"] = map[string]any{"input_rank": 0}
		} else {
			out["transform"] = v.JSON(full)
		}
	}
	if !s.FillMissingDataReads {
		out["fill_missing_data_reads"] = false
	}
	if s.StoreDataEqualToFillValue {
		out["store_data_equal_to_fill_value"] = true
	}
	if s.AssumeMetadata {
		out["assume_metadata"] = true
	}
	if s.RecheckCachedData != nil {
		out["recheck_cached_data"] = s.RecheckCachedData
	}
	if s.RecheckCachedMetadata != nil {
		out["recheck_cached_metadata"] = s.RecheckCachedMetadata
	}
	if s.CacheBytes >= 0 {
		out["cache_pool"] = map[string]any{"total_bytes_limit": s.CacheBytes}
	}
}

// Compatible reports whether o describes the same array as m but for its
// shape (TensorStore accepts a resize by another writer, nothing else).
func (m *V2Metadata) Compatible(o *V2Metadata) bool {
	a, b := m.Document().Members(), o.Document().Members()
	delete(a, "shape")
	delete(b, "shape")
	return jsonText(a) == jsonText(b)
}
