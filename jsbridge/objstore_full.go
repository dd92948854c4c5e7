//go:build js && wasm && !zarrcore

package jsbridge

import (
	"encoding/binary"
	"math/rand/v2"
	"syscall/js"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
)

// The object-store calls of the full build (see objstore.go): SigV4
// signing, the conditional-write probe and ListObjectsV2 listings. They
// would add to what every page downloads first; the npm package starts the
// full build before it signs (credentials given) or lists.

func init() {
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
