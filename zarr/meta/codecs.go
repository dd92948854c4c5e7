package meta

import (
	"errors"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta/names"
)

// The model's codec chain has the v3 shape with model names (package
// names): documents are translated here, and nowhere else.

// v2Entry is one member of a .zarray's filters or compressor.
type v2Entry struct {
	field   string // "filters[1]", "compressor"
	id      string
	members map[string]jsonx.RawMessage
}

func parseV2Entry(key, field string, raw jsonx.RawMessage) (v2Entry, error) {
	var m map[string]jsonx.RawMessage
	var id string
	if jsonx.UnmarshalStrict(raw, &m) != nil || jsonx.UnmarshalStrict(m["id"], &id) != nil || id == "" {
		return v2Entry{}, invalid(key, field, "must be an object with an \"id\", got %s", short(raw))
	}
	return v2Entry{field: field, id: id, members: m}, nil
}

// codecNameError turns a namespace miss into the error a user sees: what
// the format calls the codec, or a near name.
func codecNameError(where string, err error, format int) error {
	var u *names.UnknownError
	if errors.As(err, &u) {
		e := errs.New(errs.Unsupported, where, "%v", err)
		if s := u.Suggestion(); s != "" {
			e.Suggest = s
			return e
		}
		candidates := names.Names(format)
		if format == 3 {
			// a misspelt bare numcodecs id ("zlip") suggests the v3 name
			candidates = append(candidates, names.Names(2)...)
		}
		if near := errs.Nearest(u.Name, candidates); near != "" {
			e.Suggest, _ = names.ForWriting(near)
			if format == 2 {
				e.Suggest = near
			}
		}
		return e
	}
	return errs.Wrap(errs.InvalidMetadata, where, err, "")
}

// byteOrder is the one stored order of t's multi-byte parts: '<', '>', '|'
// when it has none, 0 when they differ.
func byteOrder(t *dtype.DataType) byte {
	order := dtype.NoOrder
	for _, l := range t.Leaves(0, nil) {
		if order != dtype.NoOrder && l.Endian != order {
			return 0
		}
		order = l.Endian
	}
	return order
}

// sameView reports whether NumPy's view of bytes stored as `from` as type
// `to` is the in-memory reinterpretation the v3 chain does: both little
// endian (or without order), or both of one order and one size.
func sameView(from, to *dtype.DataType) bool {
	f, t := byteOrder(from), byteOrder(to)
	le := func(o byte) bool { return o == dtype.Little || o == dtype.NoOrder }
	if f == 0 || t == 0 {
		return false
	}
	return (le(f) && le(t)) || (f == t && from.Size == to.Size)
}

// bytesCodec is the model's bytes codec for elements stored in order.
func bytesCodec(order byte) codec.Config {
	switch order {
	case dtype.Little:
		return codec.Config{Name: "bytes", Configuration: jsonx.RawMessage(`{"endian":"little"}`)}
	case dtype.Big:
		return codec.Config{Name: "bytes", Configuration: jsonx.RawMessage(`{"endian":"big"}`)}
	}
	return codec.Config{Name: "bytes"}
}

// v2Codecs translates a v2 document's order, filters and compressor into
// the model chain. A list the v3 shape can express with the same meaning
// keeps that shape (array filters, the bytes codec with the dtype's byte
// order, bytes codecs), which keeps the fast paths; any other list (an
// array filter after a bytes filter, byte orders that differ between the
// dtype and a filter, a structured dtype of mixed orders) becomes one
// array→bytes codec that runs the list as numcodecs does.
func (a *Array) v2Codecs(key string, dtypeRaw jsonx.RawMessage, entries []v2Entry) ([]codec.Config, error) {
	var model []codec.Config
	if a.Order == "F" && len(a.Shape) > 1 {
		perm := make([]int, len(a.Shape))
		for i := range perm {
			perm[i] = len(perm) - 1 - i
		}
		c, _ := jsonx.MarshalStrict(map[string]any{"order": perm})
		model = append(model, codec.Config{Name: "transpose", Configuration: c})
	}
	shape := a.validationShape()
	mem := a.memType()
	spec := codec.Spec{Shape: shape, DType: mem, Fill: a.Fill}

	steps := make([]codec.Config, 0, len(entries))
	chain := make([]codec.Config, 0, len(entries)+1)
	cur := a.DType // the ordered type of the array representation; nil once bytes
	itemsize := a.DType.Size
	fits := byteOrder(a.DType) != 0
	for _, e := range entries {
		where := key + ": " + e.field
		name, err := names.V2(e.id)
		if err != nil {
			return nil, codecNameError(where, err, 2)
		}
		if !codec.Known(name) {
			return nil, errs.New(errs.Unsupported, where, "codec %q is not supported by this build", e.id)
		}
		cfg, err := names.Config(name, e.members, itemsize)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, where, err, "bad codec configuration")
		}
		mc := codec.Config{Name: name, Configuration: cfg}
		built, err := codec.Build(mc, spec)
		if err != nil {
			return nil, relocate(where, err)
		}
		steps = append(steps, mc)
		switch codec.Kind(built) {
		case "array→array":
			if cur == nil {
				fits = false
			}
			if v, ok := built.(codec.Viewer); ok {
				in, out := v.ViewTypes()
				if cur != nil && !in.Variable() && !sameView(cur, in) {
					fits = false
				}
				cur, itemsize = out, out.Size
			}
			chain = append(chain, mc)
		case "array→bytes":
			if cur == nil {
				fits = false
			}
			cur, itemsize = nil, 1
			chain = append(chain, mc)
		case "bytes→bytes":
			if cur != nil {
				if cur.Variable() {
					return nil, errs.New(errs.InvalidMetadata, where, "%s elements need an object codec (such as vlen-utf8) before %q", cur, e.id)
				}
				chain = append(chain, bytesCodec(byteOrder(cur)))
				cur = nil
			}
			itemsize = 1
			chain = append(chain, mc)
		}
	}
	if cur != nil {
		if cur.Variable() {
			return nil, errs.New(errs.InvalidMetadata, key+": filters", "%s elements need an object codec (such as vlen-utf8)", cur)
		}
		chain = append(chain, bytesCodec(byteOrder(cur)))
	}
	if fits {
		return append(model, chain...), nil
	}
	list := make([]pipelineStep, len(steps))
	for i, s := range steps {
		list[i] = pipelineStep{s.Name, s.Configuration}
	}
	cfg, err := jsonx.MarshalStrict(map[string]any{"dtype": dtypeRaw, "codecs": jsonx.Objects(&list)})
	if err != nil {
		return nil, err
	}
	return append(model, codec.Config{Name: codec.V2PipelineName, Configuration: cfg}), nil
}

// v3Codecs translates a zarr.json codec list (and the lists inside
// sharding configurations) into model names and configurations.
func v3Codecs(where string, raws []jsonx.RawMessage) ([]codec.Config, error) {
	out := make([]codec.Config, len(raws))
	for i, r := range raws {
		at := fmtx.Sprintf("%s[%d]", where, i)
		ext, err := parseExtension(r)
		if err != nil {
			return nil, errs.New(errs.InvalidMetadata, at, "%v", err)
		}
		name, err := names.V3(ext.Name)
		if err != nil {
			return nil, codecNameError(at, err, 3)
		}
		cfg := ext.Configuration
		switch name {
		case "blosc":
			var m map[string]jsonx.RawMessage
			if len(cfg) > 0 && string(cfg) != "null" {
				if err := jsonx.UnmarshalStrict(cfg, &m); err != nil {
					return nil, errs.New(errs.InvalidMetadata, at, "configuration must be an object")
				}
			}
			if cfg, err = names.Config(name, m, 0); err != nil {
				return nil, errs.Wrap(errs.InvalidMetadata, at, err, "bad codec configuration")
			}
		case "sharding_indexed":
			if cfg, err = v3NestedCodecs(at, cfg, "codecs", "index_codecs"); err != nil {
				return nil, err
			}
		case "optional":
			if cfg, err = v3NestedCodecs(at, cfg, "mask_codecs", "data_codecs"); err != nil {
				return nil, err
			}
		case "conditional":
			if cfg, err = v3NestedCodecs(at, cfg, "codecs"); err != nil {
				return nil, err
			}
		}
		out[i] = codec.Config{Name: name, Configuration: cfg}
	}
	return out, nil
}

// v3NestedCodecs translates the codec lists inside a configuration
// (sharding's codecs and index_codecs, optional's mask and data codecs).
func v3NestedCodecs(at string, cfg jsonx.RawMessage, fields ...string) (jsonx.RawMessage, error) {
	var m map[string]jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(cfg, &m); err != nil {
		return nil, errs.New(errs.InvalidMetadata, at, "configuration must be an object")
	}
	for _, field := range fields {
		raw, ok := m[field]
		if !ok || string(raw) == "null" {
			continue
		}
		var list []jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(raw, &list); err != nil {
			return nil, errs.New(errs.InvalidMetadata, at+": "+field, "must be a list of codecs")
		}
		inner, err := v3Codecs(at+": "+field, list)
		if err != nil {
			return nil, err
		}
		enc := make([]map[string]any, len(inner))
		for i, c := range inner {
			enc[i] = map[string]any{"name": c.Name}
			if len(c.Configuration) > 0 {
				enc[i]["configuration"] = c.Configuration
			}
		}
		if m[field], err = jsonx.MarshalStrict(enc); err != nil {
			return nil, err
		}
	}
	return jsonx.MarshalStrict(m)
}

// V3CodecsForWriting returns the codec list a new v3 array's zarr.json
// gets: names as v3 spells them (a bare numcodecs id becomes its
// "numcodecs." name, see names.ForWriting), inside sharding too.
func V3CodecsForWriting(where string, codecs []any) ([]any, error) {
	out := make([]any, len(codecs))
	for i, c := range codecs {
		at := fmtx.Sprintf("%s[%d]", where, i)
		m, ok := c.(map[string]any)
		if !ok {
			out[i] = c
			continue
		}
		name, _ := m["name"].(string)
		v3, err := names.ForWriting(name)
		if err != nil {
			return nil, codecNameError(at, err, 3)
		}
		cp := make(map[string]any, len(m))
		for k, v := range m {
			cp[k] = v
		}
		cp["name"] = v3
		if cfg, ok := m["configuration"].(map[string]any); ok && v3 == "sharding_indexed" {
			inner := make(map[string]any, len(cfg))
			for k, v := range cfg {
				inner[k] = v
			}
			for _, field := range []string{"codecs", "index_codecs"} {
				if list, ok := cfg[field].([]any); ok {
					if inner[field], err = V3CodecsForWriting(at+": "+field, list); err != nil {
						return nil, err
					}
				}
			}
			cp["configuration"] = inner
		}
		out[i] = cp
	}
	return out, nil
}

// relocate prefixes an error's location with where.
func relocate(where string, err error) error {
	var e *errs.Error
	if errors.As(err, &e) {
		c := *e
		c.Where = where
		return &c
	}
	return errs.Wrap(errs.InvalidMetadata, where, err, "bad codec configuration")
}

// pipelineStep is a codec of a v2 pipeline's configuration, as written.
type pipelineStep struct {
	Name          string           `json:"name"`
	Configuration jsonx.RawMessage `json:"configuration,omitempty"`
}

func (s *pipelineStep) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("name", &s.Name), jsonx.FOmit("configuration", &s.Configuration)}
}
