package tsspec

import (
	"slices"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
)

// v3Members are the zarr.json members a zarr3 spec's metadata may give.
var v3Members = []string{"zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
	"fill_value", "codecs", "attributes", "dimension_names"}

// V3Metadata is a zarr.json in TensorStore's terms: the document and what
// the schema needs from it.
type V3Metadata struct {
	Doc   map[string]jsonx.RawMessage
	Shape []int64
	DType *dtype.DataType
	// Chunks is the regular grid's chunk shape (the write chunk); nil for
	// other grids. ReadChunks is the innermost chunk shape (inside shards).
	Chunks, ReadChunks []int64
	Inner              []int // inner order, from transpose codecs
	Fill               dtype.Fill
	Labels             []string // dimension_names as TensorStore labels
	Units              []jsonx.RawMessage
}

// ParseV3Metadata reads a stored (or created) zarr.json.
func ParseV3Metadata(key string, data []byte) (*V3Metadata, error) {
	doc, err := jsonx.Object(data)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key, err, "not a JSON object")
	}
	m := &V3Metadata{Doc: doc}
	where := func(member string) string { return key + ": " + member }
	if m.Shape, err = parseInts(where("shape"), doc["shape"], 0, maxIndex); err != nil {
		return nil, err
	}
	if m.DType, err = dtype.ParseV3(doc["data_type"]); err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, where("data_type"), err, "")
	}
	if m.Fill, err = m.DType.ParseFillV3(doc["fill_value"]); err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, where("fill_value"), err, "")
	}
	var grid struct {
		Name          string `json:"name"`
		Configuration struct {
			ChunkShape []int64 `json:"chunk_shape"`
		} `json:"configuration"`
	}
	if jsonx.UnmarshalStrict(doc["chunk_grid"], &grid) == nil && grid.Name == "regular" && len(grid.Configuration.ChunkShape) == len(m.Shape) {
		m.Chunks = grid.Configuration.ChunkShape
		if m.ReadChunks, m.Inner, err = codecLayout(where("codecs"), doc["codecs"], m.Chunks); err != nil {
			return nil, err
		}
	}
	if raw, ok := doc["dimension_names"]; ok && string(raw) != "null" {
		var names []*string
		if err := jsonx.UnmarshalStrict(raw, &names); err != nil || len(names) != len(m.Shape) {
			return nil, invalid(where("dimension_names"), "must be a list of names or nulls, one per dimension")
		}
		m.Labels = make([]string, len(names))
		seen := map[string]bool{}
		for i, n := range names {
			if n != nil {
				m.Labels[i] = *n
			}
			if m.Labels[i] != "" && seen[m.Labels[i]] {
				// Not valid TensorStore labels: leave every dimension unlabeled.
				m.Labels = nil
				break
			}
			seen[m.Labels[i]] = true
		}
	}
	var attrs map[string]jsonx.RawMessage
	if jsonx.UnmarshalStrict(doc["attributes"], &attrs) == nil {
		if u, ok := attrs["dimension_units"]; ok {
			if err := jsonx.UnmarshalStrict(u, &m.Units); err != nil || len(m.Units) != len(m.Shape) {
				m.Units = nil
			}
		}
	}
	return m, nil
}

// codecLayout follows a codec chain over chunks of the given shape: the
// innermost (read) chunk shape inside sharding codecs, and the inner order
// that transpose codecs give, both over the array's dimensions.
func codecLayout(where string, raw jsonx.RawMessage, chunks []int64) ([]int64, []int, error) {
	rank := len(chunks)
	perm := make([]int, rank) // position k of the current chunk holds array dimension perm[k]
	for i := range perm {
		perm[i] = i
	}
	read := append([]int64(nil), chunks...)
	cur := raw
	for depth := 0; depth < 8; depth++ {
		var codecs []jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(cur, &codecs); err != nil {
			return nil, nil, invalid(where, "must be a list of codecs")
		}
		next := jsonx.RawMessage(nil)
		for _, c := range codecs {
			name, cfg := codecNameConfig(c)
			switch name {
			case "transpose":
				var order []int
				var s string
				switch {
				case jsonx.UnmarshalStrict(cfg["order"], &order) == nil && isPermutation(order) && len(order) == rank:
				case jsonx.UnmarshalStrict(cfg["order"], &s) == nil && (s == "C" || s == "F"):
					order = make([]int, rank)
					for i := range order {
						order[i] = i
						if s == "F" {
							order[i] = rank - 1 - i
						}
					}
				default:
					return nil, nil, invalid(where, "transpose order %s is not a permutation of %d dimensions", short(cfg["order"]), rank)
				}
				p := make([]int, rank)
				for k, o := range order {
					p[k] = perm[o]
				}
				perm = p
			case "sharding_indexed":
				var inner []int64
				if err := jsonx.UnmarshalStrict(cfg["chunk_shape"], &inner); err != nil || len(inner) != rank {
					return nil, nil, invalid(where, "sharding_indexed chunk_shape must have %d entries", rank)
				}
				for k, n := range inner {
					read[perm[k]] = n
				}
				next = cfg["codecs"]
			}
			if next != nil {
				break
			}
		}
		if next == nil {
			break
		}
		cur = next
	}
	return read, perm, nil
}

func codecNameConfig(raw jsonx.RawMessage) (string, map[string]jsonx.RawMessage) {
	var s string
	if jsonx.UnmarshalStrict(raw, &s) == nil {
		return s, map[string]jsonx.RawMessage{}
	}
	var c struct {
		Name          string                      `json:"name"`
		Configuration map[string]jsonx.RawMessage `json:"configuration"`
	}
	jsonx.UnmarshalStrict(raw, &c)
	if c.Configuration == nil {
		c.Configuration = map[string]jsonx.RawMessage{}
	}
	return c.Name, c.Configuration
}

// checkV3Members refuses members a zarr.json does not have.
func (s *Spec) checkV3Members() error {
	for k := range s.V3 {
		if !contains(v3Members, k) {
			return unknownMember("spec.metadata."+k, k, v3Members, "unknown member")
		}
	}
	return nil
}

// CheckV3 checks a stored zarr.json against the spec's metadata and schema
// constraints.
func (s *Spec) CheckV3(m *V3Metadata) error {
	if err := s.checkV3Members(); err != nil {
		return err
	}
	if s.Field != "" {
		return unsupported("spec.field", "fields of zarr3 structured data types are not supported")
	}
	for _, k := range []string{"zarr_format", "node_type", "shape", "data_type", "chunk_grid", "codecs", "dimension_names"} {
		want, ok := s.V3[k]
		if !ok {
			continue
		}
		if canonical(want) != canonical(m.Doc[k]) {
			return mismatch(k, want, m.Doc[k])
		}
	}
	if want, ok := s.V3["chunk_key_encoding"]; ok {
		if canonicalKeyEncoding(want) != canonicalKeyEncoding(m.Doc["chunk_key_encoding"]) {
			return mismatch("chunk_key_encoding", want, m.Doc["chunk_key_encoding"])
		}
	}
	if want, ok := s.V3["fill_value"]; ok {
		f, err := m.DType.ParseFillV3(want)
		if err != nil {
			return errs.Wrap(errs.InvalidMetadata, "metadata.fill_value", err, "")
		}
		if !sameFill(f, m.Fill) {
			return mismatch("fill_value", want, m.Doc["fill_value"])
		}
	}
	if want, ok := s.V3["attributes"]; ok {
		var w, g map[string]jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(want, &w); err != nil {
			return invalid("spec.metadata.attributes", "must be an object")
		}
		jsonx.UnmarshalStrict(m.Doc["attributes"], &g)
		for k, v := range w {
			if canonical(v) != canonical(g[k]) {
				return mismatch("attributes."+k, v, g[k])
			}
		}
	}
	return s.checkV3Schema(m)
}

// canonicalKeyEncoding fills in the default separators.
func canonicalKeyEncoding(raw jsonx.RawMessage) string {
	name, cfg := codecNameConfig(raw)
	if _, ok := cfg["separator"]; !ok {
		sep := "/"
		if name == "v2" {
			sep = "."
		}
		cfg["separator"], _ = jsonx.MarshalStrict(sep)
	}
	b, _ := jsonx.MarshalStrict(map[string]any{"name": name, "configuration": cfg})
	return canonical(b)
}

func (s *Spec) checkV3Schema(m *V3Metadata) error {
	sc := &s.Schema
	full := len(m.Shape)
	b, err := s.checkRankDType(full, m.DType)
	if err != nil {
		return err
	}
	if sc.Domain != nil {
		if err := b.checkDomain(sc.Domain, m.Shape, full); err != nil {
			return err
		}
		for d, i := range b.toInput {
			if i >= 0 && sc.Domain.Labels != nil && sc.Domain.Labels[i] != "" && (m.Labels == nil || m.Labels[d] != sc.Domain.Labels[i]) {
				return invalid("spec.schema.domain.labels", "dimension %d is labeled %q in the schema, not in the metadata", i, sc.Domain.Labels[i])
			}
		}
	}
	if sc.Codec != nil {
		if err := checkV3Codec(sc.Codec, m.Doc["codecs"]); err != nil {
			return err
		}
	}
	if sc.FillValue != nil {
		vals, shape, err := nestedValues("spec.schema.fill_value", sc.FillValue)
		if err != nil {
			return err
		}
		if len(shape) > 0 {
			return unsupported("spec.schema.fill_value", "a zarr3 fill value is a scalar")
		}
		f, err := m.DType.FillFromValue(vals[0])
		if err != nil || !sameFill(f, m.Fill) {
			return invalid("spec.schema.fill_value", "Invalid fill_value: schema requires fill value of %s, but metadata specifies %s", short(sc.FillValue), short(m.Doc["fill_value"]))
		}
	}
	if cl := sc.ChunkLayout; cl != nil && m.Chunks != nil {
		for d, i := range b.toInput {
			if i < 0 {
				continue
			}
			for _, c := range []struct {
				g    Grid
				have []int64
				name string
			}{{cl.WriteChunk, m.Chunks, "write_chunk"}, {cl.ReadChunk, m.ReadChunks, "read_chunk"}, {cl.Chunk, m.Chunks, "chunk"}} {
				if i < len(c.g.Shape) && c.g.Shape[i] > 0 && c.g.Shape[i] != c.have[d] {
					return invalid("spec.schema.chunk_layout."+c.name, "dimension %d: %d does not match the metadata's %d", i, c.g.Shape[i], c.have[d])
				}
			}
		}
		if order, hard := b.innerOrderConstraint(cl); hard && !slices.Equal(order, m.Inner) {
			return invalid("spec.schema.chunk_layout.inner_order", "%v does not match the codecs' inner order %v", cl.InnerOrder, m.Inner)
		}
	}
	if sc.DimensionUnits != nil {
		for d, i := range b.toInput {
			if i < 0 || string(sc.DimensionUnits[i]) == "null" {
				continue
			}
			want, err := unitJSON(sc.DimensionUnits[i])
			if err != nil {
				return errs.Wrap(errs.InvalidMetadata, fmtx.Sprintf("spec.schema.dimension_units[%d]", i), err, "")
			}
			var have any
			if m.Units != nil {
				have, _ = unitJSON(m.Units[d])
			}
			if jsonText(want) != jsonText(have) {
				return invalid("spec.schema.dimension_units", "dimension %d has unit %s in the schema, %s in the metadata", i, jsonText(want), jsonText(have))
			}
		}
	}
	return nil
}

func checkV3Codec(codec map[string]jsonx.RawMessage, have jsonx.RawMessage) error {
	var driver string
	jsonx.UnmarshalStrict(codec["driver"], &driver)
	if driver != "zarr3" {
		return invalid("spec.schema.codec.driver", "Cannot merge codec spec with driver %q into the zarr3 driver's", driver)
	}
	for k := range codec {
		if k != "driver" && k != "codecs" {
			return unknownMember("spec.schema.codec."+k, k, []string{"driver", "codecs"}, "unknown member")
		}
	}
	if want, ok := codec["codecs"]; ok && have != nil && canonical(normalizeCodecList(want)) != canonical(have) {
		return invalid("spec.schema.codec.codecs", "codec from metadata does not match codec in schema")
	}
	return nil
}

// normalizeCodecList writes codecs given by name only as {"name": ...}.
func normalizeCodecList(raw jsonx.RawMessage) jsonx.RawMessage {
	var list []jsonx.RawMessage
	if jsonx.UnmarshalStrict(raw, &list) != nil {
		return raw
	}
	for i, c := range list {
		var s string
		if jsonx.UnmarshalStrict(c, &s) == nil {
			list[i], _ = jsonx.MarshalStrict(map[string]string{"name": s})
		}
	}
	b, _ := jsonx.MarshalStrict(list)
	return b
}

// unitJSON converts a Unit (a string with an optional leading number, a
// number, or [multiplier, base_unit]) to TensorStore's canonical form.
func unitJSON(raw jsonx.RawMessage) (any, error) {
	var pair []jsonx.RawMessage
	if jsonx.UnmarshalStrict(raw, &pair) == nil {
		var mult float64
		var base string
		if len(pair) != 2 || jsonx.UnmarshalStrict(pair[0], &mult) != nil || jsonx.UnmarshalStrict(pair[1], &base) != nil {
			return nil, fmtx.Errorf("a unit is [multiplier, base_unit], got %s", short(raw))
		}
		return []any{mult, base}, nil
	}
	var f float64
	if jsonx.UnmarshalStrict(raw, &f) == nil {
		return []any{f, ""}, nil
	}
	var s string
	if err := jsonx.UnmarshalStrict(raw, &s); err != nil {
		return nil, fmtx.Errorf("a unit is a string, a number or [multiplier, base_unit], got %s", short(raw))
	}
	s = strings.TrimSpace(s)
	// The longest leading number.
	end := 0
	for i := len(s); i > 0; i-- {
		if _, err := strconv.ParseFloat(s[:i], 64); err == nil {
			end = i
			break
		}
	}
	mult := 1.0
	if end > 0 {
		mult, _ = strconv.ParseFloat(s[:end], 64)
	}
	return []any{mult, strings.TrimSpace(s[end:])}, nil
}

// unitText is the zarr.json attributes form of a unit ("4 nm", "s").
func unitText(u any) string {
	p := u.([]any)
	mult, base := p[0].(float64), p[1].(string)
	if mult == 1 && base != "" {
		return base
	}
	if base == "" {
		return strconv.FormatFloat(mult, 'g', -1, 64)
	}
	return strconv.FormatFloat(mult, 'g', -1, 64) + " " + base
}

// NewV3Metadata computes the zarr.json of a new array: the metadata's
// members, the data type, shape and dimension names from the schema, the
// chunk shape chosen from the chunk layout as for zarr2, codecs bytes
// (little endian) unless given (a transpose first for a non-C inner
// order), fill value 0 unless given, the default chunk key encoding,
// dimension units in the attributes.
func (s *Spec) NewV3Metadata() (*V3Metadata, error) {
	fail := func(err error) (*V3Metadata, error) {
		return nil, errs.Wrap(errs.InvalidMetadata, "spec", err, "Cannot create using specified \"metadata\" and schema")
	}
	if err := s.checkV3Members(); err != nil {
		return nil, err
	}
	if s.Field != "" {
		return nil, unsupported("spec.field", "fields of zarr3 structured data types are not supported")
	}
	c := s.V3
	doc := map[string]jsonx.RawMessage{}
	for k, v := range c {
		doc[k] = v
	}
	if _, ok := doc["data_type"]; !ok {
		if s.Schema.DType == "" {
			return fail(invalid("spec.dtype", "\"dtype\" must be specified"))
		}
		if _, err := dtype.ParseV3(mustJSON(s.Schema.DType)); err != nil {
			return fail(unsupported("spec.dtype", "Data type not supported: %s", s.Schema.DType))
		}
		doc["data_type"] = mustJSON(s.Schema.DType)
	}
	dt, err := dtype.ParseV3(doc["data_type"])
	if err != nil {
		return fail(errs.Wrap(errs.InvalidMetadata, "spec.metadata.data_type", err, ""))
	}
	rank := -1
	var shape []int64
	if raw, ok := c["shape"]; ok {
		if shape, err = parseInts("spec.metadata.shape", raw, 0, maxIndex); err != nil {
			return nil, err
		}
		rank = len(shape)
	}
	var gridChunks []int64
	if raw, ok := c["chunk_grid"]; ok {
		var g struct {
			Name          string `json:"name"`
			Configuration struct {
				ChunkShape []int64 `json:"chunk_shape"`
			} `json:"configuration"`
		}
		if err := jsonx.UnmarshalStrict(raw, &g); err != nil || g.Name != "regular" {
			return fail(unsupported("spec.metadata.chunk_grid", "only regular chunk grids can be created from a spec"))
		}
		gridChunks = g.Configuration.ChunkShape
		if rank >= 0 && len(gridChunks) != rank {
			return fail(invalid("spec.metadata.chunk_grid", "has %d entries, shape has %d", len(gridChunks), rank))
		}
		rank = len(gridChunks)
	}
	switch {
	case s.Transform != nil:
		if rank >= 0 && rank != len(s.Transform.Output) {
			return fail(invalid("spec.rank", "Rank specified by schema (%d) is not compatible with metadata", len(s.Transform.Output)))
		}
		rank = len(s.Transform.Output)
	case s.Schema.Rank >= 0:
		if rank >= 0 && rank != s.Schema.Rank {
			return fail(invalid("spec.rank", "Rank specified by schema (%d) is not compatible with metadata", s.Schema.Rank))
		}
		rank = s.Schema.Rank
	}
	if rank < 0 {
		return fail(invalid("spec", "domain must be specified"))
	}
	b := s.baseMap(rank)
	ext := make([]int64, rank)
	for d := range ext {
		ext[d] = -1
		if shape != nil {
			ext[d] = shape[d]
		}
	}
	if dom := s.Schema.Domain; dom != nil {
		for d, i := range b.toInput {
			if i >= 0 && dom.ExclusiveMax != nil && !dom.ExclusiveMax[i].Infinite {
				n := dom.ExclusiveMax[i].Value + b.offset[d]
				if ext[d] >= 0 && ext[d] != n {
					return fail(invalid("spec.schema.domain", "Invalid domain: dimension %d has extent %d, the metadata %d", i, n, ext[d]))
				}
				ext[d] = n
			}
		}
	}
	if t := s.Transform; t != nil && t.Domain.ExclusiveMax != nil {
		for d, i := range b.toInput {
			if i >= 0 && ext[d] < 0 && !t.Domain.ExclusiveMax[i].Infinite && !t.Domain.ExclusiveMax[i].Implicit {
				ext[d] = t.Domain.ExclusiveMax[i].Value + b.offset[d]
			}
		}
	}
	for _, n := range ext {
		if n < 0 {
			return fail(invalid("spec", "domain must be specified"))
		}
	}
	doc["shape"] = mustJSON(ext)
	if gridChunks == nil {
		cl := s.Schema.ChunkLayout
		if cl != nil && differentGrids(cl.ReadChunk, cl.WriteChunk) {
			return fail(unsupported("spec.schema.chunk_layout", "different read_chunk and write_chunk constraints need a sharding codec, which is not chosen automatically here; give metadata.codecs with sharding_indexed and metadata.chunk_grid"))
		}
		g, err := b.combineGrids(cl, rank)
		if err != nil {
			return fail(err)
		}
		for d := range g.shape {
			if g.shape[d] == 0 && g.soft[d] != 0 {
				g.shape[d] = g.soft[d]
			}
		}
		gridChunks = ChooseChunkShape(ext, g.shape, g.aspect, g.elements)
		doc["chunk_grid"] = mustJSON(map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": gridChunks}})
	}
	if _, ok := doc["codecs"]; !ok {
		var codecs jsonx.RawMessage
		if s.Schema.Codec != nil {
			if err := checkV3Codec(s.Schema.Codec, nil); err != nil {
				return fail(err)
			}
			codecs = s.Schema.Codec["codecs"]
		}
		list := []any{}
		if codecs != nil {
			var given []jsonx.RawMessage
			jsonx.UnmarshalStrict(normalizeCodecList(codecs), &given)
			for _, g := range given {
				list = append(list, g)
			}
		}
		hasArrayToBytes := false
		for _, g := range list {
			name, _ := codecNameConfig(g.(jsonx.RawMessage))
			if name == "bytes" || name == "sharding_indexed" || strings.HasPrefix(name, "vlen") {
				hasArrayToBytes = true
			}
		}
		if !hasArrayToBytes {
			// TensorStore's default bytes codec (little endian on the
			// little-endian machines it runs on).
			bytesCodec := map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}
			list = append([]any{bytesCodec}, list...)
		}
		if order, _ := b.innerOrderConstraint(s.Schema.ChunkLayout); order != nil && !isIdentity(order) {
			list = append([]any{map[string]any{"name": "transpose", "configuration": map[string]any{"order": order}}}, list...)
		}
		doc["codecs"] = mustJSON(list)
	}
	if _, ok := doc["fill_value"]; !ok {
		fill := dt.ZeroFill()
		fill.Null = false
		if s.Schema.FillValue != nil {
			vals, fshape, err := nestedValues("spec.schema.fill_value", s.Schema.FillValue)
			if err != nil {
				return fail(err)
			}
			if len(fshape) > 0 {
				return fail(unsupported("spec.schema.fill_value", "a zarr3 fill value is a scalar"))
			}
			if fill, err = dt.FillFromValue(vals[0]); err != nil {
				return fail(errs.Wrap(errs.InvalidMetadata, "spec.schema.fill_value", err, "Invalid fill_value"))
			}
		}
		v, err := dt.FillV3JSON(fill)
		if err != nil {
			return fail(errs.Wrap(errs.InvalidMetadata, "spec.schema.fill_value", err, ""))
		}
		doc["fill_value"] = mustJSON(v)
	}
	if _, ok := doc["chunk_key_encoding"]; !ok {
		doc["chunk_key_encoding"] = jsonx.RawMessage(`{"name":"default"}`)
	}
	if dom := s.Schema.Domain; dom != nil && dom.Labels != nil {
		if _, ok := doc["dimension_names"]; !ok {
			names := make([]any, rank)
			any := false
			for d, i := range b.toInput {
				if i >= 0 && dom.Labels[i] != "" {
					names[d], any = dom.Labels[i], true
				}
			}
			if any {
				doc["dimension_names"] = mustJSON(names)
			}
		}
	}
	if s.Schema.DimensionUnits != nil {
		var attrs map[string]any
		if raw, ok := doc["attributes"]; ok {
			if err := jsonx.Unmarshal(raw, &attrs); err != nil {
				return fail(invalid("spec.metadata.attributes", "must be an object"))
			}
		}
		if attrs == nil {
			attrs = map[string]any{}
		}
		units := make([]any, rank)
		for d, i := range b.toInput {
			if i < 0 || string(s.Schema.DimensionUnits[i]) == "null" {
				continue
			}
			u, err := unitJSON(s.Schema.DimensionUnits[i])
			if err != nil {
				return fail(errs.Wrap(errs.InvalidMetadata, fmtx.Sprintf("spec.schema.dimension_units[%d]", i), err, ""))
			}
			units[d] = unitText(u)
		}
		attrs["dimension_units"] = units
		doc["attributes"] = mustJSON(attrs)
	}
	data, err := v3Document(doc).Marshal()
	if err != nil {
		return fail(err)
	}
	m, err := ParseV3Metadata("zarr.json", data)
	if err != nil {
		return fail(err)
	}
	if err := s.checkV3Schema(m); err != nil {
		return fail(err)
	}
	return m, nil
}

func differentGrids(r, w Grid) bool {
	sameShape := func(a, b []int64) bool {
		if a == nil || b == nil {
			return true
		}
		return slices.Equal(a, b)
	}
	return !sameShape(r.Shape, w.Shape) || (r.Elements != 0 && w.Elements != 0 && r.Elements != w.Elements)
}

func isIdentity(p []int) bool {
	for i, x := range p {
		if x != i {
			return false
		}
	}
	return true
}

func mustJSON(v any) jsonx.RawMessage {
	b, err := jsonx.Marshal(v, "")
	if err != nil {
		return jsonx.RawMessage("null")
	}
	return b
}

// Document is the zarr.json to store (of an array NewV3Metadata made).
func (m *V3Metadata) Document() ([]byte, error) { return v3Document(m.Doc).Marshal() }

// v3Document is the zarr.json of members v3Members names, written out
// indented as the engine writes its own (a member's text is not kept).
func v3Document(doc map[string]jsonx.RawMessage) *meta.V3ArrayDocument {
	member := func(k string) any {
		raw, ok := doc[k]
		if !ok {
			return nil
		}
		if v, err := jsonx.Value(raw); err == nil && v != nil {
			return v
		}
		return raw // null, kept (nil would leave an optional member out)
	}
	return &meta.V3ArrayDocument{
		Shape: member("shape"), DataType: member("data_type"), ChunkGrid: member("chunk_grid"),
		ChunkKeyEncoding: member("chunk_key_encoding"), FillValue: member("fill_value"), Codecs: member("codecs"),
		Attributes: member("attributes"), DimensionNames: member("dimension_names"),
	}
}

// V3Schema is the Schema JSON of a zarr3 array seen through view v (nil:
// untransformed).
func V3Schema(m *V3Metadata, v *View) map[string]any {
	rank := len(m.Shape)
	if v == nil {
		v = DefaultView(m.Shape, rank, m.Labels)
	}
	codec := map[string]any{"driver": "zarr3", "codecs": jsonx.RawMessage(m.Doc["codecs"])}
	inner := m.Inner
	if inner == nil {
		inner = innerOrder(rank, rank, "C")
	}
	var fill []byte
	if !m.Fill.Null {
		fill = m.Fill.Bytes
	}
	f := Field{Type: m.DType}
	out := schemaJSON(m.Shape, rank, m.Chunks, inner, codec, TSDataType(m.DType), fill, f, v)
	if m.Chunks != nil && v.Rank > 0 {
		read := make([]any, v.Rank)
		for i := 0; i < v.Rank; i++ {
			read[i] = m.ReadChunks[v.ToBase[i]]
		}
		out["chunk_layout"].(map[string]any)["read_chunk"] = map[string]any{"shape": read}
	}
	if m.Chunks == nil && v.Rank > 0 {
		cl := out["chunk_layout"].(map[string]any)
		delete(cl, "read_chunk")
		delete(cl, "write_chunk")
	}
	if m.Units != nil {
		units := make([]any, v.Rank)
		for i := 0; i < v.Rank; i++ {
			if u, err := unitJSON(m.Units[v.ToBase[i]]); err == nil {
				units[i] = u
			}
		}
		out["dimension_units"] = units
	}
	return out
}

// V3Spec is the Spec JSON that reopens a zarr3 array through view v.
func (s *Spec) V3Spec(m *V3Metadata, v *View) map[string]any {
	out := map[string]any{"driver": "zarr3", "metadata": m.Doc}
	s.commonSpec(out, TSDataType(m.DType), v, len(m.Shape))
	return out
}

// Compatible reports whether o describes the same array as m but for its
// shape and attributes.
func (m *V3Metadata) Compatible(o *V3Metadata) bool {
	strip := func(d map[string]jsonx.RawMessage) string {
		c := map[string]jsonx.RawMessage{}
		for k, v := range d {
			if k != "shape" && k != "attributes" {
				c[k] = jsonx.RawMessage(canonical(v))
			}
		}
		return jsonText(c)
	}
	return strip(m.Doc) == strip(o.Doc)
}
