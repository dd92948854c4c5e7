// Package meta parses Zarr metadata documents (v1 "meta"; v2 ".zarray",
// ".zgroup", ".zattrs"; v3 "zarr.json") into one array model — shape, data
// type, chunk grid, chunk key encoding, fill value, codec chain, attributes —
// with explicit codec configurations (v2 ids and v3 names translated through
// package names, the byte order on the bytes codec). It also writes every
// document the engine stores (document.go): a new array's or group's, for
// package zarr's create functions and for TensorStore specs (zarr/tsspec),
// attributes, consolidated metadata, a resized array's. Reading and writing
// chunks never branch on the format; choosing a new node's document does
// (package zarr).
package meta

import (
	"strconv"
	"strings"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/grid"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// Array is the format-independent description of an array.
type Array struct {
	ZarrFormat int
	Shape      []int
	DType      *dtype.DataType
	Grid       grid.Grid
	// ChunkShape is the chunk shape of a regular grid; nil for variable grids.
	ChunkShape []int
	// ChunkSizes lists, for a variable grid, each dimension's chunk sizes
	// (nil for a dimension that is regular: see Grid).
	ChunkSizes [][]int
	Keys       KeyEncoding
	Fill       dtype.Fill
	// Codecs is the chain in v3 shape: array→array, one array→bytes,
	// bytes→bytes (the v2 filters and compressor translated).
	Codecs         []codec.Config
	Order          string // "C" or "F" for v1/v2 documents
	Attrs          map[string]any
	DimensionNames []string

	// doc is the original document, kept to rewrite it on resize.
	doc map[string]jsonx.RawMessage
	// Key is the store key of the metadata document.
	Key string

	mu     sync.Mutex
	chains map[string]*codec.Chain
}

// Chain returns the codec chain for chunks of the given shape.
func (a *Array) Chain(shape []int) (*codec.Chain, error) {
	key := shapeKey(shape)
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.chains[key]; ok {
		return c, nil
	}
	c, err := codec.NewChain(a.Codecs, codec.Spec{Shape: shape, DType: a.memType(), Fill: a.Fill})
	if err != nil {
		return nil, err
	}
	if a.chains == nil {
		a.chains = map[string]*codec.Chain{}
	}
	a.chains[key] = c
	return c, nil
}

// shapeKey is a chunk shape as a map key ("256,256"); fmt.Sprint did it
// once per chunk read, and made V8 compile fmt's printer at startup.
func shapeKey(shape []int) string {
	b := make([]byte, 0, 8*len(shape))
	for i, n := range shape {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(b)
}

// invalid returns an INVALID_METADATA error naming the document and field.
func invalid(key, field string, format string, args ...any) error {
	where := key
	if field != "" {
		where = key + ": " + field
	}
	return errs.New(errs.InvalidMetadata, where, format, args...)
}

// ParseAttrs parses an attributes document (".zattrs", "attrs").
func ParseAttrs(key string, data []byte) (map[string]any, error) {
	var m map[string]any
	if err := jsonx.Unmarshal(data, &m); err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key, err, "attributes are not a JSON object")
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// NormalizePath normalises a logical node path as the v2 spec says:
// backslashes become slashes, leading, trailing and repeated slashes go.
// "." and ".." segments are an error.
func NormalizePath(p string) (string, error) {
	p = strings.ReplaceAll(p, "\\", "/")
	var segs []string
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "":
			continue
		case ".", "..":
			return "", errs.New(errs.InvalidMetadata, p, "path segments \".\" and \"..\" are not allowed")
		}
		segs = append(segs, s)
	}
	return strings.Join(segs, "/"), nil
}

// Prefix returns the key prefix of a normalised node path ("" or "a/b/").
func Prefix(path string) string {
	if path == "" {
		return ""
	}
	return path + "/"
}

func parseInts(key, field string, raw jsonx.RawMessage) ([]int, error) {
	var v []int64
	if err := jsonx.UnmarshalStrict(raw, &v); err != nil {
		return nil, invalid(key, field, "must be a list of integers, got %s", short(raw))
	}
	out := make([]int, len(v))
	for i, n := range v {
		if n < 0 || n > 1<<53 {
			return nil, invalid(key, field, "entry %d (%d) is out of range", i, n)
		}
		out[i] = int(n)
	}
	return out, nil
}

func short(raw []byte) string {
	s := string(raw)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
