package meta

import (
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// ParseV1 parses a v1 "meta" document. v1 names its compressor
// "compression" with "compression_opts"; they become the same codecs v2 uses.
func ParseV1(key string, data []byte) (*Array, error) {
	doc, err := jsonx.Object(data)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key, err, "not a JSON object")
	}
	v2 := map[string]jsonx.RawMessage{}
	for k, v := range doc {
		v2[k] = v
	}
	var name string
	if raw, ok := doc["compression"]; ok && string(raw) != "null" {
		if jsonx.UnmarshalStrict(raw, &name) != nil {
			return nil, invalid(key, "compression", "must be a string, got %s", short(raw))
		}
	}
	opts := doc["compression_opts"]
	var compressor any
	switch name {
	case "", "none":
	case "blosc":
		var o v1BloscOptions
		if len(opts) > 0 && jsonx.UnmarshalStrict(opts, &o) != nil {
			return nil, invalid(key, "compression_opts", "blosc options must be {cname, clevel, shuffle}")
		}
		compressor = map[string]any{"id": "blosc", "cname": o.Cname, "clevel": o.Clevel, "shuffle": o.Shuffle}
	default:
		c := map[string]any{"id": name}
		if len(opts) > 0 && string(opts) != "null" {
			var level int
			if jsonx.UnmarshalStrict(opts, &level) != nil {
				return nil, invalid(key, "compression_opts", "must be a compression level for %q", name)
			}
			c["level"] = level
		}
		compressor = c
	}
	craw, _ := jsonx.MarshalStrict(compressor)
	v2["compressor"] = craw
	delete(v2, "filters")
	a, err := fromV2Doc(key, v2, 1)
	if err != nil {
		return nil, err
	}
	a.doc = doc
	return a, nil
}

type v1BloscOptions struct {
	Cname   string `json:"cname"`
	Clevel  int    `json:"clevel"`
	Shuffle int    `json:"shuffle"`
}

func (o *v1BloscOptions) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("cname", &o.Cname), jsonx.F("clevel", &o.Clevel), jsonx.F("shuffle", &o.Shuffle)}
}
