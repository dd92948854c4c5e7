package codec

import (
	"testing"

	"github.com/zarr-wasm/zarr-wasm/internal/jsonxtest"
)

// The configurations decoded without reflect (the core build) decode as
// encoding/json decodes them from their tags.
func TestFielders(t *testing.T) {
	jsonxtest.Check(t, &NamedConfig{})
	jsonxtest.Check(t, &Config{})
	jsonxtest.Check(t, &bloscConfig{})
	jsonxtest.Check(t, &bytesConfig{})
	jsonxtest.Check(t, &optionalConfig{})
	jsonxtest.Check(t, &shardingConfig{})
	jsonxtest.Check(t, &transposeConfig{})
	jsonxtest.Check(t, &v2PipelineConfig{})
}
