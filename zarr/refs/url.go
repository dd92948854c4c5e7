package refs

import (
	"path"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// hasScheme reports whether u starts with "scheme://" (or "scheme:" for
// data: and similar URLs without authority).
func scheme(u string) string {
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 1: // i > 1: "C:\..." is a Windows drive, not a scheme
			return strings.ToLower(u[:i])
		default:
			return ""
		}
	}
	return ""
}

// Resolve returns ref resolved against base, the URL of the reference file
// (or of a Parquet reference directory, ending in "/"): a ref with a scheme
// ("https://", "s3://", "file://") is already absolute; "/path" keeps the
// base's scheme and host; anything else is relative to the base's directory,
// with "." and ".." segments applied. A base's query and fragment are not
// carried over. With an empty base, ref is returned as it is.
func Resolve(base, ref string) string {
	if ref == "" {
		return base
	}
	if base == "" || scheme(ref) != "" {
		return ref
	}
	b := base
	if i := strings.IndexAny(b, "?#"); i >= 0 {
		b = b[:i]
	}
	// split the base into an origin ("https://host", "file://", "") and a path
	origin, p := "", b
	if s := scheme(b); s != "" {
		rest := b[len(s)+1:]
		if strings.HasPrefix(rest, "//") {
			j := strings.IndexByte(rest[2:], '/')
			if j < 0 {
				origin, p = b, "/"
			} else {
				origin, p = b[:len(s)+1+2+j], rest[2+j:]
			}
		} else {
			origin, p = b[:len(s)+1], rest
		}
	}
	var q string
	if i := strings.IndexAny(ref, "?#"); i >= 0 {
		ref, q = ref[:i], ref[i:]
	}
	var joined string
	if strings.HasPrefix(ref, "/") {
		joined = ref
	} else {
		dir := p[:strings.LastIndexByte(p, '/')+1]
		joined = dir + ref
	}
	abs := strings.HasPrefix(joined, "/")
	trailing := strings.HasSuffix(ref, "/")
	c := path.Clean(joined)
	if !abs {
		// path.Clean keeps leading ".." of a relative path
		c = strings.TrimPrefix(c, "./")
		if c == "." {
			c = ""
		}
	}
	if trailing && !strings.HasSuffix(c, "/") {
		c += "/"
	}
	return origin + c + q
}

// DefaultURLMap maps the object-store URLs kerchunk writes to their public
// HTTPS endpoints (urlx.ObjectURL without options) and leaves every other
// URL unchanged:
//
//	s3://bucket/key            -> https://bucket.s3.amazonaws.com/key
//	s3://bucket.with.dots/key  -> https://s3.amazonaws.com/bucket.with.dots/key
//	gs://bucket/key, gcs://... -> https://storage.googleapis.com/bucket/key
//
// Private buckets, other regions' endpoints and S3-compatible services need
// Options.URLMap (or a Fetcher that signs requests).
func DefaultURLMap(u string) string {
	switch strings.ToLower(scheme(u)) {
	case "s3", "s3a", "gs", "gcs":
		if m, err := urlx.ObjectURL(u, urlx.LocationOptions{}); err == nil {
			return m
		}
	}
	return u
}

// allowedTarget checks a resolved target url against Options.SameOrigin
// (the origin of base) and Options.AllowedTargets.
func allowedTarget(target, base string, opt Options) error {
	t, ok := splitURL(target)
	if !ok {
		return fmtx.Errorf("%q is not an absolute URL the allowed targets can be checked against", target)
	}
	var allowed []urlParts
	if opt.SameOrigin && base != "" {
		if b, ok := splitURL(base); ok {
			b.path = "/" // the reference file's origin, not its path
			allowed = append(allowed, b)
		}
	}
	for _, a := range opt.AllowedTargets {
		if p, ok := splitURL(a); ok {
			allowed = append(allowed, p)
		}
	}
	for _, p := range allowed {
		if t.under(p) {
			return nil
		}
	}
	what := "the allowed targets " + strings.Join(opt.AllowedTargets, ", ")
	if opt.SameOrigin {
		what = "the reference file's origin"
		if base == "" {
			what = "the reference file's origin (unknown: no base URL was given)"
		}
		if len(opt.AllowedTargets) > 0 {
			what += " or " + strings.Join(opt.AllowedTargets, ", ")
		}
	}
	return fmtx.Errorf("%s is outside %s (Options.SameOrigin, Options.AllowedTargets)", target, what)
}

// urlParts is what the target check compares of a URL.
type urlParts struct {
	scheme, host, port, path string
	user                     bool // has user information ("user@host")
}

// splitURL takes a "scheme://authority/path" URL apart: scheme and host in
// lower case, the scheme's default port filled in, the path unescaped and
// cleaned ("." and ".." applied). ok is false for anything else.
func splitURL(u string) (p urlParts, ok bool) {
	p.scheme = scheme(u)
	rest, found := strings.CutPrefix(u[len(p.scheme)+1:], "//")
	if p.scheme == "" || !found {
		return p, false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	auth, tail := rest[:end], rest[end:]
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		p.user, auth = true, auth[i+1:]
	}
	p.host = auth
	if strings.HasPrefix(auth, "[") { // IPv6 literal
		j := strings.IndexByte(auth, ']')
		if j < 0 {
			return p, false
		}
		p.host, auth = auth[:j+1], auth[j+1:]
		if strings.HasPrefix(auth, ":") {
			p.port = auth[1:]
		}
	} else if i := strings.LastIndexByte(auth, ':'); i >= 0 {
		p.host, p.port = auth[:i], auth[i+1:]
	}
	p.host = strings.ToLower(p.host)
	if p.port == "" {
		switch p.scheme {
		case "http":
			p.port = "80"
		case "https":
			p.port = "443"
		}
	}
	if i := strings.IndexAny(tail, "?#"); i >= 0 {
		tail = tail[:i]
	}
	raw, err := urlx.Unescape(tail)
	if err != nil {
		return p, false
	}
	p.path = path.Clean("/" + raw)
	if strings.HasSuffix(raw, "/") && p.path != "/" {
		p.path += "/"
	}
	return p, true
}

// under reports whether t is at or below p's origin and path.
func (t urlParts) under(p urlParts) bool {
	if t.scheme != p.scheme || t.host != p.host || t.port != p.port || t.user {
		return false
	}
	switch {
	case p.path == "/":
		return true
	case strings.HasSuffix(p.path, "/"):
		return strings.HasPrefix(strings.TrimSuffix(t.path, "/")+"/", p.path)
	}
	return t.path == p.path || strings.HasPrefix(t.path, p.path+"/")
}
