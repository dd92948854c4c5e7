package http

import (
	"context"
	"crypto/rand"
	nethttp "net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// Store is a Zarr store over HTTP: key k is read from base + "/" + k (each
// path segment escaped, the base's query kept).
//
// Object stores: NewStore takes s3:// and gs:// locations (mapped by
// urlx.ObjectURL with Options.Region and Options.Endpoint) as well as
// http(s) URLs, and when the location is a bucket's (an s3:// or gs://
// location, S3's or GCS's own host names, or a URL under Options.Endpoint):
//   - List asks the server for a ListObjectsV2 listing (s3.Listing), so a
//     group's children are known without consolidated metadata;
//   - with Options.Credentials (or Options.Writable) Set and Delete are PUT
//     and DELETE, and SetIf and DeleteIf send their condition as
//     If-None-Match: * (create) or If-Match: <ETag> (update): a 412 is a
//     CONFLICT, which the engine answers by reading again. Whether the
//     server honours those headers is tried once, before the first
//     conditional write (Options.ConditionalWrites): a server that ignores
//     them is written to without conditions, as a store without
//     generations is (ConditionalWrites tells which).
//
// A 403 (when Options.MissingStatus has it, as by default) is read as S3
// and GCS answer it to readers who may not list a bucket: for a metadata
// key (zarr.json, .zarray, .zgroup, .zattrs, .zmetadata; v1's meta and
// attrs) it means absent,
// marked store.Versioned.Denied (the engine says "access denied" when every
// metadata key of a path was refused); for any other key it means absent
// once a metadata document at or above the key's directory was read from
// this store (a chunk of an array that was opened), and ACCESS_DENIED
// otherwise. A 403 whose S3 error code is not AccessDenied (a bad
// signature, expired credentials, a clock out of step) is always an error.
type Store struct {
	c     *client
	base  *url.URL
	loc   urlx.Location
	write bool

	mu       sync.Mutex
	readDirs map[string]bool // directories a metadata document was read from

	condMu    sync.Mutex
	condKnown bool // the probe ran (or ConditionalWrites said)
	condOK    bool // the server honours conditional writes
}

// maxReadDirs bounds the directories a Store remembers (past it, 403s
// under directories not yet remembered are errors: the safe side).
const maxReadDirs = 1 << 16

// NewStore returns a store at a location: an http(s) URL, or s3:// or
// gs:// (see urlx.ObjectURL).
func NewStore(location string, opt Options) (*Store, error) {
	loc, err := urlx.ParseLocation(location, urlx.LocationOptions{Region: opt.Region, Endpoint: opt.Endpoint})
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(loc.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errs.New(errs.Store, location, "not an http(s) URL")
	}
	s := &Store{c: newClient(opt), base: u, loc: loc, readDirs: map[string]bool{}}
	s.write = opt.Writable || (opt.Credentials != nil && loc.Bucket != "")
	switch opt.ConditionalWrites {
	case TrustConditions:
		s.condKnown, s.condOK = true, true
	case NoConditions:
		s.condKnown = true
	}
	return s, nil
}

// URL returns the URL of a key.
func (s *Store) URL(key string) string {
	u := *s.base
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	p := strings.TrimSuffix(u.EscapedPath(), "/") + "/" + strings.Join(segs, "/")
	u.RawPath = ""
	u.Path, _ = url.PathUnescape(p)
	u.RawPath = p
	u.Fragment = ""
	return u.String()
}

// Bucket returns the bucket's name and the store's key prefix in it ("",
// "" when the store's URL is not known to be a bucket's).
func (s *Store) Bucket() (bucket, prefix string) {
	if s.loc.Bucket == "" {
		return "", ""
	}
	return s.loc.Bucket, s.keyPrefix()
}

// keyPrefix is the store's key prefix in its bucket, "" or ending in "/".
func (s *Store) keyPrefix() string {
	if s.loc.Key == "" {
		return ""
	}
	return strings.TrimSuffix(s.loc.Key, "/") + "/"
}

// request is the request for key (its URL, how errors name it).
func (s *Store) request(method, key string) request {
	q := request{method: method, url: s.URL(key), where: key}
	if s.loc.Bucket != "" {
		q.bucket, q.key = s.loc.Bucket, s.keyPrefix()+key
	}
	return q
}

// Can says which parts of the store contract work: listing for a bucket,
// writing with credentials (or Options.Writable), conditional writes
// unless the server was found to ignore them.
func (s *Store) Can(c store.Capability) bool {
	switch c {
	case store.CanList:
		return s.loc.Bucket != ""
	case store.CanWrite:
		return s.write
	case store.CanWriteIf:
		s.condMu.Lock()
		defer s.condMu.Unlock()
		return s.write && (!s.condKnown || s.condOK)
	}
	return true // (CanTellDenied too)
}

// Get reads a key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := s.ReadVersion(ctx, key, store.WholeValue(), store.Conditions{})
	return v.Data, v.Found, err
}

// GetRange reads part of a key.
func (s *Store) GetRange(ctx context.Context, key string, r store.ByteRange) ([]byte, bool, error) {
	v, err := s.ReadVersion(ctx, key, r, store.Conditions{})
	return v.Data, v.Found, err
}

// ReadVersion reads r of a key with its generation, under conditions (see
// the package comment).
func (s *Store) ReadVersion(ctx context.Context, key string, r store.ByteRange, c store.Conditions) (store.Versioned, error) {
	q := s.request(nethttp.MethodGet, key)
	q.r, q.cond = r, c
	meta := isMetadataKey(key)
	q.deniedAbsent = meta || s.underRead(key)
	v, err := s.c.do(ctx, q)
	if err == nil && meta && v.Found {
		s.noteRead(key)
	}
	return v, err
}

// isMetadataKey reports the keys of Zarr's metadata documents (v3, v2,
// v1).
func isMetadataKey(key string) bool {
	switch key[strings.LastIndexByte(key, '/')+1:] {
	case "zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata", "meta", "attrs":
		return true
	}
	return false
}

// noteRead remembers the directory of a metadata key that was read (or
// written).
func (s *Store) noteRead(key string) {
	dir := key[:strings.LastIndexByte(key, '/')+1]
	s.mu.Lock()
	if len(s.readDirs) < maxReadDirs {
		s.readDirs[dir] = true
	}
	s.mu.Unlock()
}

// underRead reports whether a metadata document was read at or above
// key's directory.
func (s *Store) underRead(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for dir := key; ; {
		i := strings.LastIndexByte(dir[:max(len(dir)-1, 0)], '/')
		dir = dir[:i+1]
		if s.readDirs[dir] {
			return true
		}
		if i < 0 {
			return false
		}
	}
}

// List lists the names directly under prefix ("" or ending in "/") with
// S3's ListObjectsV2; only for a bucket's location.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if s.loc.Bucket == "" {
		return nil, errs.New(errs.Unsupported, prefix, "%s is not known to be an object store's bucket, which could be listed (give an s3:// location, or the server's URL as Options.Endpoint)", s.base)
	}
	full := s.keyPrefix() + prefix
	where := prefix
	if where == "" {
		where = "/"
	}
	l := s3.NewListing(s.loc.BucketURL, full, where)
	for u := l.Next(); u != ""; u = l.Next() {
		v, err := s.c.do(ctx, request{method: nethttp.MethodGet, url: u, where: where, bucket: s.loc.Bucket, key: full, maxBody: s3.MaxListPage})
		if err != nil {
			return nil, err
		}
		if !v.Found {
			return nil, errs.New(errs.NotFound, where, "listing bucket %q: GET %s answered 404 (no such bucket?)", s.loc.Bucket, u)
		}
		if err := l.Add(v.Data); err != nil {
			return nil, err
		}
	}
	return l.Names(), nil
}

// Set writes a key (PUT).
func (s *Store) Set(ctx context.Context, key string, value []byte) error {
	_, err := s.SetIf(ctx, key, value, "")
	return err
}

// Delete deletes a key (DELETE).
func (s *Store) Delete(ctx context.Context, key string) error { return s.DeleteIf(ctx, key, "") }

// SetIf writes a key if it is still at ifMatch (see store.ConditionalWriter
// and the type's comment).
func (s *Store) SetIf(ctx context.Context, key string, value []byte, ifMatch store.Generation) (store.Generation, error) {
	if !s.write {
		return "", errs.New(errs.ReadOnly, key, "the store cannot be written (give credentials, or Options.Writable for a server that takes anonymous writes)")
	}
	q := s.request(nethttp.MethodPut, key)
	q.body = value
	var err error
	if q.ifMatch, err = s.condition(ctx, ifMatch); err != nil {
		return "", err
	}
	v, err := s.c.do(ctx, q)
	if err == nil && isMetadataKey(key) {
		s.noteRead(key) // (metadata written is metadata there: see the 403 rule)
	}
	return v.Generation, err
}

// DeleteIf deletes a key if it is still at ifMatch.
func (s *Store) DeleteIf(ctx context.Context, key string, ifMatch store.Generation) error {
	if !s.write {
		return errs.New(errs.ReadOnly, key, "the store cannot be written (give credentials, or Options.Writable for a server that takes anonymous writes)")
	}
	if ifMatch == store.Absent {
		return nil // nothing there to delete
	}
	q := s.request(nethttp.MethodDelete, key)
	var err error
	if q.ifMatch, err = s.condition(ctx, ifMatch); err != nil {
		return err
	}
	_, err = s.c.do(ctx, q)
	return err
}

// condition is the condition a write sends for ifMatch: none when the
// server ignores conditions, or for a generation that has no strong ETag
// (a Last-Modified date, a weak ETag: S3 writes take neither).
func (s *Store) condition(ctx context.Context, ifMatch store.Generation) (store.Generation, error) {
	if ifMatch == "" {
		return "", nil
	}
	if ifMatch != store.Absent && (strings.HasPrefix(string(ifMatch), lastModified) || strings.HasPrefix(string(ifMatch), "W/")) {
		return "", nil
	}
	ok, err := s.conditionsHonoured(ctx)
	if err != nil || !ok {
		return "", err
	}
	return ifMatch, nil
}

// ConditionalWrites reports whether the server honours conditional writes
// (known: the probe ran, or Options.ConditionalWrites said).
func (s *Store) ConditionalWrites() (honoured, known bool) {
	s.condMu.Lock()
	defer s.condMu.Unlock()
	return s.condOK, s.condKnown
}

// conditionsHonoured runs s3.ConditionProbe once.
func (s *Store) conditionsHonoured(ctx context.Context) (bool, error) {
	s.condMu.Lock()
	defer s.condMu.Unlock()
	if s.condKnown {
		return s.condOK, nil
	}
	var b [8]byte
	rand.Read(b[:])
	key := s3.ProbeKey(b[:])
	ok := true
	for _, step := range s3.ConditionProbe {
		q := s.request(step.Method, key)
		switch {
		case step.IfNoneMatch == "*":
			q.ifMatch = store.Absent
		case step.IfMatch != "":
			q.ifMatch = store.Generation(step.IfMatch)
		}
		_, err := s.c.do(ctx, q)
		switch {
		case errs.CodeOf(err) == errs.Conflict && step.MustFail:
		case err != nil:
			if step.Method == nethttp.MethodPut {
				s.c.do(ctx, s.request(nethttp.MethodDelete, key)) // (best effort)
			}
			return false, err
		case step.MustFail:
			ok = false // the write went through: the condition was ignored
		}
	}
	s.condKnown, s.condOK = true, ok
	return ok, nil
}

var (
	_ store.Store             = (*Store)(nil)
	_ store.RangeReader       = (*Store)(nil)
	_ store.VersionedReader   = (*Store)(nil)
	_ store.ConditionalWriter = (*Store)(nil)
	_ store.Writer            = (*Store)(nil)
	_ store.Lister            = (*Store)(nil)
	_ store.Capable           = (*Store)(nil)
)
