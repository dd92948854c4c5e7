package urlx

import (
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Pipeline is a URL pipeline (github.com/jbms/url-pipeline, the successor
// of ZEP 8): sub-URLs joined by "|", the first a location (an http(s) or
// object-store URL, or a local path), the others adapters reading what is
// before them:
//
//	https://host/data.zip|zip:path/in/zip|zarr3:group/array
//
// "zip:P" opens the ZIP file addressed so far, P being a path inside it (a
// further ZIP file when "|zip:" follows); "zarr3:P", "zarr2:P" and
// "zarr:P" (either format) end the pipeline with the node's path P inside
// the hierarchy.
type Pipeline struct {
	// Root is the first sub-URL.
	Root string
	// Zips are the paths of the "zip:" adapters in order (percent-decoded,
	// without a leading or trailing "/"): each but the last names the next
	// ZIP file inside the previous one; the last is a directory inside its
	// ZIP file where the hierarchy is.
	Zips []string
	// Format is 2 or 3 for "zarr2:" and "zarr3:", 0 for "zarr:" or none.
	Format int
	// Path is the node's path inside the hierarchy (percent-decoded,
	// without a leading or trailing "/").
	Path string
}

// pipelineSchemes are the adapter schemes this engine reads; otherSchemes
// are some it knows of and does not read.
var (
	pipelineSchemes = []string{"zarr3", "zarr2", "zarr", "zip"} // (near-name ties go to the first)
	otherSchemes    = []string{"ocdbt", "icechunk", "n5", "precomputed", "neuroglancer-precomputed", "kerchunk", "gzip", "zstd"}
)

// IsPipeline reports whether s is a URL pipeline (it has a "|").
func IsPipeline(s string) bool { return strings.Contains(s, "|") }

// ParsePipeline parses a URL pipeline. Errors are *errs.Error: STORE for
// malformed text, UNSUPPORTED (with the near name) for an adapter scheme
// this engine does not read, each naming the sub-URL.
func ParsePipeline(s string) (Pipeline, error) {
	parts := strings.Split(s, "|")
	var p Pipeline
	p.Root = parts[0]
	if strings.TrimSpace(p.Root) == "" {
		return Pipeline{}, errs.New(errs.Store, s, "a URL pipeline starts with a location (an http(s) URL, s3://, gs:// or a path)")
	}
	formatSeen := false
	for i, sub := range parts[1:] {
		scheme, rest, ok := strings.Cut(sub, ":")
		if !ok || scheme == "" {
			return Pipeline{}, errs.New(errs.Store, sub, "sub-URL %d of the pipeline is not scheme:path", i+2)
		}
		scheme = strings.ToLower(scheme)
		if !contains(pipelineSchemes, scheme) {
			if contains(otherSchemes, scheme) {
				return Pipeline{}, errs.New(errs.Unsupported, sub, "the %q adapter is not supported (this engine reads zip:, zarr:, zarr2: and zarr3:)", scheme)
			}
			return Pipeline{}, errs.New(errs.Unsupported, sub, "unknown URL pipeline scheme %q", scheme).WithSuggestion(scheme, pipelineSchemes)
		}
		if formatSeen {
			return Pipeline{}, errs.New(errs.Store, sub, "nothing may follow the format (zarr2:, zarr3:, zarr:) in a URL pipeline")
		}
		path, err := pipelinePath(sub, rest)
		if err != nil {
			return Pipeline{}, err
		}
		switch scheme {
		case "zip":
			p.Zips = append(p.Zips, path)
		default:
			formatSeen = true
			p.Path = path
			p.Format = map[string]int{"zarr": 0, "zarr2": 2, "zarr3": 3}[scheme]
		}
	}
	for i, z := range p.Zips[:max(len(p.Zips)-1, 0)] {
		if z == "" {
			return Pipeline{}, errs.New(errs.Store, s, "zip adapter %d names no file for the next zip: adapter", i+1)
		}
	}
	return p, nil
}

// pipelinePath is an adapter's path: percent-decoded, a relative path
// without "." or ".." segments, slashes trimmed.
func pipelinePath(sub, rest string) (string, error) {
	if strings.Contains(rest, "?") || strings.Contains(rest, "#") {
		return "", errs.New(errs.Store, sub, "an adapter's path has no query or fragment (percent-encode ? and # as %%3F and %%23)")
	}
	path, ok := percentDecode(rest)
	if !ok {
		return "", errs.New(errs.Store, sub, "bad percent-encoding in %q", rest)
	}
	path = strings.Trim(path, "/")
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return "", errs.New(errs.Store, sub, "the path %q has a %q segment", path, seg)
		}
	}
	return path, nil
}

// percentDecode decodes %XX escapes (net/url's would add it to the
// WebAssembly module for this alone).
func percentDecode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	hex := func(c byte) (byte, bool) {
		switch {
		case c >= '0' && c <= '9':
			return c - '0', true
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, true
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, ok1 := hex(s[i+1])
		lo, ok2 := hex(s[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b), true
}

// NodePath is the node's path inside the innermost store: the last ZIP
// adapter's directory joined with Path.
func (p Pipeline) NodePath() string {
	if len(p.Zips) == 0 {
		return p.Path
	}
	dir := p.Zips[len(p.Zips)-1]
	switch {
	case dir == "":
		return p.Path
	case p.Path == "":
		return dir
	}
	return dir + "/" + p.Path
}

// ZipFiles are the ZIP files to open in turn: the root, then the entries
// the adapters before the last name.
func (p Pipeline) ZipFiles() []string {
	if len(p.Zips) == 0 {
		return nil
	}
	return p.Zips[:len(p.Zips)-1]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
