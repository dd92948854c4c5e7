//go:build js && wasm

package jsbridge

import (
	"encoding/binary"
	"math/rand/v2"
	"syscall/js"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// What the npm package's FetchStore asks of the engine for object stores
// (npm/lib/stores.js): location mapping, SigV4 signatures, what an error
// answer means, and ListObjectsV2 listings, so that JS and Go share one
// implementation of each (zarr/urlx, zarr/s3). All synchronous: the
// FetchStore makes its requests with fetch and asks here between them.

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
	// s3Sign({method, url, headers: [[name, value]], body?: Uint8Array,
	// region, credentials: {accessKeyId, secretAccessKey, sessionToken?},
	// query?: boolean, expires?: seconds}) → {url, headers: [[name,
	// value]]}: the headers to add (headers mode) or the presigned URL
	// (query mode, headers empty).
	handleSync("s3Sign", inAny, func(c *bridgeCall) (any, error) {
		q := c.a[0]
		if q.Type() != js.TypeObject {
			return nil, errs.New(errs.Store, "", "s3Sign takes an object")
		}
		u := optField(q, "url")
		creds := q.Get("credentials")
		if creds.Type() != js.TypeObject {
			return nil, errs.New(errs.AccessDenied, u, "credentials are {accessKeyId, secretAccessKey, sessionToken?}")
		}
		cr := s3.Credentials{AccessKeyID: optField(creds, "accessKeyId"), SecretAccessKey: optField(creds, "secretAccessKey"), SessionToken: optField(creds, "sessionToken")}
		req := s3.Request{Method: optField(q, "method"), URL: u}
		if hs := q.Get("headers"); hs.Type() == js.TypeObject {
			for i := range hs.Length() {
				h := hs.Index(i)
				req.Header = append(req.Header, s3.Header{Name: h.Index(0).String(), Value: h.Index(1).String()})
			}
		}
		if b := q.Get("body"); b.Type() == js.TypeObject {
			n := b.Get("byteLength").Int()
			data, err := budget.Bytes(u, n)
			if err != nil {
				return nil, err
			}
			js.CopyBytesToGo(data, b)
			req.PayloadHash = s3.PayloadHash(data)
		}
		signer := s3.Signer{Region: optField(q, "region")}
		out := jsObject.New()
		if q.Get("query").Truthy() {
			expires := 15 * time.Minute
			if e := q.Get("expires"); e.Type() == js.TypeNumber {
				expires = time.Duration(e.Float() * float64(time.Second))
			}
			signed, err := signer.Presign(req, cr, time.Now(), expires)
			if err != nil {
				return nil, err
			}
			out.Set("url", signed)
			out.Set("headers", jsArray.New())
			return out, nil
		}
		hs, err := signer.Sign(req, cr, time.Now())
		if err != nil {
			return nil, err
		}
		arr := jsArray.New(len(hs))
		for i, h := range hs {
			arr.SetIndex(i, jsArray.New(h.Name, h.Value))
		}
		out.Set("url", u)
		out.Set("headers", arr)
		return out, nil
	})
	// s3Presigned(url) → whether the URL carries its signature (it is
	// then fetched as it is).
	handleSync("s3Presigned", inAny, func(c *bridgeCall) (any, error) {
		return c.a[0].Type() == js.TypeString && s3.Presigned(c.a[0].String()), nil
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
	// s3ConditionProbe() → {key, steps: [{method, ifNoneMatch, ifMatch,
	// mustFail}]}: s3.ConditionProbe on a fresh throw-away key.
	handleSync("s3ConditionProbe", "", func(c *bridgeCall) (any, error) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], rand.Uint64()) // (unique, not secret)
		steps := jsArray.New(len(s3.ConditionProbe))
		for i, st := range s3.ConditionProbe {
			o := jsObject.New()
			o.Set("method", st.Method)
			o.Set("ifNoneMatch", st.IfNoneMatch)
			o.Set("ifMatch", st.IfMatch)
			o.Set("mustFail", st.MustFail)
			steps.SetIndex(i, o)
		}
		out := jsObject.New()
		out.Set("key", s3.ProbeKey(b[:]))
		out.Set("steps", steps)
		return out, nil
	})
	// s3Listing(bucketUrl, keyPrefix, where) → handle of an s3.Listing;
	// s3ListNext(handle) → the next page's URL ("" when done);
	// s3ListAdd(handle, body) → null, or an error; s3ListNames(handle) →
	// the names. (release(handle) when done.)
	handleSync("s3Listing", inAny+inAny+inAny, func(c *bridgeCall) (any, error) {
		return keep(s3.NewListing(optString(c.a[0]), optString(c.a[1]), optString(c.a[2]))), nil
	})
	handleSync("s3ListNext", inAny, func(c *bridgeCall) (any, error) {
		l, err := lookupHandle[*s3.Listing](c.a[0], "listing")
		if err != nil {
			return nil, err
		}
		return l.Next(), nil
	})
	handleSync("s3ListAdd", inAny+inAny, func(c *bridgeCall) (any, error) {
		l, err := lookupHandle[*s3.Listing](c.a[0], "listing")
		if err != nil {
			return nil, err
		}
		b := c.a[1]
		if b.Type() != js.TypeObject {
			return nil, errs.New(errs.Store, "", "a listing page is a Uint8Array")
		}
		data, err := budget.Bytes("a listing page", b.Get("byteLength").Int())
		if err != nil {
			return nil, err
		}
		js.CopyBytesToGo(data, b)
		if err := l.Add(data); err != nil {
			return nil, err
		}
		return js.Null(), nil
	})
	handleSync("s3ListNames", inAny, func(c *bridgeCall) (any, error) {
		l, err := lookupHandle[*s3.Listing](c.a[0], "listing")
		if err != nil {
			return nil, err
		}
		names := l.Names()
		out := jsArray.New(len(names))
		for i, n := range names {
			out.SetIndex(i, n)
		}
		return out, nil
	})
}

// optField is o[name] when it is a string, else "".
func optField(o js.Value, name string) string {
	if o.Type() != js.TypeObject {
		return ""
	}
	return optString(o.Get(name))
}
