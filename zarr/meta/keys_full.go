//go:build !zarrcore

package meta

import (
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The registry's chunk-key encodings beyond default and v2 (see keys.go).

// parseExtKeyEncoding reads the configuration of "fanout", "prefix",
// "suffix" or "template".
func parseExtKeyEncoding(where, name string, c keyConfig, ndim int) (KeyEncoding, error) {
	bad := func(member, format string, args ...any) error {
		return errs.New(errs.InvalidMetadata, where+".configuration."+member, format, args...)
	}
	switch name {
	case "fanout":
		n := 1000
		if c.MaxChildren != nil {
			var f float64
			if jsonx.UnmarshalStrict(c.MaxChildren, &f) != nil || f != float64(int(f)) || f > 1e15 {
				return KeyEncoding{}, bad("max_children", "must be an integer, got %s", string(c.MaxChildren))
			}
			n = int(f)
		}
		if n < 100 {
			return KeyEncoding{}, bad("max_children", "is %d, at least 100", n)
		}
		p := 1
		for p <= n/10 {
			p *= 10
		}
		return KeyEncoding{ext: fanout(p)}, nil // a power of 10 at most n
	case "prefix", "suffix":
		text, member := c.Prefix, "prefix"
		if name == "suffix" {
			text, member = c.Suffix, "suffix"
		}
		if text == nil || *text == "" {
			return KeyEncoding{}, bad(member, "is required and must not be empty")
		}
		if err := checkKeyText(*text); err != nil {
			return KeyEncoding{}, bad(member, "%q %v", *text, err)
		}
		if name == "prefix" && strings.HasPrefix(*text, "/") {
			return KeyEncoding{}, bad(member, "%q must not begin with /", *text)
		}
		if c.Base == nil {
			return KeyEncoding{}, bad("base_encoding", "is required")
		}
		base, err := ParseKeyEncoding(where+".configuration.base_encoding", c.Base, ndim)
		if err != nil {
			return KeyEncoding{}, err
		}
		w := wrapped{base: base}
		if name == "prefix" {
			w.before = *text
		} else {
			w.after = *text
		}
		return KeyEncoding{ext: w}, nil
	}
	if c.Template == nil {
		return KeyEncoding{}, bad("template", "is required")
	}
	return parseTemplate(bad, *c.Template, c.Separator, ndim)
}

// fanout is max_children (a power of 10).
type fanout int

// wrapped surrounds base's key ("prefix", "suffix").
type wrapped struct {
	before, after string
	base          KeyEncoding
}

func (w wrapped) key(idx []int) string { return w.before + w.base.Key(idx) + w.after }

// template is a "template" encoding's parts, resolved for the array's
// dimensions, and the separator of its {*}.
type template struct {
	parts []templatePart
	rest  string
}

// templatePart is literal text, or one coordinate (dim >= 0) or the rest
// of them (dim -1) left-padded with zeros to width digits.
type templatePart struct {
	text  string
	dim   int
	width int
	value bool
}

// fanoutKey splits each coordinate into nodes of at most fanout entries:
// the count of further nodes, then the decimal digits in groups, the first
// left-padded with zeros (1234 with 1000: "1/001/234").
func (f fanout) key(idx []int) string {
	width := len(strconv.Itoa(int(f) - 1))
	var b strings.Builder
	b.WriteString("c")
	for _, n := range idx {
		digits := strconv.Itoa(n)
		groups := (len(digits) + width - 1) / width
		digits = strings.Repeat("0", groups*width-len(digits)) + digits
		b.WriteString("/")
		b.WriteString(strconv.Itoa(groups - 1))
		for g := 0; g < groups; g++ {
			b.WriteString("/")
			b.WriteString(digits[g*width : (g+1)*width])
		}
	}
	return b.String()
}

func (k template) key(idx []int) string {
	used := make([]bool, len(idx))
	for _, p := range k.parts {
		if p.value && p.dim >= 0 {
			used[p.dim] = true
		}
	}
	var b strings.Builder
	for _, p := range k.parts {
		switch {
		case !p.value:
			b.WriteString(p.text)
		case p.dim >= 0:
			b.WriteString(padded(idx[p.dim], p.width))
		default:
			first := true
			for d, n := range idx {
				if used[d] {
					continue
				}
				if !first {
					b.WriteString(k.rest)
				}
				first = false
				b.WriteString(padded(n, p.width))
			}
		}
	}
	return b.String()
}

func padded(n, width int) string {
	s := strconv.Itoa(n)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// checkKeyText applies the rules for text a key encoding adds to keys.
func checkKeyText(s string) error {
	for _, bad := range []string{"..", "\\", "\x00", "//", "zarr.json"} {
		if strings.Contains(s, bad) {
			return fmtx.Errorf("must not contain %q", bad)
		}
	}
	return nil
}

// parseTemplate reads a template: text with {i}, {-i} and {*} terms, each
// optionally ":0width".
func parseTemplate(bad func(string, string, ...any) error, s string, sep *string, ndim int) (KeyEncoding, error) {
	var parts []templatePart
	var text strings.Builder
	values, star := 0, false
	used := make([]bool, ndim)
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			if s[i] == '}' {
				return KeyEncoding{}, bad("template", "%q has a } without its {", s)
			}
			text.WriteByte(s[i])
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return KeyEncoding{}, bad("template", "%q has a { without its }", s)
		}
		term := s[i+1 : i+end]
		i += end
		if text.Len() > 0 {
			parts = append(parts, templatePart{text: text.String()})
			text.Reset()
		}
		p := templatePart{value: true}
		index, format, hasFormat := strings.Cut(term, ":")
		if hasFormat {
			w, err := strconv.Atoi(strings.TrimPrefix(format, "0"))
			if !strings.HasPrefix(format, "0") || err != nil || w < 1 || strings.HasPrefix(format, "0-") {
				return KeyEncoding{}, bad("template", "{%s}: the width is :0 then digits, like {0:04}", term)
			}
			p.width = w
		}
		if index == "*" {
			if star {
				return KeyEncoding{}, bad("template", "%q has {*} more than once", s)
			}
			star, p.dim = true, -1
		} else {
			n, err := strconv.Atoi(index)
			if err != nil || strings.HasPrefix(index, "+") {
				return KeyEncoding{}, bad("template", "{%s}: a term is a dimension index (0, 1, -1, ...) or *", term)
			}
			if n < 0 {
				n += ndim
			}
			if n < 0 || n >= ndim {
				return KeyEncoding{}, bad("template", "{%s} names no dimension of a %d-dimensional array", term, ndim)
			}
			if used[n] {
				return KeyEncoding{}, bad("template", "{%s} names dimension %d a second time", term, n)
			}
			used[n], p.dim = true, n
			values++
		}
		parts = append(parts, p)
	}
	if text.Len() > 0 {
		parts = append(parts, templatePart{text: text.String()})
	}
	for _, p := range parts {
		if err := checkKeyText(p.text); err != nil {
			return KeyEncoding{}, bad("template", "%q %v", s, err)
		}
	}
	if strings.HasPrefix(s, "/") {
		return KeyEncoding{}, bad("template", "%q must not begin with /", s)
	}
	switch {
	case values == 0 && !star:
		return KeyEncoding{}, bad("template", "%q has no {} term", s)
	case star && sep == nil:
		return KeyEncoding{}, bad("separator", "is required with {*}")
	case star && values >= ndim:
		return KeyEncoding{}, bad("template", "%q leaves no dimension of a %d-dimensional array for {*}", s, ndim)
	case !star && values != ndim:
		return KeyEncoding{}, bad("template", "%q names %d dimensions of a %d-dimensional array", s, values, ndim)
	}
	k := template{parts: parts}
	if sep != nil {
		k.rest = *sep
	}
	return KeyEncoding{ext: k}, nil
}
