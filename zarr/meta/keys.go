package meta

import (
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The v3 chunk-key encodings: the core "default" and "v2" here, and the
// extension registry's "fanout", "prefix", "suffix" and "template"
// (proposed in its pull requests 31, 47, 28 and 69) in keys_full.go: the
// core WebAssembly build leaves them to the full build.

// KeyEncoding turns chunk indices into store keys.
type KeyEncoding struct {
	Prefix string // "c" for the v3 default encoding, "" for v2
	Sep    string // "." or "/"

	// ext is one of the registry's other encodings, when set.
	ext keyEncoder
}

// keyEncoder is a chunk-key encoding other than default and v2.
type keyEncoder interface {
	key(idx []int) string
}

// KeyEncodingNames are the chunk-key encodings this engine knows.
var KeyEncodingNames = []string{"default", "v2", "fanout", "prefix", "suffix", "template"}

// Key returns the chunk key (relative to the array's prefix).
func (k KeyEncoding) Key(idx []int) string {
	if k.ext != nil {
		return k.ext.key(idx)
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

// keyConfig is every member the encodings' configurations have.
type keyConfig struct {
	Separator   *string          `json:"separator"`
	MaxChildren jsonx.RawMessage `json:"max_children"`
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
	if ext.Name != "default" && ext.Name != "v2" {
		return parseExtKeyEncoding(where, ext.Name, c, ndim)
	}
	k := KeyEncoding{Prefix: "c", Sep: "/"}
	if ext.Name == "v2" {
		k = KeyEncoding{Sep: "."}
	}
	if c.Separator != nil {
		if *c.Separator != "." && *c.Separator != "/" {
			return KeyEncoding{}, errs.New(errs.InvalidMetadata, where+".configuration.separator", "must be \".\" or \"/\", got %q", *c.Separator)
		}
		k.Sep = *c.Separator
	}
	return k, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
