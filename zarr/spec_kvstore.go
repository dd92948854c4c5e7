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

// defaultKvStore opens file kvstores as directory stores, and http, s3 and
// gcs ones with the native HTTP store (Range requests; s3 and gcs buckets
// listed, read anonymously).
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
	case "s3", "gcs":
		// (anonymous: credentials are given through a store of one's own,
		// SpecOptions.Store or OpenKvStore)
		return http.NewStore(kv.Location(), http.Options{Region: kv.Region, Endpoint: kv.Endpoint})
	}
	return nil, errs.New(errs.Unsupported, "spec.kvstore.driver", "kvstore driver %q is not supported", kv.Driver)
}
