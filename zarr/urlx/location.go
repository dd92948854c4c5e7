package urlx

import (
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// LocationOptions say how an object-store location maps to HTTP(S).
type LocationOptions struct {
	// Region is an S3 bucket's AWS region: s3://bucket/prefix is then
	// https://bucket.s3.<region>.amazonaws.com/prefix (without it,
	// https://bucket.s3.amazonaws.com/prefix, which AWS answers for
	// buckets in us-east-1 and redirects for others).
	Region string
	// Endpoint is the URL of an S3-compatible server (MinIO, R2, Ceph,
	// SeaweedFS; also a GCS emulator for gs://): locations map path-style
	// to <endpoint>/bucket/prefix.
	Endpoint string
}

// Location is where an object-store location, or an http(s) URL of an
// object store, points.
type Location struct {
	// URL is the http(s) URL of the location.
	URL string
	// Bucket is the bucket's name; "" for an http(s) URL that is not
	// known to be an object store (then Key and BucketURL are "" too).
	Bucket string
	// Key is the key, or key prefix, inside the bucket (unescaped, no
	// leading slash).
	Key string
	// BucketURL is the URL of the bucket's root, ending in "/": the URL
	// of object k is BucketURL + EscapePath(k), and bucket listings
	// (S3 ListObjectsV2) are asked of it.
	BucketURL string
	// Service is "s3" or "gcs" ("" when Bucket is "").
	Service string
	// Region is the S3 region the host names or Options.Region gives
	// ("" when neither does).
	Region string
}

// ObjectURL returns the http(s) URL of an object-store location:
//
//	s3://bucket/prefix  https://bucket.s3.amazonaws.com/prefix
//	  with Region       https://bucket.s3.<region>.amazonaws.com/prefix
//	  with Endpoint     <endpoint>/bucket/prefix
//	gs://bucket/prefix  https://storage.googleapis.com/bucket/prefix
//
// (s3a:// and gcs:// are the same). A bucket whose name is not a valid DNS
// label (dots, capitals, underscores) is addressed path-style,
// https://s3.amazonaws.com/bucket/prefix, since a virtual-hosted name with
// dots does not match AWS's TLS certificate. The key is percent-escaped
// (an s3:// key is raw text, as the AWS CLI reads it). http(s) URLs are
// returned unchanged. A location that is none of these, or is malformed,
// is an *errs.Error (code UNSUPPORTED for another scheme, STORE otherwise)
// naming it.
func ObjectURL(location string, opt LocationOptions) (string, error) {
	l, err := ParseLocation(location, opt)
	return l.URL, err
}

// ParseLocation is ObjectURL with the parts of the location: its bucket,
// key and service. An http(s) URL is recognised as an object store's when
// it is one of AWS S3's host names (virtual-hosted or path-style), of GCS's
// (storage.googleapis.com/bucket, bucket.storage.googleapis.com), or lies
// under opt.Endpoint (path-style); other http(s) URLs have no Bucket.
func ParseLocation(location string, opt LocationOptions) (Location, error) {
	scheme, rest, ok := strings.Cut(location, "://")
	if !ok || scheme == "" {
		return Location{}, errs.New(errs.Store, location, "not a location: expected s3://bucket/prefix, gs://bucket/prefix or an http(s) URL")
	}
	if opt.Region != "" && !validRegion(opt.Region) {
		return Location{}, errs.New(errs.Store, location, "bad region %q (AWS regions are like us-west-2)", opt.Region)
	}
	var endpoint string
	if opt.Endpoint != "" {
		e, err := checkEndpoint(opt.Endpoint)
		if err != nil {
			return Location{}, errs.Wrap(errs.Store, location, err, "bad endpoint")
		}
		endpoint = e
	}
	switch strings.ToLower(scheme) {
	case "s3", "s3a":
		return bucketLocation(location, rest, "s3", endpoint, opt.Region)
	case "gs", "gcs":
		return bucketLocation(location, rest, "gcs", endpoint, "")
	case "http", "https":
		return httpLocation(location, endpoint, opt.Region)
	}
	return Location{}, errs.New(errs.Unsupported, location, "unknown scheme %q: locations are s3://, gs:// or http(s)://", scheme).
		WithSuggestion(strings.ToLower(scheme), []string{"s3", "gs", "http", "https"})
}

// bucketLocation maps the bucket/key of an s3:// or gs:// location.
func bucketLocation(location, rest, service, endpoint, region string) (Location, error) {
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return Location{}, errs.New(errs.Store, location, "no bucket name")
	}
	if strings.ContainsAny(bucket, "?#@:") || !validBucket(bucket) {
		return Location{}, errs.New(errs.Store, location, "%q is not a bucket name (letters, digits, '.', '-' and '_', at most 222 characters)", bucket)
	}
	if strings.ContainsAny(key, "?#") {
		// (a query or fragment would be read as part of the key by S3 but
		// not by the URL: say so rather than read the wrong object)
		return Location{}, errs.New(errs.Store, location, "the key contains '?' or '#'; give the location as an https URL with them percent-escaped")
	}
	l := Location{Bucket: bucket, Key: key, Service: service, Region: region}
	switch {
	case endpoint != "":
		l.BucketURL = endpoint + "/" + bucket + "/"
	case service == "gcs":
		l.BucketURL = "https://storage.googleapis.com/" + bucket + "/"
	case dnsBucket(bucket):
		l.BucketURL = "https://" + bucket + "." + s3Host(region) + "/"
	default:
		l.BucketURL = "https://" + s3Host(region) + "/" + bucket + "/"
	}
	l.URL = l.BucketURL + EscapePath(key)
	return l, nil
}

// s3Host is AWS S3's endpoint in a region ("": the global one).
func s3Host(region string) string {
	switch {
	case region == "":
		return "s3.amazonaws.com"
	case strings.HasPrefix(region, "cn-"):
		return "s3." + region + ".amazonaws.com.cn"
	}
	return "s3." + region + ".amazonaws.com"
}

// httpLocation recognises the object stores' host names in an http(s) URL.
func httpLocation(location, endpoint, region string) (Location, error) {
	l := Location{URL: location, Region: region}
	scheme, rest, _ := strings.Cut(location, "://")
	authority, path, _ := strings.Cut(rest, "/")
	if authority == "" {
		return Location{}, errs.New(errs.Store, location, "no host in the URL")
	}
	if strings.ContainsAny(path, "?#") {
		return l, nil // (a query: a presigned URL or the like, not a prefix to list)
	}
	origin := strings.ToLower(scheme) + "://" + authority
	host := strings.ToLower(authority)
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host = host[:i]
	}
	// pathStyle splits path into the bucket and the key.
	pathStyle := func(base, path, service string) (Location, error) {
		bucket, key, _ := strings.Cut(path, "/")
		if bucket == "" {
			return l, nil
		}
		k, err := Unescape(key)
		if err != nil {
			return Location{}, errs.Wrap(errs.Store, location, err, "bad escape in the key")
		}
		l.Bucket, l.Key, l.Service = bucket, k, service
		l.BucketURL = base + "/" + bucket + "/"
		return l, nil
	}
	if endpoint != "" && strings.HasPrefix(location, endpoint+"/") {
		return pathStyle(endpoint, location[len(endpoint)+1:], "s3")
	}
	if host == "storage.googleapis.com" {
		return pathStyle(origin, path, "gcs")
	}
	if bucket, ok := strings.CutSuffix(host, ".storage.googleapis.com"); ok && bucket != "" {
		return virtualHosted(l, location, origin, bucket, path, "gcs")
	}
	// AWS: [bucket.]s3[.-]<region>[.dualstack].amazonaws.com[.cn]
	name, ok := strings.CutSuffix(host, ".amazonaws.com")
	if !ok {
		name, ok = strings.CutSuffix(host, ".amazonaws.com.cn")
	}
	if !ok {
		return l, nil
	}
	labels := strings.Split(name, ".")
	for i, lab := range labels {
		if lab != "s3" && !strings.HasPrefix(lab, "s3-") {
			continue
		}
		if strings.HasPrefix(lab, "s3-website") || lab == "s3-accelerate" {
			// (website endpoints do not answer the S3 API; an accelerated
			// endpoint has no region)
			if lab == "s3-accelerate" && i > 0 {
				return virtualHosted(l, location, origin, strings.Join(labels[:i], "."), path, "s3")
			}
			return l, nil
		}
		if l.Region == "" {
			l.Region = regionOf(lab, labels[i+1:])
		}
		if i == 0 {
			return pathStyle(origin, path, "s3")
		}
		return virtualHosted(l, location, origin, strings.Join(labels[:i], "."), path, "s3")
	}
	return l, nil
}

func virtualHosted(l Location, location, origin, bucket, path, service string) (Location, error) {
	k, err := Unescape(path)
	if err != nil {
		return Location{}, errs.Wrap(errs.Store, location, err, "bad escape in the key")
	}
	l.Bucket, l.Key, l.Service = bucket, k, service
	l.BucketURL = origin + "/"
	return l, nil
}

// regionOf reads the region from the labels of an AWS S3 host name:
// "s3-us-west-2", or "s3" followed by the region (and perhaps
// "dualstack" before it); "" for the global endpoint.
func regionOf(s3label string, after []string) string {
	if r, ok := strings.CutPrefix(s3label, "s3-"); ok {
		if r == "external-1" {
			return "us-east-1"
		}
		return r
	}
	for _, lab := range after {
		if lab == "dualstack" || lab == "accelerate" {
			continue
		}
		if validRegion(lab) && strings.Contains(lab, "-") {
			return lab
		}
		break
	}
	return ""
}

// checkEndpoint checks an endpoint URL and returns it without a trailing
// slash.
func checkEndpoint(e string) (string, error) {
	scheme, rest, ok := strings.Cut(e, "://")
	s := strings.ToLower(scheme)
	if !ok || (s != "http" && s != "https") {
		return "", errs.New(errs.Store, e, "an endpoint is an http(s) URL, like http://127.0.0.1:9000")
	}
	if authority, _, _ := strings.Cut(rest, "/"); authority == "" {
		return "", errs.New(errs.Store, e, "no host in the endpoint URL")
	}
	if strings.ContainsAny(rest, "?#") {
		return "", errs.New(errs.Store, e, "an endpoint URL has no query or fragment")
	}
	return strings.TrimRight(e, "/"), nil
}

func validRegion(r string) bool {
	if r == "" || len(r) > 32 {
		return false
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// validBucket accepts the names S3 (including legacy names, and
// S3-compatible servers) and GCS allow: letters, digits, '.', '-', '_'.
func validBucket(b string) bool {
	if len(b) > 222 {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// dnsBucket reports whether a bucket can be a host name label under
// s3.amazonaws.com with a matching TLS certificate: 3 to 63 lower-case
// letters, digits and hyphens, starting and ending with a letter or digit.
func dnsBucket(b string) bool {
	if len(b) < 3 || len(b) > 63 || b[0] == '-' || b[len(b)-1] == '-' {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
