package tsspec

import (
	"errors"
	"strings"
)

// URL handling of kvstore URLs, small enough to keep net/url (and what it
// pulls in) out of the WebAssembly build.

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

// unescape decodes %XX escapes.
func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
			return "", errors.New("bad percent-encoding")
		}
		b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
		i += 2
	}
	return b.String(), nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// escapePath percent-encodes a path for a URL (RFC 3986 pchar and "/").
func escapePath(p string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}
