//go:build js && wasm

package zarr

import (
	"context"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/tsspec"
)

// defaultKvStore: in WebAssembly the JS package opens file and http
// kvstores (its FileSystemStore and FetchStore) through
// SpecOptions.OpenKvStore; the engine itself carries no HTTP client.
func defaultKvStore(_ context.Context, kv *tsspec.KvStore) (Store, error) {
	return nil, errs.New(errs.Unsupported, "spec.kvstore.driver", "the %s kvstore is opened by the JS package (SpecOptions.OpenKvStore)", kv.Driver)
}
