//go:build js && wasm

package jsbridge

import (
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// What the npm package's FetchStore asks of the engine for object stores
// (npm/lib/stores.js): location mapping, SigV4 signatures, what an error
// answer means, and ListObjectsV2 listings, so that JS and Go share one
// implementation of each (zarr/urlx, zarr/s3). All synchronous: the
// FetchStore makes its requests with fetch and asks here between them.
// Signing and listing are the full build's (objstore_full.go): a public
// bucket's reader does not download them.

func init() {
	// s3Location(location, {region, endpoint}) → {url, bucket, key,
	// bucketUrl, service, region}: urlx.ParseLocation.
	handleSync("s3Location", inAny+inAny, func(c *bridgeCall) (any, error) {
		loc, opt := c.a[0], c.a[1]
		if loc.Type() != js.TypeString {
			return nil, errs.New(errs.Store, "", "a location is a string")
		}
		l, err := urlx.ParseLocation(loc.String(), urlx.LocationOptions{Region: optField(opt, "region"), Endpoint: optField(opt, "endpoint")})
		if err != nil {
			return nil, err
		}
		o := jsObject.New()
		o.Set("url", l.URL)
		o.Set("bucket", l.Bucket)
		o.Set("key", l.Key)
		o.Set("bucketUrl", l.BucketURL)
		o.Set("service", l.Service)
		o.Set("region", l.Region)
		return o, nil
	})
	// s3Answer(status, body: Uint8Array, {missing: [statuses],
	// deniedAbsent, request, where, bucket, key, bucketRegion}) → "absent"
	// or "denied" (a key that does not exist, see s3.Missing and the
	// FetchStore's rules), else an error: s3.Failure's, with retry: true
	// (another attempt may work) or expired: true (new credentials may).
	handleSync("s3Answer", inAny+inAny+inAny, func(c *bridgeCall) (any, error) {
		status := c.a[0].Int()
		var body []byte
		if b := c.a[1]; b.Type() == js.TypeObject {
			body = make([]byte, min(b.Get("byteLength").Int(), s3.MaxErrorBody))
			js.CopyBytesToGo(body, b.Call("subarray", 0, len(body)))
		}
		o := c.a[2]
		missing := s3.DefaultMissing
		if m := o.Get("missing"); m.Type() == js.TypeObject {
			missing = make([]int, m.Length())
			for i := range missing {
				missing[i] = m.Index(i).Int()
			}
		}
		e, _ := s3.ParseError(body)
		if s3.Missing(status, e, missing) {
			if status != 403 {
				return "absent", nil
			}
			if o.Get("deniedAbsent").Truthy() {
				return "denied", nil
			}
		}
		f := s3.Failure(optField(o, "request"), optField(o, "where"), optField(o, "bucket"), optField(o, "key"), status, optField(o, "bucketRegion"), body)
		v := errorValue(f)
		v.Set("status", status)
		if s3.IsRetry(e.Code) {
			v.Set("retry", true)
		}
		if s3.IsExpired(e.Code) {
			v.Set("expired", true)
		}
		return v, nil
	})

}

// optField is o[name] when it is a string, else "".
func optField(o js.Value, name string) string {
	if o.Type() != js.TypeObject {
		return ""
	}
	return optString(o.Get(name))
}
