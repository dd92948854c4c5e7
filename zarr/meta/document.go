// The documents the engine writes: a new array's .zarray or zarr.json, a
// group's .zgroup or zarr.json, attributes, consolidated metadata. Every
// one is built here (creating nodes, TensorStore specs, SetAttrs,
// Consolidate and resizing call these), as zarr-python writes it: keys
// sorted, indented 4 spaces (v2) or 2 (v3), NaN and the infinities as bare
// tokens.

package meta

import (
	"strconv"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The indentation of each format's documents.
const (
	indentV2 = "    "
	indentV3 = "  "
)

// V2ArrayDocument is a .zarray document. The members that hold JSON values
// take what jsonx.Marshal writes: Go values (maps, lists, numbers, strings)
// are written out indented, a jsonx.RawMessage as it is (the text of a
// spec's or a stored document's member).
type V2ArrayDocument struct {
	Shape, Chunks []int64
	// DType is a NumPy typestr or a structured descr list.
	DType     any
	FillValue any
	// Order is "C" or "F".
	Order string
	// Compressor is a numcodecs config; nil writes null (no compressor).
	Compressor any
	// Filters is a list of numcodecs configs; nil writes null.
	Filters any
	// DimensionSeparator "" leaves the member out (readers take ".").
	DimensionSeparator string
	// Extra holds members beyond the spec's, kept as read.
	Extra map[string]jsonx.RawMessage
}

// Members returns the document's members.
func (d *V2ArrayDocument) Members() map[string]any {
	doc := make(map[string]any, len(d.Extra)+9)
	for k, v := range d.Extra {
		doc[k] = v
	}
	doc["zarr_format"] = 2
	doc["shape"] = intsJSON(d.Shape)
	doc["chunks"] = intsJSON(d.Chunks)
	doc["dtype"] = d.DType
	doc["fill_value"] = d.FillValue
	doc["order"] = d.Order
	doc["compressor"] = d.Compressor
	doc["filters"] = d.Filters
	if d.DimensionSeparator != "" {
		doc["dimension_separator"] = d.DimensionSeparator
	}
	return doc
}

// Marshal writes the document.
func (d *V2ArrayDocument) Marshal() ([]byte, error) { return jsonx.Marshal(d.Members(), indentV2) }

// V3ArrayDocument is an array's zarr.json. JSON values are written as for
// V2ArrayDocument; a nil optional member is left out.
type V3ArrayDocument struct {
	Shape            any // a list of integers
	DataType         any
	ChunkGrid        any
	ChunkKeyEncoding any
	FillValue        any
	Codecs           any
	// Optional members.
	Attributes, StorageTransformers, DimensionNames any
}

// NewV3ArrayDocument is the zarr.json of a new array: chunkGrid as
// RegularGrid or RectilinearGrid give it, the default chunk key encoding
// with keySep, codecs as V3CodecsForWriting gives them, attributes ({} for
// none), no storage transformers, dimension names when dimNames is not nil
// ("" stands for an unnamed dimension).
func NewV3ArrayDocument(shape []int, dt *dtype.DataType, chunkGrid any, keySep string, fill dtype.Fill, codecs []any,
	attrs map[string]any, dimNames []string) (*V3ArrayDocument, error) {
	dtJSON, err := dt.V3JSON()
	if err != nil {
		return nil, err
	}
	fillJSON, err := dt.FillV3JSON(fill)
	if err != nil {
		return nil, err
	}
	if attrs == nil {
		attrs = map[string]any{}
	}
	d := &V3ArrayDocument{
		Shape: intsJSON(shape), DataType: dtJSON, ChunkGrid: chunkGrid,
		ChunkKeyEncoding: map[string]any{"name": "default", "configuration": map[string]any{"separator": keySep}},
		FillValue:        fillJSON, Codecs: codecs, Attributes: attrs, StorageTransformers: []any{},
	}
	if dimNames != nil {
		names := make([]any, len(dimNames))
		for i, n := range dimNames {
			if n != "" {
				names[i] = n
			}
		}
		d.DimensionNames = names
	}
	return d, nil
}

// Members returns the document's members.
func (d *V3ArrayDocument) Members() map[string]any {
	doc := make(map[string]any, 11)
	doc["zarr_format"] = 3
	doc["node_type"] = "array"
	doc["shape"] = d.Shape
	doc["data_type"] = d.DataType
	doc["chunk_grid"] = d.ChunkGrid
	doc["chunk_key_encoding"] = d.ChunkKeyEncoding
	doc["fill_value"] = d.FillValue
	doc["codecs"] = d.Codecs
	for k, v := range map[string]any{"attributes": d.Attributes, "storage_transformers": d.StorageTransformers, "dimension_names": d.DimensionNames} {
		if v != nil {
			doc[k] = v
		}
	}
	return doc
}

// Marshal writes the document.
func (d *V3ArrayDocument) Marshal() ([]byte, error) { return jsonx.Marshal(d.Members(), indentV3) }

// RegularGrid is a regular chunk grid as zarr.json gives it.
func RegularGrid(chunks []int) any {
	return map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": intsJSON(chunks)}}
}

// RectilinearGrid is a rectilinear chunk grid as zarr.json gives it: each
// dimension's chunk sizes (run-length encoded where that is shorter), or
// for a dimension whose sizes are nil, the regular size regular[d].
func RectilinearGrid(sizes [][]int, regular []int) any {
	shapes := make([]any, len(sizes))
	for d, s := range sizes {
		if s == nil {
			shapes[d] = regular[d]
			continue
		}
		shapes[d] = runLengths(s)
	}
	return map[string]any{"name": "rectilinear", "configuration": map[string]any{"kind": "inline", "chunk_shapes": shapes}}
}

// runLengths writes edge lengths with [value, count] pairs where a value
// repeats, when that is shorter (as zarr-python does).
func runLengths(sizes []int) []any {
	var out []any
	for i := 0; i < len(sizes); {
		j := i
		for j < len(sizes) && sizes[j] == sizes[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, []any{sizes[i], j - i})
		} else {
			out = append(out, sizes[i])
		}
		i = j
	}
	if len(out) >= len(sizes) {
		return intsJSON(sizes)
	}
	return out
}

// ShardingCodec is a sharding_indexed codec as zarr.json gives it: inner
// chunks of chunkShape encoded with codecs, the index at the end of the
// shard, little endian with a crc32c checksum (zarr-python's default).
func ShardingCodec(chunkShape []int, codecs []any) any {
	indexEndian := map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}
	return map[string]any{"name": "sharding_indexed", "configuration": map[string]any{
		"chunk_shape":    intsJSON(chunkShape),
		"codecs":         codecs,
		"index_codecs":   []any{indexEndian, map[string]any{"name": "crc32c"}},
		"index_location": "end",
	}}
}

// GroupDocV2 returns a .zgroup.
func GroupDocV2() []byte {
	doc, _ := jsonx.Marshal(map[string]any{"zarr_format": 2}, indentV2) // (cannot fail)
	return doc
}

// GroupDocV3 returns a group's zarr.json.
func GroupDocV3(attrs map[string]any) ([]byte, error) {
	if attrs == nil {
		attrs = map[string]any{}
	}
	return jsonx.Marshal(map[string]any{"zarr_format": 3, "node_type": "group", "attributes": attrs}, indentV3)
}

// GroupDocWithAttrs rewrites a v3 group's zarr.json with new attributes,
// keeping its other members.
func GroupDocWithAttrs(doc []byte, attrs map[string]any) ([]byte, error) {
	m := map[string]any{}
	if err := jsonx.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	if attrs == nil {
		attrs = map[string]any{}
	}
	m["attributes"] = attrs
	return jsonx.Marshal(m, indentV3)
}

// MarshalAttrs writes a v2 attributes document (.zattrs).
func MarshalAttrs(attrs map[string]any) ([]byte, error) {
	if attrs == nil {
		attrs = map[string]any{}
	}
	return jsonx.Marshal(attrs, indentV2)
}

// ConsolidatedV2 writes a .zmetadata holding the documents of a hierarchy
// (decoded JSON, by their keys relative to the root).
func ConsolidatedV2(docs map[string]any) ([]byte, error) {
	return jsonx.Marshal(map[string]any{"zarr_consolidated_format": 1, "metadata": docs}, indentV2)
}

// GroupDocWithConsolidated rewrites a v3 group's zarr.json (decoded JSON)
// with inline consolidated metadata: the documents of the nodes below it
// (decoded, by their paths relative to the group).
func GroupDocWithConsolidated(group map[string]any, docs map[string]any) ([]byte, error) {
	group["consolidated_metadata"] = map[string]any{"kind": "inline", "must_understand": false, "metadata": docs}
	return jsonx.Marshal(group, indentV3)
}

// Document returns the array's stored document (zarr.json, .zarray or v1
// "meta") with the current shape and attributes: its other members keep
// their text.
func (a *Array) Document() ([]byte, error) {
	doc := make(map[string]any, len(a.doc)+1)
	for k, v := range a.doc {
		doc[k] = v
	}
	doc["shape"] = intsJSON(a.Shape)
	if a.ZarrFormat == 3 {
		return jsonx.Marshal(doc, indentV3)
	}
	return jsonx.Marshal(doc, indentV2)
}

// Fields returns the metadata document's fields as Document writes them
// (the stored JSON of each, the current shape), without writing the
// document: the bridge hands them to JS one by one.
func (a *Array) Fields() map[string]jsonx.RawMessage {
	doc := make(map[string]jsonx.RawMessage, len(a.doc)+1)
	for k, v := range a.doc {
		doc[k] = v
	}
	shape := []byte{'['}
	for i, n := range a.Shape {
		if i > 0 {
			shape = append(shape, ',')
		}
		shape = strconv.AppendInt(shape, int64(n), 10)
	}
	doc["shape"] = append(shape, ']')
	return doc
}

// SetAttributes replaces the attributes; for v3 they live in the array's
// document, which Document then writes.
func (a *Array) SetAttributes(attrs map[string]any) error {
	if attrs == nil {
		attrs = map[string]any{}
	}
	if a.ZarrFormat == 3 {
		raw, err := jsonx.Marshal(attrs, "")
		if err != nil {
			return err
		}
		a.doc["attributes"] = raw
	}
	a.Attrs = attrs
	return nil
}

// intsJSON is a list of integers as a JSON value.
func intsJSON[T int | int64](v []T) []any {
	out := make([]any, len(v))
	for i, n := range v {
		out[i] = n
	}
	return out
}
