package meta

import (
	"errors"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/grid"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// ParseV2 parses a ".zarray" document stored at key.
func ParseV2(key string, data []byte) (*Array, error) {
	doc, err := jsonx.Object(data)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key, err, "not a JSON object")
	}
	return fromV2Doc(key, doc, 2)
}

// fromV2Doc translates a v2 (or v1, with format 1 and its field names
// already mapped) document.
func fromV2Doc(key string, doc map[string]jsonx.RawMessage, format int) (*Array, error) {
	need := func(field string) (jsonx.RawMessage, error) {
		raw, ok := doc[field]
		if !ok {
			known := make([]string, 0, len(doc))
			for k := range doc {
				known = append(known, k)
			}
			return nil, errs.New(errs.InvalidMetadata, key, "missing field %q", field).WithSuggestion(field, known)
		}
		return raw, nil
	}
	a := &Array{ZarrFormat: format, doc: doc, Key: key, Order: "C"}
	if raw, err := need("zarr_format"); err != nil {
		return nil, err
	} else {
		var f int
		if jsonx.UnmarshalStrict(raw, &f) != nil || f != format {
			return nil, invalid(key, "zarr_format", "must be %d, got %s", format, short(raw))
		}
	}
	raw, err := need("shape")
	if err != nil {
		return nil, err
	}
	if a.Shape, err = parseInts(key, "shape", raw); err != nil {
		return nil, err
	}
	if raw, err = need("chunks"); err != nil {
		return nil, err
	}
	if err := a.parseV2Chunks(key, raw); err != nil {
		return nil, err
	}
	if raw, err = need("dtype"); err != nil {
		return nil, err
	}
	if a.DType, err = dtype.ParseV2(raw); err != nil {
		var u *dtype.UnsupportedError
		if errors.As(err, &u) {
			return nil, errs.Wrap(errs.Unsupported, key+": dtype", err, "")
		}
		return nil, errs.Wrap(errs.InvalidMetadata, key+": dtype", err, "bad data type")
	}
	if raw, err = need("fill_value"); err != nil {
		return nil, err
	}
	if a.Fill, err = a.DType.ParseFillV2(raw); err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key+": fill_value", err, "bad fill value")
	}
	if raw, err = need("order"); err != nil {
		return nil, err
	}
	if jsonx.UnmarshalStrict(raw, &a.Order) != nil || (a.Order != "C" && a.Order != "F") {
		return nil, invalid(key, "order", "must be \"C\" or \"F\", got %s", short(raw))
	}
	a.Keys = KeyEncoding{Sep: "."}
	if raw, ok := doc["dimension_separator"]; ok && string(raw) != "null" {
		if jsonx.UnmarshalStrict(raw, &a.Keys.Sep) != nil || (a.Keys.Sep != "." && a.Keys.Sep != "/") {
			return nil, invalid(key, "dimension_separator", "must be \".\" or \"/\", got %s", short(raw))
		}
	}

	// The codec chain: F order is a transpose; filters and the compressor
	// become codecs (see v2Codecs).
	if format == 2 {
		if _, err := need("compressor"); err != nil {
			return nil, err
		}
	}
	var entries []v2Entry
	if fr, ok := doc["filters"]; ok && string(fr) != "null" {
		var filters []jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(fr, &filters); err != nil {
			return nil, invalid(key, "filters", "must be null or a list of codec objects")
		}
		for i, f := range filters {
			e, err := parseV2Entry(key, fmtx.Sprintf("filters[%d]", i), f)
			if err != nil {
				return nil, err
			}
			entries = append(entries, e)
		}
	}
	if cr, ok := doc["compressor"]; ok && string(cr) != "null" {
		e, err := parseV2Entry(key, "compressor", cr)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	if err := a.checkSizes(key); err != nil {
		return nil, err
	}
	cfgs, err := a.v2Codecs(key, doc["dtype"], entries)
	if err != nil {
		return nil, err
	}
	if err := a.setCodecs(key, cfgs); err != nil {
		return nil, err
	}
	return a, nil
}

// MaxChunkBytes bounds a decoded chunk (numcodecs has the same 2 GiB limit),
// so hostile metadata cannot make a read allocate without bound.
const MaxChunkBytes = 1<<31 - 1

func (a *Array) checkSizes(key string) error {
	item := a.DType.Size
	if a.DType.Variable() {
		item = 8
	}
	largest := make([]int, len(a.Shape))
	for d := range a.Shape {
		switch g := a.Grid[d].(type) {
		case grid.Regular:
			largest[d] = int(g)
		case *grid.Explicit:
			for _, s := range g.Sizes() {
				largest[d] = max(largest[d], s)
			}
		}
	}
	if n, ok := nd.CheckedSize(largest, max(item, 1)); !ok || n > MaxChunkBytes {
		return invalid(key, "chunks", "a chunk of shape %v would exceed %d bytes", largest, MaxChunkBytes)
	}
	return nil
}

func (a *Array) parseV2Chunks(key string, raw jsonx.RawMessage) error {
	var entries []jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(raw, &entries); err != nil {
		return invalid(key, "chunks", "must be a list, got %s", short(raw))
	}
	if len(entries) != len(a.Shape) {
		return invalid(key, "chunks", "has %d entries, shape has %d", len(entries), len(a.Shape))
	}
	regular := make([]int, len(entries))
	sizes := make([][]int, len(entries))
	variable := false
	for i, e := range entries {
		var n int64
		if jsonx.UnmarshalStrict(e, &n) == nil {
			if n <= 0 || n > 1<<40 {
				return invalid(key, "chunks", "entry %d (%d) must be a positive integer", i, n)
			}
			regular[i] = int(n)
			continue
		}
		// ZEP 3 backport: a list of chunk sizes along this dimension.
		list, err := parseInts(key, fmtx.Sprintf("chunks[%d]", i), e)
		if err != nil {
			return err
		}
		sizes[i] = list
		variable = true
	}
	if !variable {
		g, err := grid.NewRegular(regular)
		if err != nil {
			return invalid(key, "chunks", "%v", err)
		}
		a.Grid, a.ChunkShape = g, regular
		return nil
	}
	g := make(grid.Grid, len(entries))
	for i := range entries {
		if sizes[i] == nil {
			g[i] = grid.Regular(regular[i])
			continue
		}
		e, err := grid.NewExplicit(sizes[i])
		if err != nil {
			return invalid(key, fmtx.Sprintf("chunks[%d]", i), "%v", err)
		}
		if !e.Covers(a.Shape[i]) {
			return invalid(key, fmtx.Sprintf("chunks[%d]", i), "chunk sizes sum to less than the dimension length %d", a.Shape[i])
		}
		g[i] = e
	}
	a.Grid, a.ChunkSizes = g, sizes
	return nil
}

// setCodecs validates the model chain on the first chunk's shape and
// records it.
func (a *Array) setCodecs(key string, cfgs []codec.Config) error {
	if _, err := codec.NewChain(cfgs, codec.Spec{Shape: a.validationShape(), DType: a.memType(), Fill: a.Fill}); err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			c := *e
			c.Where = key + ": " + e.Where
			return &c
		}
		return errs.Wrap(errs.InvalidMetadata, key+": codecs", err, "bad codecs")
	}
	a.Codecs = cfgs
	return nil
}

// validationShape is the chunk shape codecs are checked against: the
// regular chunk shape, or the first chunk's of a variable grid.
func (a *Array) validationShape() []int {
	if a.ChunkShape != nil {
		return a.ChunkShape
	}
	return a.firstChunkShape()
}

// memType is the data type chunks have in the chain: the document's type
// without stored byte orders (the bytes codec, or the v2 pipeline, has them).
func (a *Array) memType() *dtype.DataType {
	if a.DType.HasMultiByte() {
		return a.DType.WithEndian(dtype.Unset)
	}
	return a.DType
}

// ParseGroupV2 checks a ".zgroup" document.
func ParseGroupV2(key string, data []byte) error {
	doc, err := jsonx.Object(data)
	if err != nil {
		return errs.Wrap(errs.InvalidMetadata, key, err, "not a JSON object")
	}
	var f int
	if jsonx.UnmarshalStrict(doc["zarr_format"], &f) != nil || f != 2 {
		return invalid(key, "zarr_format", "must be 2, got %s", short(doc["zarr_format"]))
	}
	return nil
}

// SetShape changes the shape (resize); the document follows.
func (a *Array) SetShape(shape []int) { a.Shape = append([]int(nil), shape...) }
