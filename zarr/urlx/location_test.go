package urlx

import (
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// The expected URLs are AWS's and Google's documented addressing styles
// (S3: "Virtual hosting of buckets", "Path-style requests"; GCS: "Request
// endpoints", XML API), written out by hand.
func TestObjectURL(t *testing.T) {
	for _, c := range []struct {
		loc  string
		opt  LocationOptions
		want string
	}{
		{"s3://bucket/prefix", LocationOptions{}, "https://bucket.s3.amazonaws.com/prefix"},
		{"s3://bucket/prefix/", LocationOptions{}, "https://bucket.s3.amazonaws.com/prefix/"},
		{"s3://bucket", LocationOptions{}, "https://bucket.s3.amazonaws.com/"},
		{"s3://bucket/", LocationOptions{}, "https://bucket.s3.amazonaws.com/"},
		{"s3a://bucket/a/b.zarr", LocationOptions{}, "https://bucket.s3.amazonaws.com/a/b.zarr"},
		{"s3://bucket/prefix", LocationOptions{Region: "us-west-2"}, "https://bucket.s3.us-west-2.amazonaws.com/prefix"},
		{"s3://bucket/prefix", LocationOptions{Region: "cn-north-1"}, "https://bucket.s3.cn-north-1.amazonaws.com.cn/prefix"},
		{"s3://my.bucket/k", LocationOptions{}, "https://s3.amazonaws.com/my.bucket/k"},
		{"s3://my.bucket/k", LocationOptions{Region: "eu-west-1"}, "https://s3.eu-west-1.amazonaws.com/my.bucket/k"},
		{"s3://Legacy_Bucket/k", LocationOptions{}, "https://s3.amazonaws.com/Legacy_Bucket/k"},
		{"s3://bucket/prefix", LocationOptions{Endpoint: "http://127.0.0.1:9000"}, "http://127.0.0.1:9000/bucket/prefix"},
		{"s3://bucket/prefix", LocationOptions{Endpoint: "https://minio.example.org/s3/"}, "https://minio.example.org/s3/bucket/prefix"},
		{"s3://bucket/a b/ü?", LocationOptions{}, ""}, // '?' refused below
		{"s3://bucket/a b/ü", LocationOptions{}, "https://bucket.s3.amazonaws.com/a%20b/%C3%BC"},
		{"gs://bucket/prefix", LocationOptions{}, "https://storage.googleapis.com/bucket/prefix"},
		{"gcs://bucket/prefix", LocationOptions{}, "https://storage.googleapis.com/bucket/prefix"},
		{"gs://bucket/prefix", LocationOptions{Endpoint: "http://localhost:4443"}, "http://localhost:4443/bucket/prefix"},
		{"https://example.org/data.zarr", LocationOptions{}, "https://example.org/data.zarr"},
		{"HTTP://example.org/x", LocationOptions{}, "HTTP://example.org/x"},
	} {
		got, err := ObjectURL(c.loc, c.opt)
		if c.want == "" {
			if err == nil {
				t.Errorf("ObjectURL(%q): %q, want an error", c.loc, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ObjectURL(%q, %+v) = %q, %v; want %q", c.loc, c.opt, got, err, c.want)
		}
	}
}

func TestParseLocation(t *testing.T) {
	for _, c := range []struct {
		loc                             string
		opt                             LocationOptions
		bucket, key, bucketURL, service string
		region                          string
	}{
		{"s3://bk1/p/q", LocationOptions{}, "bk1", "p/q", "https://bk1.s3.amazonaws.com/", "s3", ""},
		{"s3://bk1/p", LocationOptions{Region: "us-west-2"}, "bk1", "p", "https://bk1.s3.us-west-2.amazonaws.com/", "s3", "us-west-2"},
		{"s3://bk1/p", LocationOptions{Endpoint: "http://127.0.0.1:8333"}, "bk1", "p", "http://127.0.0.1:8333/bk1/", "s3", ""},
		{"gs://g1/x/y", LocationOptions{}, "g1", "x/y", "https://storage.googleapis.com/g1/", "gcs", ""},
		// http(s) URLs of the stores' own host names
		{"https://b1.s3.amazonaws.com/a%20b/c", LocationOptions{}, "b1", "a b/c", "https://b1.s3.amazonaws.com/", "s3", ""},
		{"https://b1.s3.us-west-2.amazonaws.com/p", LocationOptions{}, "b1", "p", "https://b1.s3.us-west-2.amazonaws.com/", "s3", "us-west-2"},
		{"https://b1.s3-eu-west-1.amazonaws.com/p", LocationOptions{}, "b1", "p", "https://b1.s3-eu-west-1.amazonaws.com/", "s3", "eu-west-1"},
		{"https://b1.s3.dualstack.ap-south-1.amazonaws.com/p", LocationOptions{}, "b1", "p", "https://b1.s3.dualstack.ap-south-1.amazonaws.com/", "s3", "ap-south-1"},
		{"https://s3.us-east-2.amazonaws.com/my.bucket/p", LocationOptions{}, "my.bucket", "p", "https://s3.us-east-2.amazonaws.com/my.bucket/", "s3", "us-east-2"},
		{"https://s3.amazonaws.com/b1/p", LocationOptions{}, "b1", "p", "https://s3.amazonaws.com/b1/", "s3", ""},
		{"https://my.bucket.s3.amazonaws.com/p", LocationOptions{}, "my.bucket", "p", "https://my.bucket.s3.amazonaws.com/", "s3", ""},
		{"https://b1.s3.cn-north-1.amazonaws.com.cn/p", LocationOptions{}, "b1", "p", "https://b1.s3.cn-north-1.amazonaws.com.cn/", "s3", "cn-north-1"},
		{"https://storage.googleapis.com/g1/x", LocationOptions{}, "g1", "x", "https://storage.googleapis.com/g1/", "gcs", ""},
		{"https://g1.storage.googleapis.com/x", LocationOptions{}, "g1", "x", "https://g1.storage.googleapis.com/", "gcs", ""},
		{"http://127.0.0.1:8333/b1/p", LocationOptions{Endpoint: "http://127.0.0.1:8333/"}, "b1", "p", "http://127.0.0.1:8333/b1/", "s3", ""},
		// not an object store's: no bucket
		{"https://example.org/b1/p", LocationOptions{}, "", "", "", "", ""},
		{"http://127.0.0.1:8333/b1/p", LocationOptions{}, "", "", "", "", ""},
		{"https://b1.s3-website-us-east-1.amazonaws.com/p", LocationOptions{}, "", "", "", "", ""},
		{"https://b1.s3.amazonaws.com/p?X-Amz-Signature=abc", LocationOptions{}, "", "", "", "", ""},
	} {
		l, err := ParseLocation(c.loc, c.opt)
		if err != nil {
			t.Errorf("ParseLocation(%q): %v", c.loc, err)
			continue
		}
		if l.Bucket != c.bucket || l.Key != c.key || l.BucketURL != c.bucketURL || l.Service != c.service || l.Region != c.region {
			t.Errorf("ParseLocation(%q, %+v) = %+v", c.loc, c.opt, l)
		}
		if l.Bucket != "" && l.BucketURL+EscapePath(l.Key) != l.URL && c.loc[0] != 'h' {
			t.Errorf("ParseLocation(%q): URL %q is not BucketURL + key", c.loc, l.URL)
		}
	}
}

func TestBadLocations(t *testing.T) {
	for _, c := range []struct {
		loc     string
		opt     LocationOptions
		code    errs.Code
		suggest string
	}{
		{"", LocationOptions{}, errs.Store, ""},
		{"bucket/prefix", LocationOptions{}, errs.Store, ""},
		{"s3://", LocationOptions{}, errs.Store, ""},
		{"s3:///prefix", LocationOptions{}, errs.Store, ""},
		{"s3://bu cket/p", LocationOptions{}, errs.Store, ""},
		{"s3://user@bucket/p", LocationOptions{}, errs.Store, ""},
		{"s3://bucket/p#frag", LocationOptions{}, errs.Store, ""},
		{"s3://bucket/p", LocationOptions{Region: "US West 2"}, errs.Store, ""},
		{"s3://bucket/p", LocationOptions{Endpoint: "127.0.0.1:9000"}, errs.Store, ""},
		{"s3://bucket/p", LocationOptions{Endpoint: "http:///x"}, errs.Store, ""},
		{"s3://bucket/p", LocationOptions{Endpoint: "http://h/?a=b"}, errs.Store, ""},
		{"https:///p", LocationOptions{}, errs.Store, ""},
		{"s4://bucket/p", LocationOptions{}, errs.Unsupported, "s3"},
		{"gz://bucket/p", LocationOptions{}, errs.Unsupported, "gs"},
		{"az://container/p", LocationOptions{}, errs.Unsupported, ""},
	} {
		_, err := ObjectURL(c.loc, c.opt)
		e, ok := err.(*errs.Error)
		if !ok {
			t.Errorf("ObjectURL(%q, %+v): %v, want an *errs.Error", c.loc, c.opt, err)
			continue
		}
		if e.Code != c.code || e.Where != c.loc || e.Suggest != c.suggest {
			t.Errorf("ObjectURL(%q, %+v): code %s where %q suggest %q (%v)", c.loc, c.opt, e.Code, e.Where, e.Suggest, e)
		}
	}
}
