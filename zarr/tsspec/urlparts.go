package tsspec

import "strings"

// Kvstore URLs taken apart without net/url (kept out of the WebAssembly
// build); percent-encoding is package urlx's.

// urlParts are the pieces of scheme://authority/path?query#fragment.
type urlParts struct {
	scheme, authority, path, query, fragment string
	hasQuery                                 bool
}

func splitURL(s string) (urlParts, bool) {
	var u urlParts
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || scheme == "" {
		return u, false
	}
	u.scheme = strings.ToLower(scheme)
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest, u.fragment = rest[:i], rest[i+1:]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, u.query, u.hasQuery = rest[:i], rest[i+1:], true
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		u.authority, u.path = rest[:i], rest[i:]
	} else {
		u.authority = rest
	}
	return u, true
}

// base is scheme://authority with the query, as TensorStore's base_url.
func (u urlParts) base() string {
	b := u.scheme + "://" + u.authority
	if u.hasQuery {
		b += "?" + u.query
	}
	return b
}
