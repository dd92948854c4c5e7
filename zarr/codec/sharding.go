package codec

import (
	"encoding/binary"
	"math"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/grid"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	zstore "github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// shardingCodec is "sharding_indexed": a shard holds inner chunks, each
// encoded with its own chain, and an index of (offset, nbytes) per inner
// chunk at the start or end, encoded with the index chain.
type shardingCodec struct {
	inner      []int // inner chunk shape
	perShard   []int // inner chunks per shard along each dimension
	chain      *Chain
	indexChain *Chain
	indexSize  int
	indexAtEnd bool
	dt         *dtype.DataType
	fill       dtype.Fill
	shardShape []int
	innerGrid  grid.Grid
}

func init() { Register(newSharding, "sharding_indexed") }

// emptyChunk marks an absent inner chunk in the index (both fields).
const emptyChunk = math.MaxUint64

type shardingConfig struct {
	ChunkShape    []int              `json:"chunk_shape"`
	Codecs        []jsonx.RawMessage `json:"codecs"`
	IndexCodecs   []jsonx.RawMessage `json:"index_codecs"`
	IndexLocation *string            `json:"index_location"`
}

func (c *shardingConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("chunk_shape", &c.ChunkShape), jsonx.F("codecs", &c.Codecs),
		jsonx.F("index_codecs", &c.IndexCodecs), jsonx.F("index_location", &c.IndexLocation)}
}

func newSharding(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c shardingConfig
	if err := ParseConfig(cfg, &c); err != nil {
		return nil, err
	}
	if len(c.ChunkShape) != len(in.Shape) {
		return nil, fmtx.Errorf("chunk_shape %v has %d dimensions, the shard has %d", c.ChunkShape, len(c.ChunkShape), len(in.Shape))
	}
	s := &shardingCodec{inner: c.ChunkShape, dt: in.DType, fill: in.Fill, shardShape: in.Shape, indexAtEnd: true}
	s.perShard = make([]int, len(in.Shape))
	for i, n := range c.ChunkShape {
		if n <= 0 || in.Shape[i]%n != 0 {
			return nil, fmtx.Errorf("inner chunk_shape %v must divide the shard shape %v", c.ChunkShape, in.Shape)
		}
		s.perShard[i] = in.Shape[i] / n
	}
	if n, ok := nd.CheckedSize(s.perShard, 16); !ok || n > 1<<31 {
		return nil, fmtx.Errorf("too many inner chunks per shard (%v)", s.perShard)
	}
	if c.IndexLocation != nil {
		switch *c.IndexLocation {
		case "start":
			s.indexAtEnd = false
		case "end":
		default:
			return nil, fmtx.Errorf("index_location must be \"start\" or \"end\", got %q", *c.IndexLocation)
		}
	}
	if c.Codecs == nil || c.IndexCodecs == nil {
		return nil, fmtx.Errorf("codecs and index_codecs are both required")
	}
	innerCfgs, err := extensionList(c.Codecs)
	if err != nil {
		return nil, fmtx.Errorf("codecs: %w", err)
	}
	if s.chain, err = NewChain(innerCfgs, Spec{Shape: c.ChunkShape, DType: in.DType, Fill: in.Fill}); err != nil {
		return nil, err
	}
	indexCfgs, err := extensionList(c.IndexCodecs)
	if err != nil {
		return nil, fmtx.Errorf("index_codecs: %w", err)
	}
	indexDT := &dtype.DataType{Kind: dtype.Uint, Size: 8, Endian: dtype.Unset, Name: "uint64"}
	indexShape := append(append([]int(nil), s.perShard...), 2)
	if s.indexChain, err = NewChain(indexCfgs, Spec{Shape: indexShape, DType: indexDT}); err != nil {
		return nil, err
	}
	var ok bool
	if s.indexSize, ok = s.indexChain.EncodedSize(); !ok {
		return nil, fmtx.Errorf("index_codecs must produce a fixed size (no compression)")
	}
	s.innerGrid, _ = grid.NewRegular(c.ChunkShape)
	return s, nil
}

// extensionList reads a v3 codec list (names or {"name", "configuration"}).
func extensionList(raws []jsonx.RawMessage) ([]Config, error) {
	out := make([]Config, len(raws))
	for i, r := range raws {
		var name string
		if jsonx.UnmarshalStrict(r, &name) == nil {
			out[i] = Config{Name: name}
			continue
		}
		var obj NamedConfig
		if err := jsonx.UnmarshalStrict(r, &obj); err != nil || obj.Name == "" {
			return nil, fmtx.Errorf("entry %d is not a codec", i)
		}
		out[i] = Config{Name: obj.Name, Configuration: obj.Configuration}
	}
	return out, nil
}

type slot struct{ offset, nbytes uint64 }

// indexWork checks that copies of the shard index (16 bytes per inner
// chunk) fit the memory budget: a shard may declare 2^27 inner chunks.
func (s *shardingCodec) indexWork(copies int64) error {
	return budget.Check(fmtx.Sprintf("the index of a shard of %v inner chunks", s.perShard), budget.Mul(int64(s.indexSize), copies))
}

// parseIndex decodes the index bytes into one slot per inner chunk (C order).
func (s *shardingCodec) parseIndex(b []byte) ([]slot, error) {
	if err := s.indexWork(2); err != nil { // decoded index, slots
		return nil, err
	}
	a, err := s.indexChain.Decode(b)
	if err != nil {
		return nil, err
	}
	raw := a.Bytes()
	slots := make([]slot, len(raw)/16)
	for i := range slots {
		slots[i] = slot{binary.LittleEndian.Uint64(raw[i*16:]), binary.LittleEndian.Uint64(raw[i*16+8:])}
	}
	return slots, nil
}

func (sl slot) empty() bool { return sl.offset == emptyChunk && sl.nbytes == emptyChunk }

// innerOrigin returns the element ranges of inner chunk k (C order) in the shard.
func (s *shardingCodec) innerRegion(k int) []nd.Range {
	r := make([]nd.Range, len(s.perShard))
	for d := len(s.perShard) - 1; d >= 0; d-- {
		i := k % s.perShard[d]
		k /= s.perShard[d]
		r[d] = nd.Range{Start: i * s.inner[d], Step: 1, Count: s.inner[d]}
	}
	return r
}

func (s *shardingCodec) Decode(b []byte, out Spec) (*nd.Array, error) {
	if len(b) < s.indexSize {
		return nil, Corrupt("sharding_indexed", "shard has %d bytes, less than its %d-byte index", len(b), s.indexSize)
	}
	ib := b[:s.indexSize]
	if s.indexAtEnd {
		ib = b[len(b)-s.indexSize:]
	}
	slots, err := s.parseIndex(ib)
	if err != nil {
		return nil, err
	}
	res := nd.Filled(s.dt, out.Shape, s.fill)
	for k, sl := range slots {
		if sl.empty() {
			continue
		}
		if sl.offset > uint64(len(b)) || sl.nbytes > uint64(len(b))-sl.offset {
			return nil, Corrupt("sharding_indexed", "inner chunk %d at bytes %d+%d lies outside the %d-byte shard", k, sl.offset, sl.nbytes, len(b))
		}
		chunk, err := s.chain.Decode(b[sl.offset : sl.offset+sl.nbytes])
		if err != nil {
			return nil, err
		}
		nd.Copy(res, s.innerRegion(k), chunk, nd.Whole(s.inner))
	}
	return res, nil
}

func (s *shardingCodec) Encode(a *nd.Array) ([]byte, error) {
	// slots, raw index, encoded index, and the index appended to the body
	if err := s.indexWork(4); err != nil {
		return nil, err
	}
	n := nd.Size(s.perShard)
	slots := make([]slot, n)
	var body []byte
	base := 0
	if !s.indexAtEnd {
		base = s.indexSize
	}
	for k := 0; k < n; k++ {
		part := nd.New(s.dt, s.inner)
		nd.Copy(part, nd.Whole(s.inner), a, s.innerRegion(k))
		if !s.fill.Null && part.AllEqual(s.fill) {
			slots[k] = slot{emptyChunk, emptyChunk}
			continue
		}
		enc, err := s.chain.Encode(part)
		if err != nil {
			return nil, err
		}
		slots[k] = slot{uint64(base + len(body)), uint64(len(enc))}
		body = append(body, enc...)
	}
	indexDT := &dtype.DataType{Kind: dtype.Uint, Size: 8, Endian: dtype.Unset}
	raw := make([]byte, n*16)
	for k, sl := range slots {
		binary.LittleEndian.PutUint64(raw[k*16:], sl.offset)
		binary.LittleEndian.PutUint64(raw[k*16+8:], sl.nbytes)
	}
	idx, _ := nd.FromBytes(indexDT, append(append([]int(nil), s.perShard...), 2), raw)
	ib, err := s.indexChain.Encode(idx)
	if err != nil {
		return nil, err
	}
	if len(ib) != s.indexSize {
		return nil, fmtx.Errorf("sharding: index encoded to %d bytes, expected %d", len(ib), s.indexSize)
	}
	if s.indexAtEnd {
		return append(body, ib...), nil
	}
	return append(ib, body...), nil
}

// IndexRange is the index: a suffix of the shard when it is at the end.
// Reading and parsing it must fit the memory budget.
func (s *shardingCodec) IndexRange() (zstore.ByteRange, error) {
	if err := s.indexWork(3); err != nil { // read, decoded, slots
		return zstore.ByteRange{}, err
	}
	if s.indexAtEnd {
		return zstore.Last(int64(s.indexSize)), nil
	}
	return zstore.Span(0, int64(s.indexSize)), nil
}

// Plan lists the inner chunks region touches that the shard holds.
func (s *shardingCodec) Plan(index []byte, region []nd.Range) ([]Part, error) {
	if len(index) != s.indexSize {
		return nil, Corrupt("sharding_indexed", "index read returned %d bytes, expected %d", len(index), s.indexSize)
	}
	slots, err := s.parseIndex(index)
	if err != nil {
		return nil, err
	}
	var parts []Part
	add := func(k int, in, out []nd.Range) error {
		sl := slots[k]
		if sl.empty() {
			return nil
		}
		if sl.nbytes > 1<<40 || sl.offset > 1<<50 {
			return Corrupt("sharding_indexed", "inner chunk %d has an implausible range %d+%d", k, sl.offset, sl.nbytes)
		}
		parts = append(parts, Part{Index: k, Offset: int64(sl.offset), Length: int64(sl.nbytes), In: in, Out: out})
		return nil
	}
	if len(region) == 0 { // 0-d shard
		return parts, add(0, nil, nil)
	}
	per := make([][]grid.Piece, len(region))
	for d, rg := range region {
		per[d] = grid.Pieces(s.innerGrid[d], rg)
		if len(per[d]) == 0 {
			return nil, nil
		}
	}
	pos := make([]int, len(region))
	for {
		k := 0
		in, out := make([]nd.Range, len(region)), make([]nd.Range, len(region))
		for d, p := range pos {
			pc := per[d][p]
			k = k*s.perShard[d] + pc.Chunk
			in[d], out[d] = pc.In, pc.Out
		}
		if err := add(k, in, out); err != nil {
			return nil, err
		}
		d := len(pos) - 1
		for ; d >= 0; d-- {
			pos[d]++
			if pos[d] < len(per[d]) {
				break
			}
			pos[d] = 0
		}
		if d < 0 {
			return parts, nil
		}
	}
}

// DecodePart decodes one inner chunk.
func (s *shardingCodec) DecodePart(data []byte) (*nd.Array, error) { return s.chain.Decode(data) }

// ShardLayout is what a reader outside the engine needs to read a shard's
// inner chunks itself: their shape and chain (one chunk each), and where
// the index lies (IndexRange; Plan parses it).
type ShardLayout interface {
	PartialDecoder
	InnerChunks() (shape []int, chain *Chain)
}

func (s *shardingCodec) InnerChunks() ([]int, *Chain) { return s.inner, s.chain }
