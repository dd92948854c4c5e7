//go:build !zarrcore

package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// conditionalCodec is the registry's "conditional": bytes→bytes codecs
// each applied or skipped per chunk, as a bitmask header before the chunk
// says (bit i, little-endian bit order, for codecs[i]). Reading follows the
// header; writing applies a codec unless it makes the chunk larger (the
// README's first example: filters always, compressors only where they do
// not inflate the chunk). Full build only.
type conditionalCodec struct {
	codecs      []BytesToBytes
	headerBytes int
}

type conditionalConfig struct {
	Codecs     []NamedConfig `json:"codecs"`
	HeaderBits *int          `json:"header_bits"`
}

func (c *conditionalConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("codecs", jsonx.Objects(&c.Codecs)), jsonx.F("header_bits", &c.HeaderBits)}
}

func init() { Register(newConditional, "conditional") }

func newConditional(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c conditionalConfig
	if err := StrictConfig(cfg, &c); err != nil {
		return nil, err
	}
	if c.Codecs == nil {
		return nil, fmtx.Errorf("configuration needs \"codecs\"")
	}
	k := &conditionalCodec{headerBytes: (len(c.Codecs) + 7) / 8}
	if c.HeaderBits != nil {
		hb := *c.HeaderBits
		if hb%8 != 0 || hb < len(c.Codecs) || hb > 1<<16 {
			return nil, fmtx.Errorf("header_bits %d must be a multiple of 8, at least the %d codecs", hb, len(c.Codecs))
		}
		k.headerBytes = hb / 8
	}
	for i, x := range c.Codecs {
		built, err := Build(Config{Name: x.Name, Configuration: x.Configuration}, in)
		if err != nil {
			return nil, fmtx.Errorf("codecs[%d]: %w", i, err)
		}
		bb, ok := built.(BytesToBytes)
		if !ok {
			return nil, fmtx.Errorf("codecs[%d] %q is not a bytes→bytes codec", i, x.Name)
		}
		k.codecs = append(k.codecs, bb)
	}
	return k, nil
}

func (k *conditionalCodec) Encode(b []byte) ([]byte, error) {
	header := make([]byte, k.headerBytes)
	for i, c := range k.codecs {
		e, err := c.Encode(b)
		if err != nil {
			return nil, err
		}
		if len(e) <= len(b) { // a filter (same size) always, a compressor where it shrinks the chunk
			b = e
			header[i/8] |= 1 << (i % 8)
		}
	}
	return append(header, b...), nil
}

func (k *conditionalCodec) Decode(b []byte) ([]byte, error) {
	if len(b) < k.headerBytes {
		return nil, Corrupt("conditional", "a chunk of %d bytes is shorter than its %d-byte header", len(b), k.headerBytes)
	}
	header, b := b[:k.headerBytes], b[k.headerBytes:]
	for i := len(k.codecs); i < len(header)*8; i++ {
		if header[i/8]&(1<<(i%8)) != 0 {
			return nil, Corrupt("conditional", "header bit %d is set but there are %d codecs", i, len(k.codecs))
		}
	}
	for i := len(k.codecs) - 1; i >= 0; i-- {
		if header[i/8]&(1<<(i%8)) == 0 {
			continue
		}
		var err error
		if b, err = k.codecs[i].Decode(b); err != nil {
			return nil, err
		}
	}
	return b, nil
}
