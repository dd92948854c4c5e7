package s3

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// Credentials sign requests (an AWS access key, or an S3-compatible
// server's, or a GCS HMAC key).
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
	// SessionToken comes with temporary credentials (AWS STS); it is sent
	// as X-Amz-Security-Token.
	SessionToken string
	// Expires is when temporary credentials stop working (zero: unknown);
	// a store asks for new ones shortly before.
	Expires time.Time
}

// Header is a request header.
type Header struct{ Name, Value string }

// Request is what Sign signs.
type Request struct {
	Method string
	// URL is the absolute URL as it will be sent (path and query
	// percent-escaped).
	URL string
	// Header holds the headers to sign besides Host and X-Amz-* (which
	// Sign makes): Range, If-Match, If-None-Match, Content-Type, ...
	// Names in any case; a name given twice is signed as one header with
	// the values joined by commas, as HTTP reads it.
	Header []Header
	// PayloadHash is the hex SHA-256 of the body ("" for no body), or
	// UnsignedPayload.
	PayloadHash string
}

const (
	// UnsignedPayload as PayloadHash leaves the body out of the signature
	// (presigned URLs always do).
	UnsignedPayload = "UNSIGNED-PAYLOAD"
	// EmptyPayloadHash is the SHA-256 of no bytes.
	EmptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	algorithm        = "AWS4-HMAC-SHA256"
	amzDateFormat    = "20060102T150405Z"
)

// Signer signs requests with AWS Signature Version 4.
type Signer struct {
	// Region is the region in the signature's scope (S3: the bucket's;
	// "" means us-east-1, which also suits most S3-compatible servers).
	Region string
	// Service is the service in the scope ("" means "s3").
	Service string
	// Generic signs as AWS's services other than S3 do (and as the
	// SigV4 test suite does): the path is normalised ("." and ".."
	// segments resolved, repeated slashes collapsed) and no
	// X-Amz-Content-Sha256 header is sent. S3 signs the path as it is.
	Generic bool
}

// PayloadHash returns the hex SHA-256 of a body.
func PayloadHash(body []byte) string {
	h := sum256(body)
	return hexString(h[:])
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}

// Sign returns the headers that authenticate req at time now: X-Amz-Date,
// X-Amz-Content-Sha256 (S3), X-Amz-Security-Token (with a session token)
// and Authorization. They are to be sent with req.Header, unchanged.
func (s Signer) Sign(req Request, c Credentials, now time.Time) ([]Header, error) {
	if err := checkCredentials(c, req.URL); err != nil {
		return nil, err
	}
	amzDate := now.UTC().Format(amzDateFormat)
	payload := payloadOf(req)
	out := []Header{{"X-Amz-Date", amzDate}}
	if !s.Generic {
		out = append(out, Header{"X-Amz-Content-Sha256", payload})
	}
	if c.SessionToken != "" {
		out = append(out, Header{"X-Amz-Security-Token", c.SessionToken})
	}
	creq, signed := s.canonicalRequest(req, out, now)
	if creq == "" {
		_, err := splitURL(req.URL)
		return nil, err
	}
	scope := s.scope(amzDate)
	sig := s.signature(c.SecretAccessKey, amzDate, scope, creq)
	out = append(out, Header{"Authorization", algorithm + " Credential=" + c.AccessKeyID + "/" + scope +
		", SignedHeaders=" + signed + ", Signature=" + sig})
	return out, nil
}

func payloadOf(req Request) string {
	if req.PayloadHash == "" {
		return EmptyPayloadHash
	}
	return req.PayloadHash
}

// canonicalRequest is the canonical request of req sent with the headers
// added (and Host), and the signed header names; "" for a URL that cannot
// be signed.
func (s Signer) canonicalRequest(req Request, added []Header, now time.Time) (creq, signed string) {
	u, err := splitURL(req.URL)
	if err != nil {
		return "", ""
	}
	hs := append([]Header{{"host", u.host}}, req.Header...)
	hs = append(hs, added...)
	canonHeaders, signed := canonicalHeaders(hs)
	return strings.Join([]string{
		req.Method,
		s.canonicalURI(u.rawPath),
		canonicalQuery(u.query),
		canonHeaders,
		signed,
		payloadOf(req),
	}, "\n"), signed
}

// Presign returns req.URL with the signature in its query (X-Amz-*
// parameters), valid for expires (at most 7 days): a URL anyone can use
// without credentials, and a request without extra headers (so a browser
// sends a cross-origin GET without a CORS preflight). Only the Host header
// is signed; the payload is unsigned.
func (s Signer) Presign(req Request, c Credentials, now time.Time, expires time.Duration) (string, error) {
	u, err := splitURL(req.URL)
	if err != nil {
		return "", err
	}
	if err := checkCredentials(c, req.URL); err != nil {
		return "", err
	}
	secs := int64(expires / time.Second)
	if secs < 1 || secs > 7*24*3600 {
		return "", errs.New(errs.Store, req.URL, "a presigned URL lasts 1 s to 7 days, not %v", expires)
	}
	amzDate := now.UTC().Format(amzDateFormat)
	scope := s.scope(amzDate)
	add := [][2]string{
		{"X-Amz-Algorithm", algorithm},
		{"X-Amz-Credential", c.AccessKeyID + "/" + scope},
		{"X-Amz-Date", amzDate},
		{"X-Amz-Expires", strconv.FormatInt(secs, 10)},
		{"X-Amz-SignedHeaders", "host"},
	}
	if c.SessionToken != "" {
		add = append(add, [2]string{"X-Amz-Security-Token", c.SessionToken})
	}
	q := u.query
	for _, kv := range add {
		if q != "" {
			q += "&"
		}
		q += uriEncode(kv[0], true) + "=" + uriEncode(kv[1], true)
	}
	canonHeaders, signed := canonicalHeaders([]Header{{"host", u.host}})
	creq := strings.Join([]string{req.Method, s.canonicalURI(u.rawPath), canonicalQuery(q), canonHeaders, signed, UnsignedPayload}, "\n")
	sig := s.signature(c.SecretAccessKey, amzDate, scope, creq)
	return u.origin + u.rawPath + "?" + q + "&X-Amz-Signature=" + sig, nil
}

// Presigned reports whether a URL carries a signature in its query (a
// presigned URL): it is fetched as it is, never signed again.
func Presigned(u string) bool {
	_, q, ok := strings.Cut(u, "?")
	if !ok {
		return false
	}
	for _, p := range strings.Split(q, "&") {
		name, _, _ := strings.Cut(p, "=")
		switch strings.ToLower(name) {
		case "x-amz-signature", "x-amz-credential", "signature", "awsaccesskeyid", "x-goog-signature":
			return true
		}
	}
	return false
}

func checkCredentials(c Credentials, where string) error {
	if c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return errs.New(errs.AccessDenied, where, "credentials need an access key id and a secret access key")
	}
	return nil
}

func (s Signer) region() string {
	if s.Region == "" {
		return "us-east-1"
	}
	return s.Region
}

func (s Signer) service() string {
	if s.Service == "" {
		return "s3"
	}
	return s.Service
}

func (s Signer) scope(amzDate string) string {
	return amzDate[:8] + "/" + s.region() + "/" + s.service() + "/aws4_request"
}

func (s Signer) signature(secret, amzDate, scope, creq string) string {
	h := sum256([]byte(creq))
	sts := algorithm + "\n" + amzDate + "\n" + scope + "\n" + hexString(h[:])
	key := hmacSHA256([]byte("AWS4"+secret), amzDate[:8])
	key = hmacSHA256(key, s.region())
	key = hmacSHA256(key, s.service())
	key = hmacSHA256(key, "aws4_request")
	return hexString(hmacSHA256(key, sts))
}

// canonicalURI is the path as SigV4 signs it: decoded, then every byte but
// the unreserved ones and '/' percent-encoded (S3 signs the object key so;
// Generic also normalises the path first).
func (s Signer) canonicalURI(rawPath string) string {
	p, err := urlx.Unescape(rawPath)
	if err != nil {
		p = rawPath
	}
	if p == "" {
		p = "/"
	}
	if s.Generic {
		p = normalizePath(p)
	}
	return uriEncode(p, false)
}

// normalizePath resolves "." and ".." and collapses repeated slashes,
// keeping a trailing slash.
func normalizePath(p string) string {
	var segs []string
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
		default:
			segs = append(segs, seg)
		}
	}
	out := "/" + strings.Join(segs, "/")
	if len(segs) > 0 && (strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..")) {
		out += "/"
	}
	return out
}

// uriEncode percent-encodes every byte but A-Z, a-z, 0-9, '-', '.', '_',
// '~' (and '/' unless slash), with upper-case hex, as SigV4 requires.
func uriEncode(s string, slash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || (c == '/' && !slash) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// QueryEscape percent-encodes a query parameter's name or value as SigV4
// signs it (so what is sent and what is signed are the same bytes).
func QueryEscape(s string) string { return uriEncode(s, true) }

// canonicalQuery sorts the parameters of a raw query by encoded name, then
// value, each decoded and encoded again the SigV4 way.
func canonicalQuery(q string) string {
	if q == "" {
		return ""
	}
	var ps [][2]string
	for _, p := range strings.Split(q, "&") {
		if p == "" {
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		ps = append(ps, [2]string{encodeAgain(k), encodeAgain(v)})
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i][0] != ps[j][0] {
			return ps[i][0] < ps[j][0]
		}
		return ps[i][1] < ps[j][1]
	})
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p[0] + "=" + p[1]
	}
	return strings.Join(parts, "&")
}

func encodeAgain(s string) string {
	if d, err := urlx.Unescape(s); err == nil {
		s = d
	}
	return uriEncode(s, true)
}

// canonicalHeaders returns the canonical header block (each "name:value\n")
// and the signed header names, sorted, lower-case, joined by ';'.
func canonicalHeaders(hs []Header) (block, signed string) {
	m := map[string][]string{}
	var names []string
	for _, h := range hs {
		n := strings.ToLower(strings.TrimSpace(h.Name))
		if _, ok := m[n]; !ok {
			names = append(names, n)
		}
		m[n] = append(m[n], trimValue(h.Value))
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte(':')
		b.WriteString(strings.Join(m[n], ","))
		b.WriteByte('\n')
	}
	return b.String(), strings.Join(names, ";")
}

// trimValue trims a header value and collapses each run of white space
// (folded lines included) to one space.
func trimValue(v string) string {
	return strings.Join(strings.Fields(v), " ")
}

// urlParts are the pieces of an absolute URL the signature needs.
type urlParts struct {
	origin  string // scheme://authority
	host    string // the Host header: the authority, default port left out
	rawPath string // as sent ("/..." or "")
	query   string // as sent, without '?'
}

func splitURL(u string) (urlParts, error) {
	scheme, rest, ok := strings.Cut(u, "://")
	s := strings.ToLower(scheme)
	if !ok || (s != "http" && s != "https") {
		return urlParts{}, errs.New(errs.Store, u, "only http(s) requests can be signed")
	}
	rest, _, _ = strings.Cut(rest, "#")
	authority, path := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if authority == "" || strings.Contains(authority, "@") {
		return urlParts{}, errs.New(errs.Store, u, "no host, or user information in the URL")
	}
	p := urlParts{origin: s + "://" + authority}
	p.rawPath, p.query, _ = strings.Cut(path, "?")
	host := strings.ToLower(authority)
	if (s == "http" && strings.HasSuffix(host, ":80")) || (s == "https" && strings.HasSuffix(host, ":443")) {
		host = host[:strings.LastIndexByte(host, ':')]
	}
	p.host = host
	return p, nil
}
