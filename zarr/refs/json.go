package refs

import (
	"bytes"
	"encoding/base64"
	"math"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// DefaultMaxGenKeys bounds how many keys the "gen" entries of one
// reference set may expand to (Options.MaxGenKeys changes it).
const DefaultMaxGenKeys = 1 << 24

type kind uint8

const (
	kInline kind = iota
	kWhole       // [url]
	kRange       // [url, offset, length]
	kBad         // a value that cannot be used; err says why
)

// ref is one key's reference.
type ref struct {
	kind  kind
	noURL bool   // a null url: Options.Target
	url   string // as written (templates rendered), not yet resolved
	off   int64
	n     int64
	data  []byte
	err   error
}

// member is one member of a JSON object, as written.
type member struct {
	key string
	raw []byte
}

// parser turns reference values into refs: allocated in blocks (a set may
// hold millions) with each target url stored once.
type parser struct {
	block []ref
	urls  map[string]string
}

func newParser() *parser { return &parser{urls: map[string]string{}} }

func (p *parser) alloc(r ref) *ref {
	if len(p.block) == cap(p.block) {
		p.block = make([]ref, 0, 4096)
	}
	p.block = append(p.block, r)
	return &p.block[len(p.block)-1]
}

// url returns the url in a string literal, one string per distinct url.
func (p *parser) url(raw []byte) (string, error) {
	if u, ok := p.urls[string(raw)]; ok {
		return u, nil
	}
	u, err := jsonx.Unquote(raw)
	if err != nil {
		return "", err
	}
	if len(p.urls) < 1<<20 {
		p.urls[string(raw)] = u
	}
	return u, nil
}

// parseJSON reads a version 0 or 1 reference set.
func parseJSON(data []byte, opt *Options) (map[string]*ref, error) {
	var top []member
	var ver []byte
	err := jsonx.EachMember(data, func(k string, v []byte) error {
		if k == "version" {
			ver = v
		}
		top = append(top, member{k, v})
		return nil
	})
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, "", err, "reference set is not a JSON object")
	}
	p := newParser()
	if ver == nil {
		// version 0: every member is a reference
		out := make(map[string]*ref, len(top))
		for _, m := range top {
			out[m.key] = p.parseRef(m.key, m.raw)
		}
		return out, nil
	}
	objects := map[string]jsonx.RawMessage{}
	for _, m := range top {
		objects[m.key] = m.raw
	}
	top = nil
	if err := checkVersion(ver); err != nil {
		return nil, err
	}
	return parseV1(objects, opt, p)
}

func checkVersion(ver []byte) error {
	if f, err := strconv.ParseFloat(string(ver), 64); err != nil || f != 1 {
		return errs.New(errs.Unsupported, "version", "unknown reference spec version %s (only 0 and 1 exist)", ver)
	}
	return nil
}

// parseV1 reads the members of a version 1 set: templates, refs, gen.
func parseV1(top map[string]jsonx.RawMessage, opt *Options, p *parser) (map[string]*ref, error) {
	// templates
	templates := map[string]string{}
	if raw, ok := top["templates"]; ok && !isNull(raw) {
		var m map[string]any
		if err := jsonx.UnmarshalStrict(raw, &m); err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, "templates", err, "templates must be an object")
		}
		for k, v := range m {
			switch x := v.(type) {
			case string:
				templates[k] = x
			case float64:
				// Python would render a number through str(); integers
				// are common enough (a port, a year) to keep
				if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
					return nil, errs.New(errs.Unsupported, "templates."+k, "template value %v is not a string", x)
				}
				templates[k] = strconv.FormatInt(int64(x), 10)
			default:
				return nil, errs.New(errs.InvalidMetadata, "templates."+k, "template value must be a string")
			}
		}
	}
	for k, v := range opt.Templates {
		templates[k] = v
	}
	e := &env{templates: templates}
	out := map[string]*ref{}
	if raw, ok := top["refs"]; ok && !isNull(raw) {
		rendered := map[string]string{} // url templates are few and shared
		// the members first, so the map is made at its size (a set may
		// hold millions of references; growing the map would rehash them)
		var members []member
		err := jsonx.EachMember(raw, func(k string, v []byte) error {
			members = append(members, member{k, v})
			return nil
		})
		if err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, "refs", err, "refs must be an object")
		}
		out = make(map[string]*ref, len(members))
		for _, m := range members {
			k, v := m.key, m.raw
			r := p.parseRef(k, v)
			if (r.kind == kWhole || r.kind == kRange) && !r.noURL && hasTemplate(r.url) {
				u, ok := rendered[r.url]
				if !ok {
					var err error
					u, err = renderString(r.url, e)
					if err != nil {
						out[k] = &ref{kind: kBad, err: templateErr(k, "url", r.url, err)}
						continue
					}
					rendered[r.url] = u
				}
				r.url = u
			}
			out[k] = r
		}
	}
	if raw, ok := top["gen"]; ok && !isNull(raw) {
		limit := opt.MaxGenKeys
		if limit <= 0 {
			limit = DefaultMaxGenKeys
		}
		if err := expandGen(raw, e, out, limit); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func isNull(raw jsonx.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func renderString(s string, e *env) (string, error) {
	t, err := parseTemplate(s)
	if err != nil {
		return "", err
	}
	return t.render(e)
}

func templateErr(where, field, src string, err error) error {
	code := errs.InvalidMetadata
	if te, ok := err.(*tmplError); ok && te.unsupported {
		code = errs.Unsupported
	}
	return errs.New(code, where, "cannot render the %s template %q: %v", field, src, err)
}

// parseRef interprets one reference value (raw text the scanner checked).
// Problems become a kBad ref, so one bad key does not make the whole set
// unreadable.
func (p *parser) parseRef(key string, raw []byte) *ref {
	if len(raw) == 0 {
		return &ref{kind: kBad, err: errs.New(errs.InvalidMetadata, key, "empty reference")}
	}
	switch raw[0] {
	case '"':
		s, err := jsonx.Unquote(raw)
		if err != nil {
			return &ref{kind: kBad, err: errs.Wrap(errs.InvalidMetadata, key, err, "bad string reference")}
		}
		return inlineString(key, s)
	case '{':
		// a JSON object is the JSON text of the value (fsspec 2024.6+)
		return p.alloc(ref{kind: kInline, data: raw})
	case '[':
		if r, ok := p.fastList(raw); ok {
			return p.alloc(r)
		}
		parts, err := jsonx.Elements(raw)
		if err != nil {
			return &ref{kind: kBad, err: errs.Wrap(errs.InvalidMetadata, key, err, "bad list reference")}
		}
		if len(parts) != 1 && len(parts) != 3 {
			return &ref{kind: kBad, err: errs.New(errs.InvalidMetadata, key, "a list reference has 1 or 3 items ([url] or [url, offset, length]), not %d", len(parts))}
		}
		r := ref{kind: kWhole}
		switch {
		case isNull(parts[0]):
			r.noURL = true
		case parts[0][0] == '"':
			if r.url, err = p.url(parts[0]); err != nil {
				return &ref{kind: kBad, err: errs.Wrap(errs.InvalidMetadata, key, err, "bad url")}
			}
		default:
			return &ref{kind: kBad, err: errs.New(errs.InvalidMetadata, key, "the url of a reference must be a string or null, not %s", parts[0])}
		}
		if len(parts) == 3 {
			off, err1 := jsonInt(parts[1])
			n, err2 := jsonInt(parts[2])
			if err1 != nil || err2 != nil || off < 0 || n < 0 || off > math.MaxInt64-n {
				return &ref{kind: kBad, err: errs.New(errs.InvalidMetadata, key, "offset and length must be non-negative integers, not %s and %s", parts[1], parts[2])}
			}
			r.kind, r.off, r.n = kRange, off, n
		}
		return p.alloc(r)
	}
	return &ref{kind: kBad, err: errs.New(errs.InvalidMetadata, key, "a reference must be a string, an object or a list, not %s", shorten(raw))}
}

// fastList reads the common forms ["url", offset, length] and ["url"]
// (a url without escapes, plain non-negative integers) without the general
// scanner: a set of millions of references is mostly these. ok is false for
// anything else, which parseRef then reads the general way.
func (p *parser) fastList(raw []byte) (r ref, ok bool) {
	i := skipSpace(raw, 1)
	if i >= len(raw) || raw[i] != '"' {
		return r, false
	}
	j := i + 1
	for j < len(raw) && raw[j] != '"' {
		if raw[j] == '\\' || raw[j] < 0x20 {
			return r, false
		}
		j++
	}
	if j >= len(raw) {
		return r, false
	}
	u, err := p.url(raw[i : j+1])
	if err != nil {
		return r, false
	}
	r.url = u
	i = skipSpace(raw, j+1)
	if i < len(raw) && raw[i] == ']' {
		r.kind = kWhole
		return r, skipSpace(raw, i+1) == len(raw)
	}
	var off, n int64
	if i, ok = nextUint(raw, i, &off); !ok {
		return r, false
	}
	if i, ok = nextUint(raw, i, &n); !ok || i >= len(raw) || raw[i] != ']' || skipSpace(raw, i+1) != len(raw) {
		return r, false
	}
	if off > math.MaxInt64-n {
		return r, false
	}
	r.kind, r.off, r.n = kRange, off, n
	return r, true
}

// nextUint reads ", digits" at i (spaces allowed) into v, returning the
// position after it.
func nextUint(raw []byte, i int, v *int64) (int, bool) {
	if i >= len(raw) || raw[i] != ',' {
		return i, false
	}
	i = skipSpace(raw, i+1)
	start := i
	var x int64
	for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
		if x > (math.MaxInt64-9)/10 {
			return i, false
		}
		x = x*10 + int64(raw[i]-'0')
		i++
	}
	if i == start || (raw[start] == '0' && i-start > 1) {
		return i, false
	}
	*v = x
	return skipSpace(raw, i), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func shorten(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// inlineString is inline data: "base64:..." decoded, any other string its
// UTF-8 bytes (what fsspec's str.encode() gives).
func inlineString(key, s string) *ref {
	if !strings.HasPrefix(s, "base64:") {
		return &ref{kind: kInline, data: []byte(s)}
	}
	b, err := decodeBase64(s[len("base64:"):])
	if err != nil {
		return &ref{kind: kBad, err: errs.Wrap(errs.InvalidMetadata, key, err, "bad base64 data")}
	}
	return &ref{kind: kInline, data: b}
}

// decodeBase64 accepts standard base64 with or without padding, ignoring
// whitespace (line-wrapped encoders).
func decodeBase64(s string) ([]byte, error) {
	if strings.ContainsAny(s, " \t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// jsonInt reads a JSON integer (1000 or 1000.0, as Python may write).
func jsonInt(raw jsonx.RawMessage) (int64, error) { return jsonx.Int(bytes.TrimSpace(raw)) }

// gen entries

type genEntry struct {
	Key        *string          `json:"key"`
	URL        *string          `json:"url"`
	Offset     jsonx.RawMessage `json:"offset"`
	Length     jsonx.RawMessage `json:"length"`
	Dimensions jsonx.RawMessage `json:"dimensions"`
}

type dimension struct {
	name   string
	values []value
}

func expandGen(raw jsonx.RawMessage, e *env, out map[string]*ref, maxKeys int) error {
	var gens []jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(raw, &gens); err != nil {
		return errs.Wrap(errs.InvalidMetadata, "gen", err, "gen must be a list")
	}
	total := 0
	for gi, g := range gens {
		where := fmtx.Sprintf("gen[%d]", gi)
		var ge genEntry
		if err := jsonx.UnmarshalStrict(g, &ge); err != nil {
			return errs.Wrap(errs.InvalidMetadata, where, err, "bad gen entry")
		}
		if ge.Key == nil || ge.URL == nil {
			return errs.New(errs.InvalidMetadata, where, "a gen entry needs \"key\" and \"url\"")
		}
		hasOff, hasLen := ge.Offset != nil && !isNull(ge.Offset), ge.Length != nil && !isNull(ge.Length)
		if hasOff != hasLen {
			return errs.New(errs.InvalidMetadata, where, "a gen entry needs both \"offset\" and \"length\", or neither")
		}
		dims, err := parseDimensions(ge.Dimensions, where, maxKeys)
		if err != nil {
			return err
		}
		count := 1
		for _, d := range dims {
			if len(d.values) == 0 {
				count = 0
				break
			}
			if count > maxKeys/len(d.values) {
				return errs.New(errs.Unsupported, where, "gen expands to more than %d keys", maxKeys)
			}
			count *= len(d.values)
		}
		if total += count; total > maxKeys {
			return errs.New(errs.Unsupported, where, "gen expands to more than %d keys", maxKeys)
		}
		if count == 0 {
			continue
		}
		compile := func(field string, raw jsonx.RawMessage, s *string) (*template, error) {
			src := ""
			if s != nil {
				src = *s
			} else {
				// offset and length may be written as JSON numbers
				if err := jsonx.UnmarshalStrict(raw, &src); err != nil {
					if _, err := jsonInt(raw); err != nil {
						return nil, errs.New(errs.InvalidMetadata, where+"."+field, "must be a string or an integer, not %s", shorten(raw))
					}
					src = strings.TrimSpace(string(raw))
				}
			}
			t, err := parseTemplate(src)
			if err != nil {
				return nil, templateErr(where, field, src, err)
			}
			return t, nil
		}
		kt, err := compile("key", nil, ge.Key)
		if err != nil {
			return err
		}
		ut, err := compile("url", nil, ge.URL)
		if err != nil {
			return err
		}
		var ot, lt *template
		if hasOff {
			if ot, err = compile("offset", ge.Offset, nil); err != nil {
				return err
			}
			if lt, err = compile("length", ge.Length, nil); err != nil {
				return err
			}
		}
		// the names a gen template sees: dimensions over templates
		ge2 := &env{vars: map[string]value{}, templates: e.templates, compiled: e.compiled}
		idx := make([]int, len(dims))
		for {
			for i, d := range dims {
				ge2.vars[d.name] = d.values[idx[i]]
			}
			r, err := genRef(ge2, kt, ut, ot, lt, where)
			if err != nil {
				return err
			}
			out[r.key] = r.ref
			// last dimension fastest (itertools.product)
			k := len(dims) - 1
			for ; k >= 0; k-- {
				idx[k]++
				if idx[k] < len(dims[k].values) {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
		e.compiled = ge2.compiled
	}
	return nil
}

type keyRef struct {
	key string
	ref *ref
}

func genRef(e *env, kt, ut, ot, lt *template, where string) (keyRef, error) {
	key, err := kt.render(e)
	if err != nil {
		return keyRef{}, templateErr(where, "key", kt.src, err)
	}
	u, err := ut.render(e)
	if err != nil {
		return keyRef{}, templateErr(where, "url", ut.src, err)
	}
	r := &ref{kind: kWhole, url: u}
	if ot != nil {
		os, err := ot.render(e)
		if err != nil {
			return keyRef{}, templateErr(where, "offset", ot.src, err)
		}
		ls, err := lt.render(e)
		if err != nil {
			return keyRef{}, templateErr(where, "length", lt.src, err)
		}
		// Python's int(): surrounding whitespace, a sign and underscores
		// between digits are allowed
		off, err1 := pyInt(os)
		n, err2 := pyInt(ls)
		if err1 != nil || err2 != nil {
			return keyRef{}, errs.New(errs.InvalidMetadata, where, "key %q: offset %q and length %q must render to integers", key, os, ls)
		}
		if off < 0 || n < 0 || off > math.MaxInt64-n {
			return keyRef{}, errs.New(errs.InvalidMetadata, where, "key %q: offset %d and length %d must not be negative", key, off, n)
		}
		r.kind, r.off, r.n = kRange, off, n
	}
	return keyRef{key: key, ref: r}, nil
}

func pyInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "__") || strings.HasPrefix(strings.TrimLeft(s, "+-"), "_") || strings.HasSuffix(s, "_") {
		return 0, fmtx.Errorf("bad integer %q", s)
	}
	return strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
}

// parseDimensions reads the dimensions object in order (the product varies
// the last one fastest, so order matters and a Go map would lose it).
func parseDimensions(raw jsonx.RawMessage, where string, maxKeys int) ([]dimension, error) {
	if raw == nil || isNull(raw) {
		return nil, errs.New(errs.InvalidMetadata, where, "a gen entry needs \"dimensions\"")
	}
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, errs.New(errs.InvalidMetadata, where, "dimensions must be an object")
	}
	var dims []dimension
	seen := map[string]int{}
	var dimErr error
	err := jsonx.EachMember(raw, func(name string, v []byte) error {
		vals, err := dimValues(v, maxKeys)
		if err != nil {
			dimErr = errs.Wrap(errs.InvalidMetadata, where+".dimensions."+name, err, "bad dimension")
			return dimErr
		}
		if i, ok := seen[name]; ok { // Python's dict keeps the first position, the last value
			dims[i].values = vals
			return nil
		}
		seen[name] = len(dims)
		dims = append(dims, dimension{name: name, values: vals})
		return nil
	})
	if dimErr != nil {
		return nil, dimErr
	}
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, where, err, "bad dimensions")
	}
	return dims, nil
}

func dimValues(raw jsonx.RawMessage, maxKeys int) ([]value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(raw, &items); err != nil {
			return nil, err
		}
		if len(items) > maxKeys {
			return nil, fmtx.Errorf("more than %d values", maxKeys)
		}
		out := make([]value, len(items))
		for i, it := range items {
			var s string
			if err := jsonx.UnmarshalStrict(it, &s); err == nil {
				out[i] = strValue(s)
				continue
			}
			n, err := jsonInt(it)
			if err != nil {
				return nil, fmtx.Errorf("values must be integers or strings, not %s", shorten(it))
			}
			out[i] = intValue(n)
		}
		return out, nil
	}
	var r struct {
		Start, Stop, Step jsonx.RawMessage
	}
	if err := jsonx.UnmarshalStrict(raw, &r); err != nil {
		return nil, fmtx.Errorf("must be a list or {start, stop, step}")
	}
	if r.Stop == nil {
		return nil, fmtx.Errorf("a range needs \"stop\"")
	}
	start, stop, step := int64(0), int64(0), int64(1)
	var err error
	if r.Start != nil {
		if start, err = jsonInt(r.Start); err != nil {
			return nil, err
		}
	}
	if stop, err = jsonInt(r.Stop); err != nil {
		return nil, err
	}
	if r.Step != nil {
		if step, err = jsonInt(r.Step); err != nil {
			return nil, err
		}
	}
	if step == 0 {
		return nil, fmtx.Errorf("step must not be zero")
	}
	var span, st uint64 // the distance to cover and the step, both positive
	if step > 0 && stop > start {
		span, st = uint64(stop)-uint64(start), uint64(step)
	} else if step < 0 && stop < start {
		span, st = uint64(start)-uint64(stop), -uint64(step)
	}
	var n uint64
	if span > 0 {
		n = span / st
		if span%st != 0 {
			n++
		}
	}
	if n > uint64(maxKeys) {
		return nil, fmtx.Errorf("more than %d values", maxKeys)
	}
	out := make([]value, n)
	for i := range out {
		out[i] = intValue(start + int64(i)*step)
	}
	return out, nil
}
