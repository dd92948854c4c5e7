package codec

import (
	"encoding/json"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// numcodecs codecs that are recognised but not implemented: their
// configurations give UNSUPPORTED with the reason rather than "unknown
// codec".
func init() {
	for id, msg := range map[string]string{
		"fletcher32":      "the fletcher32 checksum codec is not supported",
		"jenkins_lookup3": "the jenkins_lookup3 checksum codec is not supported",
	} {
		id, msg := id, msg
		Register(func(json.RawMessage, Spec) (any, error) {
			return nil, errs.New(errs.Unsupported, id, "%s", msg)
		}, id, "numcodecs."+id)
	}
}
