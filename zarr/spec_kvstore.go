//go:build !(js && wasm)

package zarr

import (
	"context"
	nethttp "net/http"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store/http"
	"github.com/zarr-wasm/zarr-wasm/zarr/tsspec"
)

// defaultKvStore opens file kvstores as directory stores and http ones
// with the native HTTP store (read-only, Range requests).
func defaultKvStore(_ context.Context, kv *tsspec.KvStore) (Store, error) {
	switch kv.Driver {
	case "file":
		return NewDirectoryStore(kv.Path)
	case "http":
		h := nethttp.Header{}
		for _, line := range kv.Headers {
			name, value, _ := strings.Cut(line, ":")
			h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		}
		return http.NewStore(kv.URL(), http.Options{Header: h})
	}
	return nil, errs.New(errs.Unsupported, "spec.kvstore.driver", "kvstore driver %q is not supported", kv.Driver)
}
