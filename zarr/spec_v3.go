package zarr

import (
	"context"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/tsspec"
)

func openSpecV3(ctx context.Context, s *tsspec.Spec, st Store, path string) (*Array, error) {
	return nil, errs.New(errs.Unsupported, "spec.driver", "zarr3 specs are not supported yet")
}

func (a *Array) specV3() (map[string]any, error) {
	return nil, errs.New(errs.Unsupported, a.path, "zarr3 specs are not supported yet")
}

func (a *Array) schemaV3() (map[string]any, error) {
	return nil, errs.New(errs.Unsupported, a.path, "zarr3 schemas are not supported yet")
}
