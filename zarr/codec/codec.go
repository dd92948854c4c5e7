// Package codec implements Zarr codecs and the codec chain every format is
// translated into: array→array codecs, then exactly one array→bytes codec,
// then bytes→bytes codecs (the v3 shape). Codecs are registered under their
// model names — v3 names ("bytes", "zstd", "blosc", "sharding_indexed") and
// namespaced names ("numcodecs.delta", "numcodecs.zlib"). Package meta alone
// translates what documents say (v2 ids, v3 aliases) into these names and
// normalised configurations; a codec never guesses which format it came from.
package codec

import (
	"sort"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	zstore "github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Spec is the decoded representation a codec receives: chunk shape and data
// type (and the fill value, which sharding needs for empty inner chunks).
type Spec struct {
	Shape []int
	DType *dtype.DataType
	Fill  dtype.Fill
}

// ArrayToArray codecs change an array into another array (transpose, delta,
// fixedscaleoffset, ...).
type ArrayToArray interface {
	// Encoded returns the representation Encode produces from in.
	Encoded(in Spec) (Spec, error)
	Encode(a *nd.Array) (*nd.Array, error)
	// Decode inverts Encode; out is the representation to produce.
	Decode(a *nd.Array, out Spec) (*nd.Array, error)
}

// ArrayToBytes codecs serialise an array (bytes, vlen-utf8, sharding, ...).
type ArrayToBytes interface {
	Encode(a *nd.Array) ([]byte, error)
	Decode(b []byte, out Spec) (*nd.Array, error)
}

// BytesToBytes codecs transform bytes (compressors, shuffle, checksums).
type BytesToBytes interface {
	Encode(b []byte) ([]byte, error)
	Decode(b []byte) ([]byte, error)
}

// FixedSizer is implemented by codecs whose encoded size is known from the
// input size alone (bytes, crc32c); sharding needs it for the index size.
type FixedSizer interface {
	EncodedSize(n int) (int, bool)
}

// Config is one codec as named in metadata: a v3 name (or v2 id) and its
// configuration object.
type Config struct {
	Name          string
	Configuration jsonx.RawMessage // a JSON object, or nil
}

// NamedConfig is a codec entry of a JSON codec list: {"name",
// "configuration"}.
type NamedConfig struct {
	Name          string           `json:"name"`
	Configuration jsonx.RawMessage `json:"configuration"`
}

// JSONFields describes NamedConfig to jsonx (no reflect in the core build).
func (c *NamedConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("name", &c.Name), jsonx.F("configuration", &c.Configuration)}
}

// JSONFields describes Config (its Go field names are its keys).
func (c *Config) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("Name", &c.Name), jsonx.F("Configuration", &c.Configuration)}
}

// Factory builds a codec from its configuration. in is the representation
// the codec receives when encoding: for bytes→bytes codecs, the array
// representation before the array→bytes codec (blosc takes its typesize
// from it).
type Factory func(cfg jsonx.RawMessage, in Spec) (any, error)

var registry = map[string]Factory{}

// Register adds a codec under its model name(s): a v3 name or a namespaced
// name such as "numcodecs.delta". Which document names reach it (v2 ids in
// a .zarray, v3 names and aliases in zarr.json) is decided by package meta
// (zarr/meta/names). Registering a name again replaces its factory for
// every array: the WebAssembly bridge wraps the compressors the host can
// decode that way at init (Lookup, then Register).
func Register(f Factory, names ...string) {
	for _, n := range names {
		registry[n] = f
	}
}

// Lookup returns the factory registered under name, so a host can wrap a
// codec (the WebAssembly bridge inflates zlib and gzip with the host's
// native DecompressionStream).
func Lookup(name string) (Factory, bool) {
	f, ok := registry[name]
	return f, ok
}

// Names lists the registered codec names.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Known reports whether name is a registered model name or one this build
// knows and refuses (Refusal says why).
func Known(name string) bool {
	_, ok := registry[name]
	_, refused := knownUnsupported[name]
	return ok || refused || inOtherBuild(name)
}

// Refusal returns why a known codec is never run, or "".
func Refusal(name string) string { return knownUnsupported[name] }

// Build returns a codec for cfg (cfg.Name a model name).
func Build(cfg Config, in Spec) (any, error) {
	f, ok := registry[cfg.Name]
	if !ok {
		if msg, known := knownUnsupported[cfg.Name]; known {
			return nil, errs.New(errs.Unsupported, cfg.Name, "%s", msg)
		}
		if inOtherBuild(cfg.Name) {
			return nil, otherBuild(cfg.Name)
		}
		return nil, errs.New(errs.Unsupported, cfg.Name, "unknown codec").WithSuggestion(cfg.Name, Names())
	}
	c, err := f(cfg.Configuration, in)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, cfg.Name, err, "bad codec configuration")
	}
	return c, nil
}

// knownUnsupported names codecs people meet in the wild that this build
// cannot run, with the reason.
var knownUnsupported = map[string]string{
	"arrow-ipc":         "refused (pull request 41, open): needs an Apache Arrow IPC reader and writer, and nothing here writes Arrow chunks to check against (Debian 12 has no pyarrow)",
	"label_multiset":    "refused (pull request 55, open): it serializes the label_multiset data type, which is refused (see there)",
	"n5_label_multiset": "refused (pull request 56, open): it serializes the label_multiset data type, which is refused (see there)",
	"n5_varlen":         "refused (pull request 54, open): varlength N5 blocks hold label multisets (the label_multiset data type, refused); default-mode blocks read through n5_default",
	"numcodecs.pickle": "pickle runs arbitrary code when it decodes (Python's pickle can call any function), so it is never supported; " +
		"rewrite the array with an object codec such as vlen-utf8, json2 or msgpack2",
}

// ParseConfig decodes a JSON configuration object into v. Unknown fields are
// ignored: v2 configurations carry "id" and writers add their own.
func ParseConfig(cfg jsonx.RawMessage, v any) error {
	if len(cfg) == 0 || string(cfg) == "null" {
		return nil
	}
	return jsonx.UnmarshalStrict(cfg, v)
}

// Chain is a resolved codec pipeline for one chunk representation.
type Chain struct {
	AA    []ArrayToArray
	AB    ArrayToBytes
	BB    []BytesToBytes
	specs []Spec // specs[i] is the input representation of AA[i]; specs[len(AA)] that of AB
}

// NewChain builds the codecs of cfgs (array→array first, one array→bytes,
// then bytes→bytes) for chunks of representation in.
func NewChain(cfgs []Config, in Spec) (*Chain, error) {
	c := &Chain{specs: []Spec{in}}
	cur := in
	afterBytes := false
	for _, cfg := range cfgs {
		built, err := Build(cfg, cur)
		if err != nil {
			return nil, err
		}
		switch k := built.(type) {
		case ArrayToArray:
			if afterBytes {
				return nil, errs.New(errs.InvalidMetadata, cfg.Name, "array→array codec after the array→bytes codec")
			}
			next, err := k.Encoded(cur)
			if err != nil {
				return nil, errs.Wrap(errs.InvalidMetadata, cfg.Name, err, "codec cannot take %s", cur.DType)
			}
			c.AA = append(c.AA, k)
			cur = next
			c.specs = append(c.specs, cur)
		case ArrayToBytes:
			if afterBytes {
				return nil, errs.New(errs.InvalidMetadata, cfg.Name, "a second array→bytes codec")
			}
			c.AB = k
			afterBytes = true
		case BytesToBytes:
			if !afterBytes {
				return nil, errs.New(errs.InvalidMetadata, "codecs", "bytes→bytes codec %q before the array→bytes codec (such as \"bytes\")", cfg.Name)
			}
			c.BB = append(c.BB, k)
		default:
			return nil, fmtx.Errorf("codec %q has no known kind", cfg.Name)
		}
	}
	if c.AB == nil {
		return nil, errs.New(errs.InvalidMetadata, "codecs", "no array→bytes codec (such as \"bytes\")")
	}
	return c, nil
}

// Kind names the kind of a built codec: "array→array", "array→bytes",
// "bytes→bytes", or "" for none.
func Kind(built any) string {
	switch built.(type) {
	case ArrayToArray:
		return "array→array"
	case ArrayToBytes:
		return "array→bytes"
	case BytesToBytes:
		return "bytes→bytes"
	}
	return ""
}

// Viewer is implemented by the numcodecs filters that view their input's
// bytes as a configured type and produce another: the types as configured,
// with their byte orders (meta decides from them whether a v2 filter list
// keeps the v3 chain's in-memory semantics).
type Viewer interface {
	ViewTypes() (in, out *dtype.DataType)
}

// Decode decodes one stored chunk into an array of the chain's input
// representation. The result may share b's memory: callers that modify it
// must copy it first.
func (c *Chain) Decode(b []byte) (*nd.Array, error) {
	var err error
	for i := len(c.BB) - 1; i >= 0; i-- {
		// The codec next to a fixed-size array→bytes codec knows exactly how
		// much it may produce: a decompression bomb stops there.
		if ld, ok := c.BB[i].(LimitedDecoder); ok && i == 0 {
			if n, fixed := c.decodedBytes(); fixed {
				if b, err = ld.DecodeLimit(b, max(n, 1)); err != nil {
					return nil, err
				}
				continue
			}
		}
		if b, err = c.BB[i].Decode(b); err != nil {
			return nil, err
		}
	}
	if len(c.BB) == 0 && len(c.AA) > 0 {
		// The array→bytes codec may share b with the store; array→array
		// codecs may work in place.
		b = append([]byte(nil), b...)
	}
	a, err := c.AB.Decode(b, c.specs[len(c.AA)])
	if err != nil {
		return nil, err
	}
	for i := len(c.AA) - 1; i >= 0; i-- {
		if a, err = c.AA[i].Decode(a, c.specs[i]); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Encode encodes one chunk (of the chain's input representation).
func (c *Chain) Encode(a *nd.Array) ([]byte, error) {
	var err error
	for _, k := range c.AA {
		if a, err = k.Encode(a); err != nil {
			return nil, err
		}
	}
	b, err := c.AB.Encode(a)
	if err != nil {
		return nil, err
	}
	for _, k := range c.BB {
		if b, err = k.Encode(b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// decodedBytes is the size the array→bytes codec consumes when it is the
// plain bytes codec.
func (c *Chain) decodedBytes() (int, bool) {
	if _, ok := c.AB.(*bytesCodec); !ok {
		return 0, false
	}
	in := c.specs[len(c.AA)]
	return nd.Size(in.Shape) * in.DType.Size, true
}

// Plain reports whether decoding the chain is at most one bytes→bytes
// codec (bb; nil for none) over a bytes codec that hands its input on as
// the elements (no byte swapping, no sub-byte integers, no array→array
// codecs): then a stored chunk, decompressed, is its elements as they are
// in memory.
func (c *Chain) Plain() (bb BytesToBytes, ok bool) {
	b, isBytes := c.AB.(*bytesCodec)
	if !isBytes || len(c.AA) > 0 || len(c.BB) > 1 {
		return nil, false
	}
	dt := c.specs[0].DType
	if _, _, lowInt := dtype.LowPrecInt(dt.Format); lowInt || b.swaps(dt) || dt.Variable() {
		return nil, false
	}
	if len(c.BB) == 1 {
		return c.BB[0], true
	}
	return nil, true
}

// Corrupt returns the CODEC error for undecodable chunk data.
func Corrupt(codec string, format string, args ...any) error {
	return errs.New(errs.Codec, codec, format, args...)
}

// PartialDecoder is implemented by array→bytes codecs whose stored chunk
// holds separately decodable parts behind an index (sharding), so a read
// fetches the index and then only the parts it needs. The codec parses and
// decodes; the engine reads (ties the parts to the index's version, caches
// and shares them).
type PartialDecoder interface {
	// IndexRange is where the index lies in the stored chunk (an error
	// when reading it would not fit the memory budget).
	IndexRange() (zstore.ByteRange, error)
	// Plan parses the index and lists the parts that region (one Range
	// per dimension of the chunk) touches. Parts the chunk does not hold
	// are left out: they read as the fill value.
	Plan(index []byte, region []nd.Range) ([]Part, error)
	// DecodePart decodes the stored bytes of one part.
	DecodePart(data []byte) (*nd.Array, error)
}

// Part is one separately stored piece of a chunk a read needs.
type Part struct {
	Index          int        // the part's number in the chunk (C order)
	Offset, Length int64      // its bytes in the stored chunk
	In, Out        []nd.Range // the region read from the part, and where it lands in the region's result
}

// Partial returns the chain's partial decoder when the whole chain can
// decode by ranges: no array→array or bytes→bytes codecs around a partial
// array→bytes codec.
func (c *Chain) Partial() PartialDecoder {
	if len(c.AA) > 0 || len(c.BB) > 0 {
		return nil
	}
	p, _ := c.AB.(PartialDecoder)
	return p
}

// EncodedSize returns the size of the chain's output for fixed-size input,
// when every codec's output size is known from its input size.
func (c *Chain) EncodedSize() (int, bool) {
	in := c.specs[len(c.AA)]
	n := nd.Size(in.Shape) * in.DType.Size
	for _, k := range append([]any{c.AB}, bbAny(c.BB)...) {
		fs, ok := k.(FixedSizer)
		if !ok {
			return 0, false
		}
		if n, ok = fs.EncodedSize(n); !ok {
			return 0, false
		}
	}
	return n, true
}

func bbAny(bb []BytesToBytes) []any {
	out := make([]any, len(bb))
	for i, b := range bb {
		out[i] = b
	}
	return out
}
