package icechunk

import (
	"context"
	"strings"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlfetch"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// Fetcher reads byte ranges of the files virtual chunks point at (zarr/refs'
// Fetcher too: zarr/store/http's Fetcher is both). A missing file is
// ok == false with a nil error. Reads go through zarr/urlfetch: ranges of
// one file read together are merged.
type Fetcher = urlfetch.Fetcher

// ValidatingFetcher is a Fetcher that also returns its answer's validators:
// the ETag and Last-Modified headers ("" when absent). Virtual chunks whose
// reference records an ETag or a modification time need one, so that a
// target that changed since the reference was written is noticed.
type ValidatingFetcher = urlfetch.ValidatingFetcher

// virtual reads r of a virtual chunk.
func (s *Store) virtual(ctx context.Context, key string, loc location, r store.ByteRange) ([]byte, bool, error) {
	ref := loc.ref
	url, err := s.virtualURL(key, ref.location)
	if err != nil {
		return nil, false, err
	}
	if ref.length > 1<<62 || ref.offset > 1<<62 {
		return nil, false, errs.New(errs.InvalidMetadata, key, "%s gives the chunk %d bytes at offset %d", loc.man, ref.length, ref.offset)
	}
	off, n, err := r.Resolve(int64(ref.length))
	if err != nil {
		return nil, false, errs.Wrap(errs.Store, key, err, "bad range")
	}
	if n == 0 {
		return []byte{}, true, nil
	}
	if s.opt.Fetcher == nil {
		return nil, false, errs.New(errs.Store, key, "the chunk is virtual (in %s) and no fetcher was given to read it with", ref.location)
	}
	versioned := ref.etag != "" || ref.lastModified != 0
	if _, can := s.opt.Fetcher.(ValidatingFetcher); versioned && !can {
		return nil, false, errs.New(errs.Store, key, "the virtual chunk in %s records the version of its file, and the fetcher cannot report versions to check it against", ref.location)
	}
	ans, err := s.files.Read(ctx, key, url, int64(ref.offset)+off, n)
	if err != nil {
		return nil, false, err
	}
	if int64(len(ans.Data)) != n {
		return nil, false, errs.New(errs.Store, key, "%s answered %d bytes for the virtual chunk's %d", url, len(ans.Data), n)
	}
	if versioned {
		if err := checkVersion(key, url, ref, ans.ETag, ans.LastModified); err != nil {
			return nil, false, err
		}
	}
	return ans.Data, true, nil
}

// checkVersion compares a virtual reference's recorded version of its file
// with the answer's: a different ETag, or a Last-Modified time after the
// recorded one, is a CONFLICT.
func checkVersion(key, url string, ref chunkRef, etag, lastModified string) error {
	if ref.etag != "" {
		if etag == "" {
			return errs.New(errs.Store, key, "the virtual chunk records ETag %s of %s, and the answer has no ETag to check (a server of another origin must expose it: Access-Control-Expose-Headers: ETag)", ref.etag, url)
		}
		if bareETag(etag) != bareETag(ref.etag) {
			return errs.New(errs.Conflict, key, "%s changed since the virtual chunk was written (ETag %s, recorded %s)", url, etag, ref.etag)
		}
		return nil
	}
	if lastModified == "" {
		return errs.New(errs.Store, key, "the virtual chunk records the modification time of %s, and the answer has no Last-Modified to check", url)
	}
	t, ok := parseHTTPDate(lastModified)
	if !ok {
		return errs.New(errs.Store, key, "%s answered Last-Modified %q, not an HTTP date", url, lastModified)
	}
	if t.Unix() > int64(ref.lastModified) {
		return errs.New(errs.Conflict, key, "%s changed since the virtual chunk was written (modified %s, recorded %s)", url,
			t.UTC().Format(time.RFC3339), time.Unix(int64(ref.lastModified), 0).UTC().Format(time.RFC3339))
	}
	return nil
}

// bareETag drops an ETag's weak marker and quotes.
func bareETag(e string) string {
	e = strings.TrimPrefix(strings.TrimSpace(e), "W/")
	return strings.Trim(e, `"`)
}

// parseHTTPDate reads an HTTP date in its one current form, IMF-fixdate
// ("Sun, 06 Nov 1994 08:49:37 GMT"; RFC 9110 has servers send only this).
func parseHTTPDate(s string) (time.Time, bool) {
	if len(s) != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' || s[19] != ':' || s[22] != ':' || s[25:] != " GMT" {
		return time.Time{}, false
	}
	num := func(t string) int {
		n := 0
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return -1
			}
			n = n*10 + int(t[i]-'0')
		}
		return n
	}
	month := strings.Index("JanFebMarAprMayJunJulAugSepOctNovDec", s[8:11])
	day, year, h, m, sec := num(s[5:7]), num(s[12:16]), num(s[17:19]), num(s[20:22]), num(s[23:25])
	if month < 0 || month%3 != 0 || day < 1 || day > 31 || year < 0 || h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month/3+1), day, h, m, sec, 0, time.UTC), true
}

// virtualURL checks a virtual chunk's location against the allowed
// prefixes and returns the URL to fetch.
func (s *Store) virtualURL(key, location string) (string, error) {
	best, found := "", false
	for p := range s.opt.VirtualChunks {
		if prefixMatches(p, location) && (!found || len(p) > len(best)) {
			best, found = p, true
		}
	}
	if !found {
		dir := location
		if i := strings.LastIndexByte(location, '/'); i >= 0 {
			dir = location[:i+1]
		}
		return "", errs.New(errs.Store, key, "the chunk is virtual, in %s, outside the prefixes virtual chunks may be read from (allow %q)", location, dir)
	}
	rest := location[len(best):]
	if dotSegment(rest) {
		return "", errs.New(errs.Store, key, "the virtual chunk's location %s leaves its prefix %s through a dot segment", location, best)
	}
	url := location
	if to := s.opt.VirtualChunks[best]; to != "" {
		url = to + rest
	}
	if s.opt.URLMap != nil {
		return s.opt.URLMap(url), nil
	}
	// s3:// and gs:// (Icechunk's usual containers) to their HTTPS URLs
	mapped, err := urlx.ObjectURL(url, urlx.LocationOptions{})
	if err != nil {
		return "", errs.Wrap(errs.Store, key, err, "the virtual chunk's location %s cannot be fetched", url)
	}
	return mapped, nil
}

// prefixMatches: location starts with prefix, at a "/" boundary when the
// prefix does not end in one ("s3://b/x" allows "s3://b/x/y", not
// "s3://b/xy").
func prefixMatches(prefix, location string) bool {
	if prefix == "" || !strings.HasPrefix(location, prefix) {
		return false
	}
	return strings.HasSuffix(prefix, "/") || len(location) == len(prefix) || location[len(prefix)] == '/' ||
		strings.HasSuffix(prefix, "://")
}

// dotSegment reports a "." or ".." path segment (percent-encoded too) or a
// backslash, which URL parsers resolve past the prefix.
func dotSegment(rest string) bool {
	if strings.ContainsRune(rest, '\\') {
		return true
	}
	for _, seg := range strings.Split(rest, "/") {
		seg = strings.ReplaceAll(strings.ToLower(seg), "%2e", ".")
		if seg == "." || seg == ".." {
			return true
		}
		if strings.Contains(seg, "%2f") || strings.Contains(seg, "%5c") {
			return true
		}
	}
	return false
}
