package meta

import (
	"testing"

	"github.com/zarr-wasm/zarr-wasm/internal/jsonxtest"
)

// The objects decoded without reflect (the core build) decode as
// encoding/json decodes them from their tags.
func TestFielders(t *testing.T) {
	jsonxtest.Check(t, &v1BloscOptions{})
	jsonxtest.Check(t, &v3Extra{})
	jsonxtest.Check(t, &regularGrid{})
	jsonxtest.Check(t, &rectilinearGrid{})
	jsonxtest.Check(t, &keyConfig{})
	jsonxtest.Check(t, &pipelineStep{})
}
