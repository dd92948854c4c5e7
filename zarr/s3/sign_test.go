package s3

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The AWS SigV4 test suite (testdata/aws4_testsuite, from botocore): every
// case's Authorization header and canonical request must come out as AWS
// wrote them. The suite signs as AWS's services other than S3 do
// (Generic: the path normalised, no X-Amz-Content-Sha256).
func TestAWSTestSuite(t *testing.T) {
	var dirs []string
	filepath.WalkDir("testdata/aws4_testsuite", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".req") {
			dirs = append(dirs, p)
		}
		return nil
	})
	if len(dirs) < 30 {
		t.Fatalf("only %d cases in testdata/aws4_testsuite", len(dirs))
	}
	creds := Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}
	signer := Signer{Region: "us-east-1", Service: "service", Generic: true}
	for _, reqPath := range dirs {
		base := strings.TrimSuffix(reqPath, ".req")
		name := filepath.Base(base)
		t.Run(name, func(t *testing.T) {
			raw := readFile(t, reqPath)
			wantAuthz := readFile(t, base+".authz")
			wantCreq := readFile(t, base+".creq")
			method, target, headers, body := parseReq(t, raw)
			var host, date string
			var rest []Header
			c := creds
			for _, h := range headers {
				switch strings.ToLower(h.Name) {
				case "host":
					host = h.Value
				case "x-amz-date":
					date = h.Value
				case "x-amz-security-token":
					if name == "post-sts-header-after" {
						continue // added after signing: not in the signature
					}
					c.SessionToken = h.Value
				default:
					rest = append(rest, h)
				}
			}
			// (get-vanilla-with-session-token has the token only in its
			// canonical request)
			for _, l := range strings.Split(wantCreq, "\n") {
				if tok, ok := strings.CutPrefix(l, "x-amz-security-token:"); ok && c.SessionToken == "" {
					c.SessionToken = tok
				}
			}
			now, err := time.Parse(amzDateFormat, date)
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Method: method, URL: "https://" + host + target, Header: rest, PayloadHash: PayloadHash([]byte(body))}
			out, err := signer.Sign(req, c, now)
			if err != nil {
				t.Fatal(err)
			}
			creq, _ := signer.canonicalRequest(req, out[:len(out)-1], now)
			if creq != wantCreq {
				t.Errorf("canonical request:\n%s\nwant:\n%s", creq, wantCreq)
			}
			if got := headerValue(out, "Authorization"); got != wantAuthz {
				t.Errorf("Authorization:\n%s\nwant:\n%s", got, wantAuthz)
			}
		})
	}
}

// AWS's worked examples of S3 signatures (Amazon S3 API Reference,
// "Examples: Signature Calculations in AWS Signature Version 4" and
// "Authenticating Requests: Using Query Parameters"): S3 signs the path
// as it is and sends X-Amz-Content-Sha256.
func TestS3Examples(t *testing.T) {
	c := Credentials{AccessKeyID: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	now := time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
	s := Signer{Region: "us-east-1"}
	for _, ex := range []struct {
		name   string
		req    Request
		signed string
		sig    string
	}{
		{"GET Object", Request{Method: "GET", URL: "https://examplebucket.s3.amazonaws.com/test.txt", Header: []Header{{"Range", "bytes=0-9"}}},
			"host;range;x-amz-content-sha256;x-amz-date", "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"},
		{"PUT Object", Request{Method: "PUT", URL: "https://examplebucket.s3.amazonaws.com/test$file.text",
			Header:      []Header{{"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
			PayloadHash: PayloadHash([]byte("Welcome to Amazon S3."))},
			"date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class", "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"},
		{"GET Bucket Lifecycle", Request{Method: "GET", URL: "https://examplebucket.s3.amazonaws.com/?lifecycle"},
			"host;x-amz-content-sha256;x-amz-date", "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"},
		{"GET Bucket (List Objects)", Request{Method: "GET", URL: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J"},
			"host;x-amz-content-sha256;x-amz-date", "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"},
	} {
		out, err := s.Sign(ex.req, c, now)
		if err != nil {
			t.Fatal(err)
		}
		want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=" + ex.signed + ", Signature=" + ex.sig
		if got := headerValue(out, "Authorization"); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", ex.name, got, want)
		}
	}
	u, err := s.Presign(Request{Method: "GET", URL: "https://examplebucket.s3.amazonaws.com/test.txt"}, c, now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	const want = "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
	if u != want {
		t.Errorf("presigned:\n%s\nwant\n%s", u, want)
	}
	if !Presigned(u) || Presigned("https://examplebucket.s3.amazonaws.com/test.txt?versionId=3") {
		t.Error("Presigned does not tell a presigned URL")
	}
}

func TestSignRefuses(t *testing.T) {
	s := Signer{}
	now := time.Now()
	good := Credentials{AccessKeyID: "a", SecretAccessKey: "b"}
	for _, c := range []struct {
		url string
		c   Credentials
	}{
		{"ftp://h/x", good},
		{"https:///x", good},
		{"https://user@h/x", good},
		{"https://h/x", Credentials{AccessKeyID: "a"}},
	} {
		if _, err := s.Sign(Request{Method: "GET", URL: c.url}, c.c, now); err == nil {
			t.Errorf("Sign(%q, %+v): no error", c.url, c.c)
		}
	}
	if _, err := s.Presign(Request{Method: "GET", URL: "https://h/x"}, good, now, 8*24*time.Hour); err == nil {
		t.Error("Presign for 8 days: no error")
	}
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parseReq reads a suite's .req: the request line, headers (a line that
// starts with white space continues the previous one), a blank line, the
// body.
func parseReq(t *testing.T, raw string) (method, target string, headers []Header, body string) {
	head, body, _ := strings.Cut(raw, "\n\n")
	lines := strings.Split(strings.TrimRight(head, "\n"), "\n")
	first := lines[0]
	method, rest, _ := strings.Cut(first, " ")
	target, ok := strings.CutSuffix(rest, " HTTP/1.1")
	if !ok {
		t.Fatalf("request line %q", first)
	}
	for _, l := range lines[1:] {
		if l != "" && (l[0] == ' ' || l[0] == '\t') && len(headers) > 0 {
			headers[len(headers)-1].Value += " " + strings.TrimSpace(l)
			continue
		}
		n, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("header line %q", l)
		}
		headers = append(headers, Header{n, v})
	}
	return method, target, headers, body
}

func headerValue(hs []Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}
