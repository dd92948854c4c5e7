package meta

import (
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The v3 chunk-key encodings: the core "default" and "v2", and the
// extension registry's "fanout", "prefix", "suffix" and "template"
// (proposed in its pull requests 31, 47, 28 and 69).

// KeyEncoding turns chunk indices into store keys.
type KeyEncoding struct {
	Prefix string // "c" for the v3 default encoding, "" for v2
	Sep    string // "." or "/"

	// fanout is max_children (a power of 10) for "fanout", 0 otherwise.
	fanout int
	// before and after surround base's key ("prefix", "suffix").
	before, after string
	base          *KeyEncoding
	// template is a "template" encoding's parts, resolved for the array's
	// dimensions.
	template []templatePart
	rest     string // the separator of a template's {*}
}

// templatePart is literal text, or one coordinate (dim >= 0) or the rest
// of them (dim -1) left-padded with zeros to width digits.
type templatePart struct {
	text  string
	dim   int
	width int
	value bool
}

// KeyEncodingNames are the chunk-key encodings this engine knows.
var KeyEncodingNames = []string{"default", "v2", "fanout", "prefix", "suffix", "template"}

// Key returns the chunk key (relative to the array's prefix).
func (k KeyEncoding) Key(idx []int) string {
	switch {
	case k.base != nil:
		return k.before + k.base.Key(idx) + k.after
	case k.fanout > 0:
		return k.fanoutKey(idx)
	case k.template != nil:
		return k.templateKey(idx)
	}
	if len(idx) == 0 {
		if k.Prefix != "" {
			return k.Prefix
		}
		return "0"
	}
	var b strings.Builder
	b.WriteString(k.Prefix)
	for i, n := range idx {
		if i > 0 || k.Prefix != "" {
			b.WriteString(k.Sep)
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// fanoutKey splits each coordinate into nodes of at most fanout entries:
// the count of further nodes, then the decimal digits in groups, the first
// left-padded with zeros (1234 with 1000: "1/001/234").
func (k KeyEncoding) fanoutKey(idx []int) string {
	width := len(strconv.Itoa(k.fanout - 1))
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

func (k KeyEncoding) templateKey(idx []int) string {
	used := make([]bool, len(idx))
	for _, p := range k.template {
		if p.value && p.dim >= 0 {
			used[p.dim] = true
		}
	}
	var b strings.Builder
	for _, p := range k.template {
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

// keyConfig is every member the encodings' configurations have.
type keyConfig struct {
	Separator   *string          `json:"separator"`
	MaxChildren *float64         `json:"max_children"`
	Prefix      *string          `json:"prefix"`
	Suffix      *string          `json:"suffix"`
	Base        jsonx.RawMessage `json:"base_encoding"`
	Template    *string          `json:"template"`
}

func (c *keyConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("separator", &c.Separator), jsonx.F("max_children", &c.MaxChildren),
		jsonx.F("prefix", &c.Prefix), jsonx.F("suffix", &c.Suffix), jsonx.F("base_encoding", &c.Base),
		jsonx.F("template", &c.Template)}
}

// keyMembers are the configuration members each encoding takes.
var keyMembers = map[string][]string{
	"default":  {"separator"},
	"v2":       {"separator"},
	"fanout":   {"max_children"},
	"prefix":   {"prefix", "base_encoding"},
	"suffix":   {"suffix", "base_encoding"},
	"template": {"template", "separator"},
}

// ParseKeyEncoding reads a v3 "chunk_key_encoding" (a name or {"name",
// "configuration"}) for an array of ndim dimensions; where names it in
// errors.
func ParseKeyEncoding(where string, raw jsonx.RawMessage, ndim int) (KeyEncoding, error) {
	ext, err := parseExtension(raw)
	if err != nil {
		return KeyEncoding{}, errs.New(errs.InvalidMetadata, where, "%v", err)
	}
	members, ok := keyMembers[ext.Name]
	if !ok {
		return KeyEncoding{}, errs.New(errs.Unsupported, where, "chunk key encoding %q is not supported", ext.Name).
			WithSuggestion(ext.Name, KeyEncodingNames)
	}
	var c keyConfig
	if len(ext.Configuration) > 0 && string(ext.Configuration) != "null" {
		var m map[string]jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(ext.Configuration, &m); err != nil {
			return KeyEncoding{}, errs.New(errs.InvalidMetadata, where+".configuration", "must be an object")
		}
		for k := range m {
			if !contains(members, k) {
				return KeyEncoding{}, errs.New(errs.InvalidMetadata, where+".configuration."+k,
					"unknown member of the %s encoding (it takes %s)", ext.Name, strings.Join(members, ", ")).WithSuggestion(k, members)
			}
		}
		if err := jsonx.UnmarshalStrict(ext.Configuration, &c); err != nil {
			return KeyEncoding{}, errs.New(errs.InvalidMetadata, where+".configuration", "bad configuration: %v", err)
		}
	}
	bad := func(member, format string, args ...any) error {
		return errs.New(errs.InvalidMetadata, where+".configuration."+member, format, args...)
	}
	switch ext.Name {
	case "default", "v2":
		k := KeyEncoding{Prefix: "c", Sep: "/"}
		if ext.Name == "v2" {
			k = KeyEncoding{Sep: "."}
		}
		if c.Separator != nil {
			if *c.Separator != "." && *c.Separator != "/" {
				return KeyEncoding{}, bad("separator", "must be \".\" or \"/\", got %q", *c.Separator)
			}
			k.Sep = *c.Separator
		}
		return k, nil
	case "fanout":
		n := 1000
		if c.MaxChildren != nil {
			if *c.MaxChildren != float64(int(*c.MaxChildren)) || *c.MaxChildren > 1e15 {
				return KeyEncoding{}, bad("max_children", "must be an integer, got %v", *c.MaxChildren)
			}
			n = int(*c.MaxChildren)
		}
		if n < 100 {
			return KeyEncoding{}, bad("max_children", "is %d, at least 100", n)
		}
		p := 1
		for p <= n/10 {
			p *= 10
		}
		return KeyEncoding{fanout: p}, nil // a power of 10 at most n
	case "prefix", "suffix":
		text, member := c.Prefix, "prefix"
		if ext.Name == "suffix" {
			text, member = c.Suffix, "suffix"
		}
		if text == nil || *text == "" {
			return KeyEncoding{}, bad(member, "is required and must not be empty")
		}
		if err := checkKeyText(*text); err != nil {
			return KeyEncoding{}, bad(member, "%q %v", *text, err)
		}
		if ext.Name == "prefix" && strings.HasPrefix(*text, "/") {
			return KeyEncoding{}, bad(member, "%q must not begin with /", *text)
		}
		if c.Base == nil {
			return KeyEncoding{}, bad("base_encoding", "is required")
		}
		base, err := ParseKeyEncoding(where+".configuration.base_encoding", c.Base, ndim)
		if err != nil {
			return KeyEncoding{}, err
		}
		k := KeyEncoding{base: &base}
		if ext.Name == "prefix" {
			k.before = *text
		} else {
			k.after = *text
		}
		return k, nil
	}
	if c.Template == nil {
		return KeyEncoding{}, bad("template", "is required")
	}
	return parseTemplate(bad, *c.Template, c.Separator, ndim)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
	k := KeyEncoding{template: parts}
	if sep != nil {
		k.rest = *sep
	}
	return k, nil
}
