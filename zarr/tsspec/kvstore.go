package tsspec

import (
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// KvStore is a key/value store spec: a JSON object {"driver", "path", ...}
// or a KvStore URL ("memory://", "file:///tmp/x/", "http://host/x/").
type KvStore struct {
	Driver string // "memory", "file" or "http"
	// Path is the key prefix: in the memory store, a directory on the file
	// system, or (http) the path below BaseURL's host, starting with "/".
	Path string
	// BaseURL is the http store's scheme, host and query ("http://h:8080?q=1").
	BaseURL string
	// Headers are extra http request headers ("Name: value").
	Headers []string
}

// KvStoreDrivers are the kvstore drivers this package reads.
var KvStoreDrivers = []string{"memory", "file", "http"}

// kvstoreMembers lists, per driver, the members TensorStore defines; the
// context resources among them are accepted and have no effect here.
var kvstoreMembers = map[string][]string{
	"memory": {"memory_key_value_store", "atomic"},
	"file":   {"file_io_concurrency", "file_io_sync", "file_io_mode", "file_io_locking"},
	"http":   {"http_request_concurrency", "http_request_retries"},
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
	case "memory", "file", "http":
	default:
		return nil, unsupported(o.path("driver"), "kvstore driver %q is not supported (supported: memory, file, http)", d).WithSuggestion(d, KvStoreDrivers)
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
	}
	return nil, unsupported(where, "kvstore URL scheme %q is not supported (memory, file, http, https)", scheme).WithSuggestion(scheme, []string{"memory", "file", "http", "https"})
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

// JSON is the kvstore's spec object.
func (k *KvStore) JSON() map[string]any {
	m := map[string]any{"driver": k.Driver}
	if k.Driver == "http" {
		m["base_url"] = k.BaseURL
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
	}
	return "", errs.New(errs.Unsupported, "kvstore", "no URL form")
}
