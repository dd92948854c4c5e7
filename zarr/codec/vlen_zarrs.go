//go:build !zarrcore

package codec

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// zarrs' codecs for variable-size types (string, bytes), in the full build:
//
//   - "zarrs.vlen_v2" (also written "vlen-array" with no configuration): the
//     layout of numcodecs' vlen-utf8 and vlen-bytes, for either type.
//   - "zarrs.vlen" (codec.zarrs.dev/array_to_bytes/vlen): the elements'
//     offsets (n+1 of uint32 or uint64, Arrow's layout) through
//     index_codecs and their bytes through data_codecs, with the encoded
//     index's length (u64 little-endian) first or last.

func init() {
	Register(newVlenV2, "zarrs.vlen_v2")
	Register(newVlenZarrs, "zarrs.vlen")
}

func newVlenV2(cfg jsonx.RawMessage, _ Spec) (any, error) {
	if err := StrictConfig(cfg, &emptyConfig{}); err != nil {
		return nil, err
	}
	return &vlenCodec{kind: 'b', name: "zarrs.vlen_v2"}, nil
}

type vlenZarrsConfig struct {
	Index    []NamedConfig `json:"index_codecs"`
	Data     []NamedConfig `json:"data_codecs"`
	Type     string        `json:"index_data_type"`
	Location string        `json:"index_location"`
}

func (c *vlenZarrsConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("index_codecs", jsonx.Objects(&c.Index)), jsonx.F("data_codecs", jsonx.Objects(&c.Data)),
		jsonx.F("index_data_type", &c.Type), jsonx.F("index_location", &c.Location)}
}

type vlenZarrs struct {
	index, data []Config
	wide        bool // uint64 offsets
	atEnd       bool
}

func newVlenZarrs(cfg jsonx.RawMessage, in Spec) (any, error) {
	c := vlenZarrsConfig{Type: "uint64", Location: "start"}
	if err := StrictConfig(cfg, &c); err != nil {
		return nil, err
	}
	if len(c.Index) == 0 || len(c.Data) == 0 {
		return nil, fmtx.Errorf("index_codecs and data_codecs are required")
	}
	k := &vlenZarrs{}
	switch c.Type {
	case "uint32":
	case "uint64":
		k.wide = true
	default:
		return nil, fmtx.Errorf("index_data_type must be uint32 or uint64, got %q", c.Type)
	}
	switch c.Location {
	case "start":
	case "end":
		k.atEnd = true
	default:
		return nil, fmtx.Errorf("index_location must be start or end, got %q", c.Location)
	}
	for _, x := range c.Index {
		k.index = append(k.index, Config{Name: x.Name, Configuration: x.Configuration})
	}
	for _, x := range c.Data {
		k.data = append(k.data, Config{Name: x.Name, Configuration: x.Configuration})
	}
	if in.DType != nil && in.DType.Kind != dtype.String && in.DType.Kind != dtype.VarBytes {
		return nil, fmtx.Errorf("zarrs.vlen stores strings and bytes, not %s", in.DType)
	}
	return k, nil
}

func (k *vlenZarrs) indexType() *dtype.DataType {
	if k.wide {
		return dtype.NewUint(8)
	}
	return dtype.NewUint(4)
}

func (k *vlenZarrs) chains(n, size int) (*Chain, *Chain, error) {
	it := k.indexType()
	index, err := NewChain(k.index, Spec{Shape: []int{n + 1}, DType: it, Fill: it.ZeroFill()})
	if err != nil {
		return nil, nil, err
	}
	u8 := dtype.NewUint(1)
	data, err := NewChain(k.data, Spec{Shape: []int{max(size, 1)}, DType: u8, Fill: u8.ZeroFill()})
	return index, data, err
}

func (k *vlenZarrs) Decode(b []byte, out Spec) (*nd.Array, error) {
	t := out.DType
	if t == nil || (t.Kind != dtype.String && t.Kind != dtype.VarBytes) {
		return nil, Corrupt("zarrs.vlen", "zarrs.vlen decodes strings and bytes, not %v", t)
	}
	if len(b) < 8 {
		return nil, Corrupt("zarrs.vlen", "%d bytes are too short for the index length", len(b))
	}
	var il uint64
	var rest []byte
	if k.atEnd {
		il, rest = binary.LittleEndian.Uint64(b[len(b)-8:]), b[:len(b)-8]
	} else {
		il, rest = binary.LittleEndian.Uint64(b), b[8:]
	}
	if il > uint64(len(rest)) {
		return nil, Corrupt("zarrs.vlen", "an index of %d bytes in %d", il, len(rest))
	}
	indexEnc, dataEnc := rest[:il], rest[il:]
	if k.atEnd {
		indexEnc, dataEnc = rest[len(rest)-int(il):], rest[:len(rest)-int(il)]
	}
	n := nd.Size(out.Shape)
	indexChain, _, err := k.chains(n, 1)
	if err != nil {
		return nil, err
	}
	ia, err := indexChain.Decode(indexEnc)
	if err != nil {
		return nil, err
	}
	w := k.indexType().Size
	raw := ia.Bytes()
	if len(raw) != (n+1)*w {
		return nil, Corrupt("zarrs.vlen", "the index holds %d bytes, not %d offsets", len(raw), n+1)
	}
	offsets := make([]uint64, n+1)
	for i := range offsets {
		if k.wide {
			offsets[i] = binary.LittleEndian.Uint64(raw[8*i:])
		} else {
			offsets[i] = uint64(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		if i > 0 && offsets[i] < offsets[i-1] {
			return nil, Corrupt("zarrs.vlen", "offset %d (%d) is before offset %d (%d)", i, offsets[i], i-1, offsets[i-1])
		}
	}
	if offsets[0] != 0 {
		return nil, Corrupt("zarrs.vlen", "the first offset is %d, not 0", offsets[0])
	}
	total := offsets[n]
	var data []byte
	if total > 0 {
		if total > uint64(effectiveLimit(0)) {
			return nil, Corrupt("zarrs.vlen", "the index's %d bytes of data are beyond the limit", total)
		}
		_, dataChain, err := k.chains(n, int(total))
		if err != nil {
			return nil, err
		}
		da, err := dataChain.Decode(dataEnc)
		if err != nil {
			return nil, err
		}
		data = da.Bytes()
		if uint64(len(data)) != total {
			return nil, Corrupt("zarrs.vlen", "%d bytes of data, the index says %d", len(data), total)
		}
	}
	vals := make([]any, n)
	for i := range vals {
		item := data[offsets[i]:offsets[i+1]]
		if t.Kind == dtype.String {
			if !utf8.Valid(item) {
				return nil, Corrupt("zarrs.vlen", "item %d is not valid UTF-8", i)
			}
			vals[i] = string(item)
		} else {
			vals[i] = append([]byte{}, item...)
		}
	}
	return nd.FromObjects(t, out.Shape, vals)
}

func (k *vlenZarrs) Encode(a *nd.Array) ([]byte, error) {
	items, err := a.Objects()
	if err != nil {
		return nil, err
	}
	n := len(items)
	w := k.indexType().Size
	index := make([]byte, (n+1)*w)
	var data []byte
	for i, v := range items {
		switch x := v.(type) {
		case string:
			data = append(data, x...)
		case []byte:
			data = append(data, x...)
		case nil:
		default:
			return nil, fmtx.Errorf("zarrs.vlen: item %d is %T, not a string or bytes", i, v)
		}
		if k.wide {
			binary.LittleEndian.PutUint64(index[8*(i+1):], uint64(len(data)))
		} else {
			if uint64(len(data)) > 1<<32-1 {
				return nil, fmtx.Errorf("zarrs.vlen: %d bytes of data overflow a uint32 index", len(data))
			}
			binary.LittleEndian.PutUint32(index[4*(i+1):], uint32(len(data)))
		}
	}
	indexChain, dataChain, err := k.chains(n, len(data))
	if err != nil {
		return nil, err
	}
	ia, _ := nd.FromBytes(k.indexType(), []int{n + 1}, index)
	ie, err := indexChain.Encode(ia)
	if err != nil {
		return nil, err
	}
	var de []byte
	if len(data) > 0 {
		da, _ := nd.FromBytes(dtype.NewUint(1), []int{len(data)}, data)
		if de, err = dataChain.Encode(da); err != nil {
			return nil, err
		}
	}
	head := binary.LittleEndian.AppendUint64(nil, uint64(len(ie)))
	if k.atEnd {
		return append(append(de, ie...), head...), nil
	}
	return append(append(head, ie...), de...), nil
}
