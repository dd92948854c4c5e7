// Package s3 gives the object-store tests their servers: Fake, a small
// S3-like server in memory whose answers can be set to misbehave (403 for
// missing keys, short listing pages, a continuation token that repeats, a
// truncated listing, errors of expired credentials, clock skew, another
// region), and Weed, a real S3 server (SeaweedFS) that verifies signatures
// and honours conditional writes. Command serve runs either for the Node
// tests.
package s3

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fake is an S3-like server for one bucket, addressed path-style
// (/<bucket>/<key>), in memory. Its zero settings answer like a public S3
// bucket without list permission... for reads only: see the fields.
type Fake struct {
	Bucket string

	mu      sync.Mutex
	objects map[string]object
	log     []string
	// Missing is the answer for a key that does not exist: 403 (S3's
	// AccessDenied, as to readers who may not list) or 404 (NoSuchKey).
	Missing int
	// PageSize is the listing's max-keys (S3: 1000).
	PageSize int
	// IgnoreConditions makes writes ignore If-Match and If-None-Match.
	IgnoreConditions bool
	// Fault makes every request (Fault) or listing (List*) misbehave:
	// "deny" (403 AccessDenied for everything), "signature" (403
	// SignatureDoesNotMatch), "skew" (403 RequestTimeTooSkewed),
	// "expired" (400 ExpiredToken), "redirect" (301 PermanentRedirect to
	// eu-west-1), "list-repeat" (the continuation token repeats),
	// "list-truncated" (the listing's XML is cut short), "list-malformed",
	// "list-no-token" (IsTruncated without a token).
	Fault string
	// FailWritesAfter makes every write after that many fail with 500
	// (0: never).
	FailWritesAfter int
	writes          int
	// ExpiredOnce answers the next request 400 ExpiredToken.
	ExpiredOnce bool
	// RequireAuth answers 403 AccessDenied to requests without an
	// Authorization header (signatures are not checked: Weed does).
	RequireAuth bool
	// Deny holds keys answered 403 AccessDenied whether they exist or not.
	Deny map[string]bool
}

type object struct {
	data []byte
	etag string
}

// NewFake returns a Fake for bucket, answering 403 for missing keys.
func NewFake(bucket string) *Fake {
	return &Fake{Bucket: bucket, objects: map[string]object{}, Missing: 403, PageSize: 1000}
}

// Put stores an object.
func (f *Fake) Put(key string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objects[key] = object{data: append([]byte(nil), data...), etag: etag(data)}
}

// PutDir stores every file below dir under prefix ("" or ending in "/").
func (f *Fake) PutDir(dir, prefix string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f.Put(prefix+filepath.ToSlash(rel), data)
		return nil
	})
}

// WriteDir writes every object under prefix to files below dir (what a
// reader of the directory, zarr-python, then checks).
func (f *Fake) WriteDir(prefix, dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, o := range f.objects {
		rel, ok := strings.CutPrefix(k, prefix)
		if !ok || rel == "" {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, o.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Get returns an object.
func (f *Fake) Get(key string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.objects[key]
	return o.data, ok
}

// Keys returns the keys stored, sorted.
func (f *Fake) Keys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ks []string
	for k := range f.objects {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Log returns the requests answered ("GET /bucket/key range"), and forgets
// them.
func (f *Fake) Log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.log
	f.log = nil
	return l
}

// Set changes a setting by name (for the Node tests' control requests):
// missing, page, ignoreConditions, fault, failWritesAfter, expiredOnce,
// requireAuth, deny (keys, comma-separated), clear (the objects).
func (f *Fake) Set(name, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, _ := strconv.Atoi(value)
	switch name {
	case "missing":
		f.Missing = n
	case "page":
		f.PageSize = n
	case "ignoreConditions":
		f.IgnoreConditions = value == "true"
	case "fault":
		f.Fault = value
	case "failWritesAfter":
		f.FailWritesAfter, f.writes = n, 0
	case "expiredOnce":
		f.ExpiredOnce = value == "true"
	case "requireAuth":
		f.RequireAuth = value == "true"
	case "clear":
		f.objects = map[string]object{}
	case "log":
		f.log = nil
	case "deny":
		f.Deny = map[string]bool{}
		for _, k := range strings.Split(value, ",") {
			if k != "" {
				f.Deny[k] = true
			}
		}
	default:
		return fmt.Errorf("no setting %q", name)
	}
	return nil
}

func etag(data []byte) string {
	h := md5.Sum(data)
	return `"` + hex.EncodeToString(h[:]) + `"`
}

// s3Error writes an S3 error document.
func s3Error(w http.ResponseWriter, status int, code, msg string, extra ...string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<Error><Code>" + code + "</Code><Message>")
	xml.EscapeText(&b, []byte(msg))
	b.WriteString("</Message>")
	for i := 0; i+1 < len(extra); i += 2 {
		b.WriteString("<" + extra[i] + ">" + extra[i+1] + "</" + extra[i] + ">")
	}
	b.WriteString("<RequestId>FAKE</RequestId></Error>")
	w.Write([]byte(b.String()))
}

func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.cors(w, r)
	if r.Method == http.MethodOptions {
		f.mu.Lock()
		f.log = append(f.log, r.Method+" "+r.URL.RequestURI()+" ")
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.URL.Path == "/_control" {
		for k, vs := range r.URL.Query() {
			if err := f.Set(k, vs[0]); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		return
	}
	f.mu.Lock()
	f.log = append(f.log, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Range"))
	fault, expiredOnce, requireAuth := f.Fault, f.ExpiredOnce, f.RequireAuth
	f.ExpiredOnce = false
	f.mu.Unlock()
	switch {
	case expiredOnce || fault == "expired":
		s3Error(w, 400, "ExpiredToken", "The provided token has expired.")
		return
	case fault == "deny":
		s3Error(w, 403, "AccessDenied", "Access Denied")
		return
	case fault == "signature":
		s3Error(w, 403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return
	case fault == "skew":
		s3Error(w, 403, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.",
			"RequestTime", time.Now().Add(-time.Hour).UTC().Format("20060102T150405Z"), "ServerTime", time.Now().UTC().Format(time.RFC3339), "MaxAllowedSkewMilliseconds", "900000")
		return
	case fault == "redirect":
		w.Header().Set("x-amz-bucket-region", "eu-west-1")
		s3Error(w, 301, "PermanentRedirect", "The bucket you are attempting to access must be addressed using the specified endpoint.",
			"Endpoint", f.Bucket+".s3.eu-west-1.amazonaws.com", "Bucket", f.Bucket)
		return
	case requireAuth && r.Header.Get("Authorization") == "" && r.URL.Query().Get("X-Amz-Signature") == "":
		s3Error(w, 403, "AccessDenied", "Access Denied")
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/"+f.Bucket)
	if !ok || (rest != "" && rest[0] != '/') {
		s3Error(w, 404, "NoSuchBucket", "The specified bucket does not exist", "BucketName", strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0])
		return
	}
	key := strings.TrimPrefix(rest, "/")
	switch {
	case r.Method == http.MethodGet && key == "" && r.URL.Query().Get("list-type") == "2":
		f.list(w, r)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		f.get(w, r, key)
	case r.Method == http.MethodPut:
		f.put(w, r, key)
	case r.Method == http.MethodDelete:
		f.delete(w, r, key)
	default:
		s3Error(w, 405, "MethodNotAllowed", "The specified method is not allowed against this resource.")
	}
}

// cors answers as an S3 bucket whose CORS rules allow any origin, method
// and header (the headers asked for are named: "*" does not cover
// Authorization).
func (f *Fake) cors(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, PUT, DELETE")
	if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
		h.Set("Access-Control-Allow-Headers", asked)
	}
	h.Set("Access-Control-Expose-Headers", "ETag, Content-Range, x-amz-bucket-region")
}

func (f *Fake) get(w http.ResponseWriter, r *http.Request, key string) {
	f.mu.Lock()
	o, ok := f.objects[key]
	missing, denied := f.Missing, f.Deny[key]
	f.mu.Unlock()
	if denied {
		s3Error(w, 403, "AccessDenied", "Access Denied")
		return
	}
	if !ok {
		if missing == 403 {
			s3Error(w, 403, "AccessDenied", "Access Denied")
		} else {
			s3Error(w, 404, "NoSuchKey", "The specified key does not exist.", "Key", key)
		}
		return
	}
	w.Header().Set("ETag", o.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(o.data))
}

// writeCheck applies a write's conditions; false when it answered 412.
func (f *Fake) writeCheck(w http.ResponseWriter, r *http.Request, key string) bool {
	if f.FailWritesAfter > 0 {
		f.writes++
		if f.writes > f.FailWritesAfter {
			s3Error(w, 500, "InternalError", "We encountered an internal error. Please try again.")
			return false
		}
	}
	if f.IgnoreConditions {
		return true
	}
	o, exists := f.objects[key]
	if r.Header.Get("If-None-Match") == "*" && exists {
		s3Error(w, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold", "Condition", "If-None-Match")
		return false
	}
	if m := r.Header.Get("If-Match"); m != "" {
		if !exists {
			s3Error(w, 404, "NoSuchKey", "The specified key does not exist.", "Key", key)
			return false
		}
		if m != o.etag {
			s3Error(w, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold", "Condition", "If-Match")
			return false
		}
	}
	return true
}

func (f *Fake) put(w http.ResponseWriter, r *http.Request, key string) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<30)); err != nil {
		s3Error(w, 400, "IncompleteBody", err.Error())
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.writeCheck(w, r, key) {
		return
	}
	o := object{data: buf.Bytes(), etag: etag(buf.Bytes())}
	f.objects[key] = o
	w.Header().Set("ETag", o.etag)
}

func (f *Fake) delete(w http.ResponseWriter, r *http.Request, key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.writeCheck(w, r, key) {
		return
	}
	delete(f.objects, key)
	w.WriteHeader(http.StatusNoContent)
}

// list answers ListObjectsV2 (prefix, delimiter, continuation-token,
// encoding-type=url; pages of PageSize).
func (f *Fake) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	prefix, delim, token := q.Get("prefix"), q.Get("delimiter"), q.Get("continuation-token")
	enc := q.Get("encoding-type") == "url"
	f.mu.Lock()
	page, fault := f.PageSize, f.Fault
	var entries []string // keys, and common prefixes ending in the delimiter
	seen := map[string]bool{}
	for k := range f.objects {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		if i := strings.Index(rest, delim); delim != "" && i >= 0 {
			k = prefix + rest[:i+len(delim)]
		}
		if !seen[k] {
			seen[k] = true
			entries = append(entries, k)
		}
	}
	f.mu.Unlock()
	sort.Strings(entries)
	start := 0
	if token != "" {
		after, err := url.QueryUnescape(token)
		if err != nil {
			s3Error(w, 400, "InvalidArgument", "The continuation token provided is incorrect")
			return
		}
		start = sort.SearchStrings(entries, after) + 1
		if start > len(entries) {
			start = len(entries)
		}
	}
	end := min(start+max(page, 1), len(entries))
	truncated := end < len(entries)
	esc := func(s string) string {
		if enc {
			s = url.QueryEscape(s)
		}
		var b strings.Builder
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	b.WriteString("<Name>" + f.Bucket + "</Name><Prefix>" + esc(prefix) + "</Prefix><Delimiter>" + esc(delim) + "</Delimiter>")
	fmt.Fprintf(&b, "<MaxKeys>%d</MaxKeys><KeyCount>%d</KeyCount>", page, end-start)
	if enc {
		b.WriteString("<EncodingType>url</EncodingType>")
	}
	switch {
	case fault == "list-no-token":
		b.WriteString("<IsTruncated>true</IsTruncated>")
		truncated = false
	default:
		fmt.Fprintf(&b, "<IsTruncated>%v</IsTruncated>", truncated || fault == "list-repeat")
	}
	for _, e := range entries[start:end] {
		if delim != "" && strings.HasSuffix(e, delim) {
			b.WriteString("<CommonPrefixes><Prefix>" + esc(e) + "</Prefix></CommonPrefixes>")
		} else {
			b.WriteString("<Contents><Key>" + esc(e) + "</Key><Size>1</Size><StorageClass>STANDARD</StorageClass></Contents>")
		}
	}
	switch {
	case fault == "list-repeat":
		b.WriteString("<NextContinuationToken>always-the-same</NextContinuationToken>")
	case truncated:
		b.WriteString("<NextContinuationToken>" + url.QueryEscape(entries[end-1]) + "</NextContinuationToken>")
	}
	b.WriteString("</ListBucketResult>")
	doc := b.String()
	switch fault {
	case "list-truncated":
		doc = doc[:len(doc)*2/3]
	case "list-malformed":
		doc = strings.Replace(doc, "</Prefix>", "</Prefx>", 1)
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Write([]byte(doc))
}
