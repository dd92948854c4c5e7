// Package s3 is the part of talking to S3 (and to S3-compatible servers and
// GCS's XML API) that needs no network code, so that Go's HTTP store
// (zarr/store/http, native) and the npm package's FetchStore (through the
// bridge) share it: AWS Signature Version 4 (Signer), the ListObjectsV2
// listing (Listing), S3's error documents and what they mean (Failure,
// Missing). It imports neither net/http nor encoding/xml, so it can be in
// the WebAssembly build.
package s3

import (
	"sort"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// Bounds of what is read from a server.
const (
	// MaxErrorBody is how much of an error answer's body is read (an S3
	// error document is a few hundred bytes).
	MaxErrorBody = 64 << 10
	// MaxListPage bounds one ListObjectsV2 page (1000 keys of at most
	// 1024 bytes each, escaped, with their metadata, fit well).
	MaxListPage = 16 << 20
	// MaxListPages bounds the pages of one listing (100 million keys).
	MaxListPages = 100_000
)

// ErrorBody is an S3 error document: <Error><Code>…</Code>…</Error>.
type ErrorBody struct {
	Code, Message string
	// Region (AuthorizationHeaderMalformed, PermanentRedirect) and
	// Endpoint (PermanentRedirect) say where the bucket is.
	Region, Endpoint string
	// Bucket and Key, when the server names them.
	Bucket, Key string
	// RequestTime and ServerTime come with RequestTimeTooSkewed.
	RequestTime, ServerTime string
}

// ParseError reads an S3 error document; ok is false when body is not one.
func ParseError(body []byte) (e ErrorBody, ok bool) {
	err := xmlWalk(body, func(path []string, text string) error {
		if len(path) != 2 || path[0] != "Error" {
			return nil
		}
		switch path[1] {
		case "Code":
			e.Code = text
		case "Message":
			e.Message = text
		case "Region":
			e.Region = text
		case "Endpoint":
			e.Endpoint = text
		case "BucketName", "Bucket":
			e.Bucket = text
		case "Key":
			e.Key = text
		case "RequestTime":
			e.RequestTime = text
		case "ServerTime":
			e.ServerTime = text
		}
		return nil
	})
	return e, err == nil && e.Code != ""
}

// DefaultMissing are the HTTP statuses that mean "no such key" unless a
// store is told otherwise: 404 and 410, and 403, which S3 and GCS answer for
// a key that does not exist when the reader may not list the bucket.
var DefaultMissing = []int{403, 404, 410}

// Missing reports whether an answer with this status and S3 error
// document (the zero ErrorBody when the body is not one) means that the
// key does not exist, given the statuses the store counts as missing: a
// status in missing whose error code, if any, is one that a missing key
// gets (NoSuchKey, AccessDenied). A 403 for a bad signature or expired
// credentials, an AccessDenied that says the request expired (a presigned
// URL), or a 404 for a bucket that does not exist, is a failure.
func Missing(status int, e ErrorBody, missing []int) bool {
	found := false
	for _, m := range missing {
		if m == status {
			found = true
		}
	}
	if !found {
		return false
	}
	switch e.Code {
	case "", "NoSuchKey", "NotFound":
		return true
	case "AccessDenied":
		return !strings.Contains(strings.ToLower(e.Message), "expired")
	}
	return false
}

// Failure is the typed error of a failed request: request is what was
// asked ("GET https://…"), where the store key, bucket and key the object
// (for the message; either may be ""), status the HTTP status,
// bucketRegion the x-amz-bucket-region header, body the start of the
// answer's body (at most MaxErrorBody bytes). The code says what to do:
// ACCESS_DENIED for refused credentials or permissions, NOT_FOUND for a
// bucket that does not exist, STORE otherwise (a clock out of step, the
// bucket in another region, other S3 errors).
func Failure(request, where, bucket, key string, status int, bucketRegion string, body []byte) *errs.Error {
	obj := ""
	switch {
	case bucket != "" && key != "":
		obj = fmtx.Sprintf("bucket %q, key %q: ", bucket, key)
	case bucket != "":
		obj = fmtx.Sprintf("bucket %q: ", bucket)
	}
	e, isS3 := ParseError(body)
	what := fmtx.Sprintf("%s: %sHTTP %d", request, obj, status)
	if isS3 {
		what += " " + e.Code
		if e.Message != "" {
			what += " (" + e.Message + ")"
		}
	}
	code := errs.Store
	hint := ""
	switch e.Code {
	case "AccessDenied", "AllAccessDisabled", "AccountProblem", "InvalidPayer":
		code = errs.AccessDenied
		hint = "the bucket or key is not readable with these credentials (or without credentials)"
	case "InvalidAccessKeyId", "NotSignedUp":
		code = errs.AccessDenied
		hint = "the server does not know this access key id"
	case "SignatureDoesNotMatch":
		code = errs.AccessDenied
		hint = "the secret access key does not match the access key id, or the request was changed after it was signed (a proxy rewriting it)"
	case "ExpiredToken", "TokenRefreshRequired", "InvalidToken", "ExpiredRequest":
		code = errs.AccessDenied
		hint = "the credentials expired or the session token is not valid: get new ones (a credentials function is asked again)"
	case "RequestTimeTooSkewed":
		hint = "this machine's clock differs from the server's by more than 15 minutes"
		if e.RequestTime != "" && e.ServerTime != "" {
			hint += fmtx.Sprintf(" (request time %s, server time %s)", e.RequestTime, e.ServerTime)
		}
		hint += "; set the clock right"
	case "NoSuchBucket":
		code = errs.NotFound
		hint = "there is no such bucket"
	case "PermanentRedirect", "TemporaryRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException":
		hint = regionHint(e, bucketRegion)
	case "":
		switch {
		case status == 403:
			code = errs.AccessDenied
			hint = "access denied"
		case status == 301 || status == 307:
			hint = regionHint(e, bucketRegion)
		}
	}
	if hint != "" {
		what += ": " + hint
	}
	return errs.New(code, where, "%s", what)
}

func regionHint(e ErrorBody, header string) string {
	region := e.Region
	if region == "" {
		region = header
	}
	switch {
	case region != "":
		return fmtx.Sprintf("the bucket is in region %q; give that region (the region option)", region)
	case e.Endpoint != "":
		return fmtx.Sprintf("the bucket must be addressed at %s; give its region (the region option)", e.Endpoint)
	}
	return "the bucket is in another region; give its region (the region option)"
}

// IsRetry reports whether an S3 error code asks to try again later (with
// 503 SlowDown, 500 InternalError the status says so already).
func IsRetry(code string) bool {
	switch code {
	case "SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout", "OperationAborted":
		return true
	}
	return false
}

// IsExpired reports whether an error code means the credentials expired
// (a store with a credentials function then asks it again and retries
// once).
func IsExpired(code string) bool {
	switch code {
	case "ExpiredToken", "TokenRefreshRequired", "ExpiredRequest":
		return true
	}
	return false
}

// Listing lists the names directly under a prefix of a bucket with
// ListObjectsV2, one page after another: Next gives the URL of the next
// page to fetch ("" when done), Add reads its answer, Names returns what
// was listed. Pagination is bounded: a continuation token that repeats, a
// truncated page without one, more than MaxListPages pages or names over
// the memory budget end the listing with an error.
type Listing struct {
	listURL string // the bucket's URL without a trailing slash on a path
	prefix  string // key prefix in the bucket, "" or ending in "/"
	where   string // names the listing in errors
	token   string // of the next page
	started bool
	done    bool
	pages   int
	seen    map[string]bool
	names   map[string]bool
	size    int64
}

// NewListing lists the names directly under keyPrefix ("" or ending in
// "/") of the bucket at bucketURL (urlx.Location.BucketURL). where names
// the listing in errors.
func NewListing(bucketURL, keyPrefix, where string) *Listing {
	u := bucketURL
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 && len(u) > i+3+j+1 {
			u = strings.TrimSuffix(u, "/") // path-style: /bucket?list-type=2
		}
	}
	return &Listing{listURL: u, prefix: keyPrefix, where: where, seen: map[string]bool{}, names: map[string]bool{}}
}

// Next returns the URL of the next page to fetch, "" when the listing is
// complete.
func (l *Listing) Next() string {
	if l.done {
		return ""
	}
	u := l.listURL + "?list-type=2&prefix=" + QueryEscape(l.prefix) + "&delimiter=%2F&encoding-type=url"
	if l.started {
		u += "&continuation-token=" + QueryEscape(l.token)
	}
	return u
}

// Add reads the answer to the page Next asked for.
func (l *Listing) Add(body []byte) error {
	if l.done {
		return errs.New(errs.Store, l.where, "listing: a page after the last")
	}
	fail := func(format string, args ...any) error {
		l.done = true
		return errs.New(errs.Store, l.where, "listing (ListObjectsV2 page %d): %s", l.pages+1, fmtx.Sprintf(format, args...))
	}
	var keys, prefixes []string
	var truncated, encoded, isList bool
	var next, truncText string
	err := xmlWalk(body, func(path []string, text string) error {
		if path[0] != "ListBucketResult" {
			return nil
		}
		isList = true
		switch {
		case len(path) == 2 && path[1] == "IsTruncated":
			truncText = text
		case len(path) == 2 && path[1] == "NextContinuationToken":
			next = text
		case len(path) == 2 && path[1] == "EncodingType":
			encoded = text == "url"
		case len(path) == 3 && path[1] == "Contents" && path[2] == "Key":
			keys = append(keys, text)
		case len(path) == 3 && path[1] == "CommonPrefixes" && path[2] == "Prefix":
			prefixes = append(prefixes, text)
		}
		return nil
	})
	if err != nil {
		return fail("%v", err)
	}
	if !isList {
		if e, ok := ParseError(body); ok {
			return fail("the server answered with error %s (%s)", e.Code, e.Message)
		}
		return fail("not a ListBucketResult document")
	}
	switch truncText {
	case "true":
		truncated = true
	case "false", "":
	default:
		return fail("IsTruncated is %q", truncText)
	}
	var added int64
	for i, list := range [][]string{keys, prefixes} {
		for _, k := range list {
			if encoded {
				d, err := unescapePlus(k)
				if err != nil {
					return fail("a key that is not URL-encoded: %q", k)
				}
				k = d
			}
			rest, ok := strings.CutPrefix(k, l.prefix)
			if !ok {
				return fail("the key %q is not under the prefix %q", k, l.prefix)
			}
			// (a server that ignores the delimiter lists every key below:
			// each gives its first level)
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				rest = rest[:j+1]
			} else if i == 1 {
				return fail("the common prefix %q does not end in /", k)
			}
			if rest == "" || rest == "/" || l.names[rest] {
				continue
			}
			l.names[rest] = true
			added += int64(len(rest)) + 32
		}
	}
	l.size += added
	if err := budget.Check("the names listed under "+strconv.Quote(l.prefix), l.size); err != nil {
		l.done = true
		return err
	}
	l.pages++
	l.started = true
	if !truncated {
		l.done = true
		return nil
	}
	switch {
	case next == "":
		return fail("IsTruncated without a NextContinuationToken (the server's answer is incomplete)")
	case l.seen[next] || next == l.token:
		return fail("the continuation token %q came again: the server would page forever", next)
	case l.pages >= MaxListPages:
		return fail("more than %d pages", MaxListPages)
	}
	l.seen[next] = true
	l.token = next
	return nil
}

// Names returns the names listed: keys directly under the prefix, and
// sub-prefixes ending in "/", sorted.
func (l *Listing) Names() []string {
	out := make([]string, 0, len(l.names))
	for n := range l.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// unescapePlus decodes a URL-encoded name as S3 writes it with
// encoding-type=url ('+' for a space).
func unescapePlus(s string) (string, error) {
	return urlx.Unescape(strings.ReplaceAll(s, "+", " "))
}

// ProbeStep is one request of the probe that tells whether a server
// honours conditional writes.
type ProbeStep struct {
	Method string // PUT or DELETE
	// Condition is "If-None-Match: *" (create only), a stale If-Match
	// (StaleETag), or none.
	IfNoneMatch, IfMatch string
	// MustFail: a server that honours conditions answers 412 (or 404 to
	// If-Match); one that changes the key ignored the condition.
	MustFail bool
}

// StaleETag is an ETag no object has, for the probe's stale If-Match.
const StaleETag = `"zarr-wasm-probe-never-matches"`

// ConditionProbe is the probe, on a throw-away key (ProbeKey): create it
// with If-None-Match: *, create it again, write it with a stale If-Match,
// delete it with a stale If-Match (these three must fail), delete it. Where
// every step that must fail does, the server honours If-None-Match and
// If-Match on PUT and If-Match on DELETE; where one goes through, it
// ignores them, and writes to it are made without conditions.
var ConditionProbe = []ProbeStep{
	{Method: "PUT", IfNoneMatch: "*"},
	{Method: "PUT", IfNoneMatch: "*", MustFail: true},
	{Method: "PUT", IfMatch: StaleETag, MustFail: true},
	{Method: "DELETE", IfMatch: StaleETag, MustFail: true},
	{Method: "DELETE"},
}

// ProbeKey is the name of the probe's throw-away key, made unique by
// random bytes.
func ProbeKey(random []byte) string {
	const hexDigits = "0123456789abcdef"
	b := []byte(".zarr-wasm-probe-")
	for _, c := range random {
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	return string(b)
}
