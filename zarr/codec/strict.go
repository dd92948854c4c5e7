package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// StrictConfig decodes a configuration object into v, refusing members v
// does not describe (with the near name): for codecs whose specification
// lists every member.
func StrictConfig(cfg jsonx.RawMessage, v jsonx.Fielder) error {
	if len(cfg) == 0 || string(cfg) == "null" {
		return nil
	}
	var members map[string]jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(cfg, &members); err != nil {
		return fmtx.Errorf("configuration must be an object, got %s", short(cfg))
	}
	var known []string
	for _, f := range v.JSONFields() {
		known = append(known, f.Key)
	}
	for k := range members {
		found := false
		for _, n := range known {
			found = found || n == k
		}
		if !found {
			return errs.New(errs.InvalidMetadata, "configuration."+k, "unknown member (members: %v)", known).WithSuggestion(k, known)
		}
	}
	return jsonx.UnmarshalStrict(cfg, v)
}

func short(raw jsonx.RawMessage) string {
	if len(raw) > 60 {
		return string(raw[:57]) + "..."
	}
	return string(raw)
}
