package zarr

import (
	"testing"

	"github.com/zarr-wasm/zarr-wasm/internal/jsonxtest"
)

// The objects decoded without reflect (the core build) decode as
// encoding/json decodes them from their tags.
func TestFielders(t *testing.T) {
	jsonxtest.Check(t, &shardingShape{})
	jsonxtest.Check(t, &transposeOrder{})
	jsonxtest.Check(t, &consolidatedDoc{})
	jsonxtest.Check(t, &v3ConsolidatedDoc{})
}
