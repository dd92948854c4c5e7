package tsspec

import (
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// KvStore is a key/value store spec: a JSON object {"driver", "path", ...}
// or a KvStore URL ("memory://", "file:///tmp/x/", "http://host/x/",
// "s3://bucket/x/", "gs://bucket/x/").
type KvStore struct {
	Driver string // "memory", "file", "http", "s3" or "gcs"
	// Path is the key prefix: in the memory store, a directory on the file
	// system, or (http) the path below BaseURL's host, starting with "/".
	Path string
	// BaseURL is the http store's scheme, host and query ("http://h:8080?q=1").
	BaseURL string
	// Headers are extra http request headers ("Name: value").
	Headers []string
	// Bucket (s3, gcs) is the bucket; Path the key prefix in it.
	Bucket string
	// Endpoint (s3) is an S3-compatible server's URL; Region (s3, its
	// aws_region) the bucket's region.
	Endpoint, Region string
}

// KvStoreDrivers are the kvstore drivers this package reads.
var KvStoreDrivers = []string{"memory", "file", "http", "s3", "gcs"}

// kvstoreMembers lists, per driver, the members TensorStore defines; the
// context resources among them are accepted and have no effect here.
var kvstoreMembers = map[string][]string{
	"memory": {"memory_key_value_store", "atomic"},
	"file":   {"file_io_concurrency", "file_io_sync", "file_io_mode", "file_io_locking"},
	"http":   {"http_request_concurrency", "http_request_retries"},
	// (credentials come from the store's options, not the spec:
	// aws_credentials is accepted and has no effect)
	"s3":  {"s3_request_concurrency", "s3_request_retries", "experimental_s3_rate_limiter", "aws_credentials", "requester_pays", "host_header"},
	"gcs": {"gcs_request_concurrency", "gcs_request_retries", "gcs_http_rate_limiter", "gcs_user_project"},
}

// ParseKvStore reads a kvstore member: an object or a URL string.
func ParseKvStore(where string, raw jsonx.RawMessage) (*KvStore, error) {
	var s string
	if jsonx.UnmarshalStrict(raw, &s) == nil {
		return ParseKvStoreURL(where, s)
	}
	o, err := newObject(where, raw)
	if err != nil {
		return nil, err
	}
	k := &KvStore{}
	d, ok, err := o.string("driver")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, invalid(o.path("driver"), "is required")
	}
	switch d {
	case "memory", "file", "http", "s3", "gcs":
	default:
		return nil, unsupported(o.path("driver"), "kvstore driver %q is not supported (supported: memory, file, http, s3, gcs)", d).WithSuggestion(d, KvStoreDrivers)
	}
	k.Driver = d
	if k.Path, _, err = o.string("path"); err != nil {
		return nil, err
	}
	o.get("context")
	for _, m := range kvstoreMembers[d] {
		o.get(m)
	}
	switch d {
	case "s3", "gcs":
		b, ok, err := o.string("bucket")
		if err != nil {
			return nil, err
		}
		if !ok || b == "" {
			return nil, invalid(o.path("bucket"), "is required for the %s driver", d)
		}
		k.Bucket = b
		if d == "s3" {
			if k.Endpoint, _, err = o.string("endpoint"); err != nil {
				return nil, err
			}
			if k.Region, _, err = o.string("aws_region"); err != nil {
				return nil, err
			}
		}
		if _, err := urlx.ParseLocation(k.Location(), urlx.LocationOptions{Region: k.Region, Endpoint: k.Endpoint}); err != nil {
			return nil, invalid(o.path("bucket"), "%v", err)
		}
	case "file":
		if !o.has("path") {
			return nil, invalid(o.path("path"), "is required for the file driver")
		}
	case "http":
		base, ok, err := o.string("base_url")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, invalid(o.path("base_url"), "is required for the http driver")
		}
		if err := k.setHTTP(o.path("base_url"), base, k.Path); err != nil {
			return nil, err
		}
		if raw, ok := o.get("headers"); ok {
			if err := jsonx.UnmarshalStrict(raw, &k.Headers); err != nil {
				return nil, invalid(o.path("headers"), "must be a list of \"Name: value\" strings")
			}
			for _, h := range k.Headers {
				if !strings.Contains(h, ":") {
					return nil, invalid(o.path("headers"), "%q is not \"Name: value\"", h)
				}
			}
		}
	}
	if err := o.finish(); err != nil {
		return nil, err
	}
	return k, nil
}

// setHTTP splits base_url into scheme+host+query and its path, and joins
// path as TensorStore does: an absolute path replaces the base's (which must
// then have none), a relative one is appended to it as to a directory.
func (k *KvStore) setHTTP(where, base, path string) error {
	u, ok := splitURL(base)
	if !ok || (u.scheme != "http" && u.scheme != "https") || u.authority == "" {
		return invalid(where, "%q is not an http or https URL", base)
	}
	if u.fragment != "" {
		return invalid(where, "must not have a fragment")
	}
	basePath, err := urlx.Unescape(u.path)
	if err != nil {
		return invalid(where, "bad percent-encoding in %q", base)
	}
	k.BaseURL = u.base()
	switch {
	case strings.HasPrefix(path, "/"):
		if basePath != "" && basePath != "/" {
			return invalid(where, "an absolute path %q needs a base_url without a path", path)
		}
		k.Path = path
	default:
		if basePath == "" {
			basePath = "/"
		}
		k.Path = joinPath(basePath, path)
	}
	return nil
}

// ParseKvStoreURL reads a KvStore URL: memory://path, file://path,
// http(s)://host/path?query.
func ParseKvStoreURL(where, s string) (*KvStore, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return nil, invalid(where, "%q is not a kvstore URL (memory://, file:///dir/, http://host/path/)", s)
	}
	switch scheme {
	case "memory", "file":
		if strings.ContainsAny(rest, "?#") {
			return nil, invalid(where, "%s URLs take no query or fragment", scheme)
		}
		p, err := urlx.Unescape(rest)
		if err != nil {
			return nil, invalid(where, "bad percent-encoding in %q", s)
		}
		if scheme == "file" && p == "" {
			return nil, invalid(where, "file URLs need a path (file:///dir/)")
		}
		return &KvStore{Driver: scheme, Path: p}, nil
	case "http", "https":
		u, _ := splitURL(s)
		if u.authority == "" {
			return nil, invalid(where, "%q has no host", s)
		}
		if u.fragment != "" {
			return nil, invalid(where, "http URLs must not have a fragment")
		}
		p, err := urlx.Unescape(u.path)
		if err != nil {
			return nil, invalid(where, "bad percent-encoding in %q", s)
		}
		if p == "" {
			p = "/"
		}
		return &KvStore{Driver: "http", BaseURL: u.base(), Path: p}, nil
	case "s3", "gs":
		if _, err := urlx.ParseLocation(s, urlx.LocationOptions{}); err != nil {
			return nil, invalid(where, "%v", err)
		}
		bucket, p, _ := strings.Cut(rest, "/")
		driver := "s3"
		if scheme == "gs" {
			driver = "gcs"
		}
		return &KvStore{Driver: driver, Bucket: bucket, Path: p}, nil
	}
	return nil, unsupported(where, "kvstore URL scheme %q is not supported (memory, file, http, https, s3, gs)", scheme).WithSuggestion(scheme, []string{"memory", "file", "http", "https", "s3", "gs"})
}

// joinPath appends a path component as TensorStore's kvstore paths do: one
// "/" between the two, nothing added to an empty base.
func joinPath(base, p string) string {
	switch {
	case p == "":
		return base
	case base == "":
		return p
	case strings.HasSuffix(base, "/"):
		return base + strings.TrimPrefix(p, "/")
	}
	return base + "/" + strings.TrimPrefix(p, "/")
}

// directory ends a non-empty path with "/", as the chunked drivers treat
// their kvstore path as a directory.
func directory(p string) string {
	if p != "" && !strings.HasSuffix(p, "/") {
		return p + "/"
	}
	return p
}

// URL is the http store's URL of Path (percent-encoded, with the query).
func (k *KvStore) URL() string {
	u, ok := splitURL(k.BaseURL)
	if !ok {
		return k.BaseURL
	}
	s := u.scheme + "://" + u.authority + urlx.EscapePath(k.Path)
	if u.hasQuery {
		s += "?" + u.query
	}
	return s
}

// Location is an s3 or gcs kvstore's object-store location
// (s3://bucket/path, gs://bucket/path; see urlx.ObjectURL), "" for other
// drivers.
func (k *KvStore) Location() string {
	switch k.Driver {
	case "s3":
		return "s3://" + k.Bucket + "/" + k.Path
	case "gcs":
		return "gs://" + k.Bucket + "/" + k.Path
	}
	return ""
}

// JSON is the kvstore's spec object.
func (k *KvStore) JSON() map[string]any {
	m := map[string]any{"driver": k.Driver}
	if k.Driver == "http" {
		m["base_url"] = k.BaseURL
	}
	if k.Bucket != "" {
		m["bucket"] = k.Bucket
	}
	if k.Endpoint != "" {
		m["endpoint"] = k.Endpoint
	}
	if k.Region != "" {
		m["aws_region"] = k.Region
	}
	if k.Path != "" {
		m["path"] = k.Path
	}
	if len(k.Headers) > 0 {
		h := make([]any, len(k.Headers))
		for i, s := range k.Headers {
			h[i] = s
		}
		m["headers"] = h
	}
	return m
}

// ToURL is the kvstore's URL form.
func (k *KvStore) ToURL() (string, error) {
	switch k.Driver {
	case "memory", "file":
		return k.Driver + "://" + urlx.EscapePath(k.Path), nil
	case "http":
		if len(k.Headers) > 0 {
			return "", errs.New(errs.Unsupported, "kvstore.headers", "an http kvstore with headers has no URL form")
		}
		return k.URL(), nil
	case "s3", "gcs":
		if k.Endpoint != "" || k.Region != "" {
			return "", errs.New(errs.Unsupported, "kvstore", "an s3 kvstore with an endpoint or region has no URL form")
		}
		return k.Location(), nil
	}
	return "", errs.New(errs.Unsupported, "kvstore", "no URL form")
}
