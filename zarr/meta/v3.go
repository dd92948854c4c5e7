package meta

import (
	"errors"
	"sort"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/grid"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// v3Fields are the top-level fields of a v3 array or group document.
var v3ArrayFields = []string{"zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
	"fill_value", "codecs", "attributes", "storage_transformers", "dimension_names"}
var v3GroupFields = []string{"zarr_format", "node_type", "attributes", "consolidated_metadata"}

// V3Node is a parsed zarr.json: an array or a group.
type V3Node struct {
	Array *Array
	// Group fields (Array == nil).
	Attrs        map[string]any
	Consolidated map[string]jsonx.RawMessage // inline consolidated metadata, or nil
}

// ParseV3 parses a "zarr.json" document stored at key.
func ParseV3(key string, data []byte) (*V3Node, error) {
	doc, err := jsonx.Object(data)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key, err, "not a JSON object")
	}
	var format int
	if jsonx.UnmarshalStrict(doc["zarr_format"], &format) != nil || format != 3 {
		return nil, invalid(key, "zarr_format", "must be 3, got %s", short(doc["zarr_format"]))
	}
	var nodeType string
	if jsonx.UnmarshalStrict(doc["node_type"], &nodeType) != nil {
		return nil, invalid(key, "node_type", "must be \"array\" or \"group\", got %s", short(doc["node_type"]))
	}
	switch nodeType {
	case "group":
		if err := checkExtraFields(key, doc, v3GroupFields); err != nil {
			return nil, err
		}
		n := &V3Node{Attrs: map[string]any{}}
		if raw, ok := doc["attributes"]; ok && string(raw) != "null" {
			if n.Attrs, err = ParseAttrs(key+": attributes", raw); err != nil {
				return nil, err
			}
		}
		if raw, ok := doc["consolidated_metadata"]; ok && string(raw) != "null" {
			// scanned, not decoded: it can hold a whole hierarchy's documents
			cm, err := jsonx.Object(raw)
			if err != nil {
				return nil, errs.Wrap(errs.InvalidMetadata, key+": consolidated_metadata", err, "bad consolidated metadata")
			}
			var kind string
			if jsonx.UnmarshalStrict(cm["kind"], &kind) != nil || kind != "inline" {
				return nil, errs.New(errs.Unsupported, key+": consolidated_metadata", "kind %s (only \"inline\" is known)", short(cm["kind"]))
			}
			n.Consolidated = map[string]jsonx.RawMessage{}
			if m := cm["metadata"]; m != nil && string(m) != "null" {
				if n.Consolidated, err = jsonx.Object(m); err != nil {
					return nil, errs.Wrap(errs.InvalidMetadata, key+": consolidated_metadata.metadata", err, "bad consolidated metadata")
				}
			}
		}
		return n, nil
	case "array":
		a, err := parseV3Array(key, doc)
		if err != nil {
			return nil, err
		}
		return &V3Node{Array: a}, nil
	}
	return nil, invalid(key, "node_type", "must be \"array\" or \"group\", got %q", nodeType)
}

// checkExtraFields enforces must_understand: an unknown field is an error
// unless it is an object with "must_understand": false.
func checkExtraFields(key string, doc map[string]jsonx.RawMessage, known []string) error {
	isKnown := map[string]bool{}
	for _, k := range known {
		isKnown[k] = true
	}
	var names []string
	for k := range doc {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if isKnown[k] {
			continue
		}
		var ext v3Extra
		if jsonx.UnmarshalStrict(doc[k], &ext) == nil && ext.MustUnderstand != nil && !*ext.MustUnderstand {
			continue
		}
		return errs.New(errs.Unsupported, key+": "+k, "unknown field that must be understood").WithSuggestion(k, known)
	}
	return nil
}

// extension is a v3 extension point: a name or {"name", "configuration"}.
type extension struct {
	Name          string
	Configuration jsonx.RawMessage
}

func parseExtension(raw jsonx.RawMessage) (extension, error) {
	var name string
	if jsonx.UnmarshalStrict(raw, &name) == nil {
		return extension{Name: name}, nil
	}
	var obj codec.NamedConfig
	if err := jsonx.UnmarshalStrict(raw, &obj); err != nil || obj.Name == "" {
		return extension{}, fmtx.Errorf("must be a name or {\"name\", \"configuration\"}, got %s", short(raw))
	}
	return extension{Name: obj.Name, Configuration: obj.Configuration}, nil
}

func parseV3Array(key string, doc map[string]jsonx.RawMessage) (*Array, error) {
	if err := checkExtraFields(key, doc, v3ArrayFields); err != nil {
		return nil, err
	}
	for _, f := range []string{"shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs"} {
		if _, ok := doc[f]; !ok {
			return nil, errs.New(errs.InvalidMetadata, key, "missing field %q", f)
		}
	}
	a := &Array{ZarrFormat: 3, doc: doc, Key: key, Attrs: map[string]any{}}
	var err error
	if a.Shape, err = parseInts(key, "shape", doc["shape"]); err != nil {
		return nil, err
	}
	if a.DType, err = dtype.ParseV3(doc["data_type"]); err != nil {
		var u *dtype.UnsupportedError
		if errors.As(err, &u) {
			return nil, errs.Wrap(errs.Unsupported, key+": data_type", err, "").WithSuggestion(dataTypeName(doc["data_type"]), dtype.V3Names)
		}
		return nil, errs.Wrap(errs.InvalidMetadata, key+": data_type", err, "bad data type")
	}
	if a.Fill, err = a.DType.ParseFillV3(doc["fill_value"]); err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key+": fill_value", err, "bad fill value")
	}
	if err := a.parseV3Grid(key, doc["chunk_grid"]); err != nil {
		return nil, err
	}
	if err := a.parseV3KeyEncoding(key, doc["chunk_key_encoding"]); err != nil {
		return nil, err
	}
	if raw, ok := doc["attributes"]; ok && string(raw) != "null" {
		if a.Attrs, err = ParseAttrs(key+": attributes", raw); err != nil {
			return nil, err
		}
	}
	if raw, ok := doc["storage_transformers"]; ok && string(raw) != "null" {
		var st []jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(raw, &st); err != nil {
			return nil, invalid(key, "storage_transformers", "must be a list")
		}
		if len(st) > 0 {
			ext, _ := parseExtension(st[0])
			return nil, errs.New(errs.Unsupported, key+": storage_transformers", "storage transformer %q is not supported%s", ext.Name, transformerRefusal[ext.Name])
		}
	}
	if raw, ok := doc["dimension_names"]; ok && string(raw) != "null" {
		var names []*string
		if err := jsonx.UnmarshalStrict(raw, &names); err != nil || len(names) != len(a.Shape) {
			return nil, invalid(key, "dimension_names", "must be a list of %d strings or nulls", len(a.Shape))
		}
		a.DimensionNames = make([]string, len(names))
		for i, n := range names {
			if n != nil {
				a.DimensionNames[i] = *n
			}
		}
	}
	var raws []jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(doc["codecs"], &raws); err != nil {
		return nil, invalid(key, "codecs", "must be a list of codecs")
	}
	cfgs, err := v3Codecs(key+": codecs", raws)
	if err != nil {
		return nil, err
	}
	if err := a.checkSizes(key); err != nil {
		return nil, err
	}
	if err := a.setCodecs(key, cfgs); err != nil {
		return nil, err
	}
	return a, nil
}

func dataTypeName(raw jsonx.RawMessage) string {
	ext, err := parseExtension(raw)
	if err != nil {
		return ""
	}
	return ext.Name
}

// firstChunkShape is the shape of chunk (0, ..., 0), used to validate codecs.
func (a *Array) firstChunkShape() []int {
	idx := make([]int, len(a.Grid))
	return a.Grid.ChunkShape(idx)
}

// maxExpandedChunks bounds run-length expansion of variable grids.
const maxExpandedChunks = 1 << 22

func (a *Array) parseV3Grid(key string, raw jsonx.RawMessage) error {
	ext, err := parseExtension(raw)
	if err != nil {
		return invalid(key, "chunk_grid", "%v", err)
	}
	field := "chunk_grid"
	n := len(a.Shape)
	switch ext.Name {
	case "regular":
		var c regularGrid
		if err := jsonx.UnmarshalStrict(ext.Configuration, &c); err != nil || len(c.ChunkShape) != n {
			return invalid(key, field, "regular grid needs chunk_shape with %d entries", n)
		}
		g, err := grid.NewRegular(c.ChunkShape)
		if err != nil {
			return invalid(key, field, "%v", err)
		}
		a.Grid, a.ChunkShape = g, c.ChunkShape
		return nil
	case "rectilinear", "rectangular":
		var c rectilinearGrid
		if err := jsonx.UnmarshalStrict(ext.Configuration, &c); err != nil {
			return invalid(key, field, "bad %s configuration", ext.Name)
		}
		entries := c.ChunkShapes
		if ext.Name == "rectangular" {
			entries = c.ChunkShape
		} else if c.Kind != "inline" {
			return errs.New(errs.Unsupported, key+": "+field, "rectilinear kind %q (only \"inline\" is known)", c.Kind)
		}
		if len(entries) != n {
			return invalid(key, field, "%s grid has %d entries for %d dimensions", ext.Name, len(entries), n)
		}
		g := make(grid.Grid, n)
		sizes := make([][]int, n)
		variable := false
		for d, e := range entries {
			var bare int
			if jsonx.UnmarshalStrict(e, &bare) == nil {
				if bare <= 0 {
					return invalid(key, field, "chunk size %d in dimension %d must be positive", bare, d)
				}
				g[d] = grid.Regular(bare)
				continue
			}
			list, err := expandEdges(e, ext.Name == "rectilinear")
			if err != nil {
				return invalid(key, fmtx.Sprintf("%s[%d]", field, d), "%v", err)
			}
			ex, err := grid.NewExplicit(list)
			if err != nil {
				return invalid(key, fmtx.Sprintf("%s[%d]", field, d), "%v", err)
			}
			if !ex.Covers(a.Shape[d]) {
				return invalid(key, fmtx.Sprintf("%s[%d]", field, d), "chunk sizes sum to less than the dimension length %d", a.Shape[d])
			}
			g[d], sizes[d], variable = ex, list, true
		}
		a.Grid = g
		if variable {
			a.ChunkSizes = sizes
		} else {
			a.ChunkShape = make([]int, n)
			for d := range g {
				a.ChunkShape[d] = int(g[d].(grid.Regular))
			}
		}
		return nil
	}
	return errs.New(errs.Unsupported, key+": "+field, "chunk grid %q is not supported", ext.Name).
		WithSuggestion(ext.Name, []string{"regular", "rectilinear", "rectangular"})
}

// expandEdges reads a list of edge lengths, where (for rectilinear) an entry
// may be a run-length pair [value, count].
func expandEdges(raw jsonx.RawMessage, rle bool) ([]int, error) {
	var items []jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(raw, &items); err != nil {
		return nil, fmtx.Errorf("must be an integer or a list")
	}
	var out []int
	for i, it := range items {
		var v int
		if jsonx.UnmarshalStrict(it, &v) == nil {
			out = append(out, v)
		} else {
			var pair []int
			if !rle || jsonx.UnmarshalStrict(it, &pair) != nil || len(pair) != 2 {
				return nil, fmtx.Errorf("entry %d must be an integer or a [value, count] pair", i)
			}
			if pair[0] <= 0 || pair[1] <= 0 {
				return nil, fmtx.Errorf("run-length entry %d has a non-positive value or count", i)
			}
			if len(out)+pair[1] > maxExpandedChunks {
				return nil, fmtx.Errorf("more than %d chunks", maxExpandedChunks)
			}
			for k := 0; k < pair[1]; k++ {
				out = append(out, pair[0])
			}
		}
		if len(out) > maxExpandedChunks {
			return nil, fmtx.Errorf("more than %d chunks", maxExpandedChunks)
		}
	}
	return out, nil
}

func (a *Array) parseV3KeyEncoding(key string, raw jsonx.RawMessage) error {
	k, err := ParseKeyEncoding(key+": chunk_key_encoding", raw, len(a.Shape))
	a.Keys = k
	return err
}

// The JSON objects v3 metadata decodes, described to jsonx (no reflect in
// the core build).

type v3Extra struct {
	MustUnderstand *bool `json:"must_understand"`
}

func (e *v3Extra) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("must_understand", &e.MustUnderstand)}
}

type regularGrid struct {
	ChunkShape []int `json:"chunk_shape"`
}

func (c *regularGrid) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("chunk_shape", &c.ChunkShape)}
}

type rectilinearGrid struct {
	Kind        string             `json:"kind"`
	ChunkShapes []jsonx.RawMessage `json:"chunk_shapes"`
	ChunkShape  []jsonx.RawMessage `json:"chunk_shape"`
}

func (c *rectilinearGrid) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("kind", &c.Kind), jsonx.F("chunk_shapes", &c.ChunkShapes), jsonx.F("chunk_shape", &c.ChunkShape)}
}

// transformerRefusal says why a storage transformer the registry's pull
// requests propose is not read.
var transformerRefusal = map[string]string{
	"concat-parts": ": refused (pull request 39, open): nothing here writes a chunk split over several keys to check against (not zarrs or zarr-python 2.13)",
}
