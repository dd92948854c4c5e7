package s3

import (
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// A ListObjectsV2 answer in the form AWS documents (Amazon S3 API
// Reference, ListObjectsV2, "Sample Response"), with a delimiter.
const page1 = `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name>
  <Prefix>data.zarr/</Prefix>
  <KeyCount>3</KeyCount>
  <MaxKeys>3</MaxKeys>
  <Delimiter>/</Delimiter>
  <EncodingType>url</EncodingType>
  <IsTruncated>true</IsTruncated>
  <Contents>
    <Key>data.zarr/zarr.json</Key>
    <LastModified>2026-01-02T03:04:05.000Z</LastModified>
    <ETag>&quot;599bab3ed2c697f1d26842727561fd94&quot;</ETag>
    <Size>142863</Size>
    <StorageClass>STANDARD</StorageClass>
  </Contents>
  <CommonPrefixes><Prefix>data.zarr/a+b/</Prefix></CommonPrefixes>
  <CommonPrefixes><Prefix>data.zarr/%C3%BC%2B/</Prefix></CommonPrefixes>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
</ListBucketResult>`

const page2 = `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bucket</Name><Prefix>data.zarr/</Prefix>
<ContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</ContinuationToken><KeyCount>1</KeyCount><IsTruncated>false</IsTruncated>
<Contents><Key>data.zarr/x&amp;y</Key></Contents><Contents><Key>data.zarr/</Key></Contents></ListBucketResult>`

func TestListing(t *testing.T) {
	l := NewListing("http://127.0.0.1:9000/bucket/", "data.zarr/", "s3://bucket/data.zarr/")
	want1 := "http://127.0.0.1:9000/bucket?list-type=2&prefix=data.zarr%2F&delimiter=%2F&encoding-type=url"
	if u := l.Next(); u != want1 {
		t.Fatalf("first page %q, want %q", u, want1)
	}
	if err := l.Add([]byte(page1)); err != nil {
		t.Fatal(err)
	}
	want2 := want1 + "&continuation-token=1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2Fwm36Hy4vbOwM%3D"
	if u := l.Next(); u != want2 {
		t.Fatalf("second page %q, want %q", u, want2)
	}
	// (page 2 is not URL-encoded: a server that ignores encoding-type)
	if err := l.Add([]byte(page2)); err != nil {
		t.Fatal(err)
	}
	if u := l.Next(); u != "" {
		t.Fatalf("after the last page: %q", u)
	}
	got := strings.Join(l.Names(), "|")
	if want := "a b/|x&y|zarr.json|ü+/"; got != want {
		t.Errorf("names %q, want %q", got, want)
	}
	// virtual-hosted: the bucket's root
	if u := NewListing("https://bucket.s3.amazonaws.com/", "", "x").Next(); u != "https://bucket.s3.amazonaws.com/?list-type=2&prefix=&delimiter=%2F&encoding-type=url" {
		t.Errorf("virtual-hosted listing URL %q", u)
	}
}

func TestListingIgnoredDelimiter(t *testing.T) {
	l := NewListing("https://b.s3.amazonaws.com/", "p/", "x")
	doc := `<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>p/a/zarr.json</Key></Contents><Contents><Key>p/a/c/0/0</Key></Contents><Contents><Key>p/zarr.json</Key></Contents></ListBucketResult>`
	if err := l.Add([]byte(doc)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(l.Names(), "|"); got != "a/|zarr.json" {
		t.Errorf("names %q", got)
	}
}

func TestListingBadInput(t *testing.T) {
	tok := func(t string) string {
		return `<ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>p/k` + t + `</Key></Contents><NextContinuationToken>` + t + `</NextContinuationToken></ListBucketResult>`
	}
	for _, c := range []struct {
		name  string
		pages []string
		want  string
	}{
		{"truncated document", []string{page1[:len(page1)/2]}, "truncated"},
		{"truncated in a tag", []string{`<ListBucketResult><IsTruncated>false</IsTruncated><Conte`}, "truncated"},
		{"not XML", []string{`{"keys": []}`}, "malformed"},
		{"empty", []string{``}, "no root element"},
		{"mismatched tags", []string{`<ListBucketResult><Contents><Key>p/a</Contents></Key></ListBucketResult>`}, "does not close"},
		{"another document", []string{`<ListAllMyBucketsResult><Buckets/></ListAllMyBucketsResult>`}, "not a ListBucketResult"},
		{"an error document", []string{`<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`}, "AccessDenied"},
		{"bad IsTruncated", []string{`<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>`}, "IsTruncated"},
		{"truncated without token", []string{`<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>`}, "without a NextContinuationToken"},
		{"token repeats", []string{tok("A"), tok("B"), tok("A")}, "came again"},
		{"same token", []string{tok("A"), tok("A")}, "came again"},
		{"key outside the prefix", []string{`<ListBucketResult><Contents><Key>q/a</Key></Contents></ListBucketResult>`}, "not under the prefix"},
		{"bad escape", []string{`<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>p/%zz</Key></Contents></ListBucketResult>`}, "not URL-encoded"},
		{"doctype", []string{`<!DOCTYPE x [<!ENTITY a "aaaa">]><ListBucketResult/>`}, "document type"},
		{"unknown entity", []string{`<ListBucketResult><Contents><Key>p/&a;</Key></Contents></ListBucketResult>`}, "unknown entity"},
		{"deep", []string{strings.Repeat("<a>", 100) + strings.Repeat("</a>", 100)}, "deeper"},
	} {
		l := NewListing("https://b.s3.amazonaws.com/", "p/", "s3://b/p/")
		var err error
		for _, p := range c.pages {
			if err = l.Add([]byte(p)); err != nil {
				break
			}
		}
		e, ok := err.(*errs.Error)
		if !ok || e.Code != errs.Store || e.Where != "s3://b/p/" || !strings.Contains(e.Error(), c.want) {
			t.Errorf("%s: %v, want a STORE error naming s3://b/p/ and saying %q", c.name, err, c.want)
			continue
		}
		if l.Next() != "" {
			t.Errorf("%s: the listing goes on after the error", c.name)
		}
	}
}

func TestParseError(t *testing.T) {
	e, ok := ParseError([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>RequestTimeTooSkewed</Code><Message>The difference between the request time and the current time is too large.</Message><RequestTime>20260102T030405Z</RequestTime><ServerTime>2026-01-02T04:04:05Z</ServerTime><MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds><RequestId>4442587FB7D0A2F9</RequestId></Error>`))
	if !ok || e.Code != "RequestTimeTooSkewed" || e.ServerTime != "2026-01-02T04:04:05Z" {
		t.Errorf("%+v %v", e, ok)
	}
	for _, bad := range []string{"", "Forbidden", "<html><body>403</body></html>", "<Error><Code>X</Code>", "<Error><Message>no code</Message></Error>"} {
		if e, ok := ParseError([]byte(bad)); ok {
			t.Errorf("ParseError(%q) = %+v", bad, e)
		}
	}
}

func TestFailure(t *testing.T) {
	doc := func(code, extra string) []byte {
		return []byte("<Error><Code>" + code + "</Code><Message>m</Message>" + extra + "</Error>")
	}
	for _, c := range []struct {
		status int
		header string
		body   []byte
		code   errs.Code
		says   string
	}{
		{403, "", doc("AccessDenied", ""), errs.AccessDenied, "not readable"},
		{403, "", doc("SignatureDoesNotMatch", ""), errs.AccessDenied, "secret access key"},
		{403, "", doc("InvalidAccessKeyId", ""), errs.AccessDenied, "access key id"},
		{400, "", doc("ExpiredToken", ""), errs.AccessDenied, "expired"},
		{403, "", doc("RequestTimeTooSkewed", "<RequestTime>A</RequestTime><ServerTime>B</ServerTime>"), errs.Store, "clock differs"},
		{301, "eu-west-1", doc("PermanentRedirect", "<Endpoint>b.s3.eu-west-1.amazonaws.com</Endpoint>"), errs.Store, `region "eu-west-1"`},
		{301, "", doc("PermanentRedirect", "<Endpoint>b.s3.eu-west-1.amazonaws.com</Endpoint>"), errs.Store, "addressed at b.s3.eu-west-1"},
		{400, "", doc("AuthorizationHeaderMalformed", "<Region>us-west-2</Region>"), errs.Store, `region "us-west-2"`},
		{404, "", doc("NoSuchBucket", ""), errs.NotFound, "no such bucket"},
		{403, "", []byte("<html>Forbidden</html>"), errs.AccessDenied, "access denied"},
		{301, "ap-south-1", nil, errs.Store, `region "ap-south-1"`},
		{400, "", doc("InvalidArgument", ""), errs.Store, "InvalidArgument"},
	} {
		e := Failure("GET https://b.s3.amazonaws.com/k", "k", "b", "k", c.status, c.header, c.body)
		if e.Code != c.code || e.Where != "k" || !strings.Contains(e.Msg, c.says) || !strings.Contains(e.Msg, `bucket "b", key "k"`) {
			t.Errorf("%d %s: %v (code %s)", c.status, c.body, e, e.Code)
		}
	}
}

func TestMissing(t *testing.T) {
	for _, c := range []struct {
		status  int
		code    string
		missing []int
		want    bool
		message string
	}{
		{404, "", DefaultMissing, true, ""},
		{404, "NoSuchKey", DefaultMissing, true, ""},
		{404, "NoSuchBucket", DefaultMissing, false, ""},
		{410, "", DefaultMissing, true, ""},
		{403, "", DefaultMissing, true, ""},
		{403, "AccessDenied", DefaultMissing, true, ""},
		{403, "SignatureDoesNotMatch", DefaultMissing, false, ""},
		{403, "RequestTimeTooSkewed", DefaultMissing, false, ""},
		{403, "AccessDenied", []int{404}, false, ""},
		{500, "", DefaultMissing, false, ""},
		{403, "AccessDenied", DefaultMissing, false, "Request has expired"},
	} {
		if got := Missing(c.status, ErrorBody{Code: c.code, Message: c.message}, c.missing); got != c.want {
			t.Errorf("Missing(%d, %q, %v) = %v", c.status, c.code, c.missing, got)
		}
	}
}

// The parsers never panic and end every listing with names or an error.
func FuzzListing(f *testing.F) {
	for _, s := range []string{page1, page2, `<Error><Code>AccessDenied</Code></Error>`, `<a><![CDATA[x]]></a>`, `<ListBucketResult><Contents><Key>p/&#x41;&#65;</Key></Contents></ListBucketResult>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		l := NewListing("https://b.s3.amazonaws.com/", "p/", "x")
		for i := 0; i < 3 && l.Next() != ""; i++ {
			if err := l.Add(doc); err != nil {
				break
			}
		}
		l.Names()
		ParseError(doc)
	})
}
