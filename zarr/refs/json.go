package refs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

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

// parseJSON reads a version 0 or 1 reference set.
func parseJSON(data []byte, opt *Options) (map[string]*ref, error) {
	top, err := jsonx.Object(data)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, "", err, "reference set is not a JSON object")
	}
	ver, hasVersion := top["version"]
	if !hasVersion {
		// version 0: every member is a reference
		out := make(map[string]*ref, len(top))
		for k, v := range top {
			out[k] = parseRef(k, v, nil)
		}
		return out, nil
	}
	var n json.Number
	if err := json.Unmarshal(ver, &n); err != nil || n.String() != "1" {
		if f, err := strconv.ParseFloat(strings.TrimSpace(string(ver)), 64); err != nil || f != 1 {
			return nil, errs.New(errs.Unsupported, "version", "unknown reference spec version %s (only 0 and 1 exist)", ver)
		}
	}
	// templates
	templates := map[string]string{}
	if raw, ok := top["templates"]; ok && !isNull(raw) {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
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
		refs, err := jsonx.Object(raw)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, "refs", err, "refs must be an object")
		}
		rendered := map[string]string{} // url templates are few and shared
		for k, v := range refs {
			r := parseRef(k, v, nil)
			if (r.kind == kWhole || r.kind == kRange) && !r.noURL && hasTemplate(r.url) {
				u, ok := rendered[r.url]
				if !ok {
					var err error
					u, err = renderString(r.url, e)
					if err != nil {
						r = &ref{kind: kBad, err: templateErr(k, "url", r.url, err)}
						out[k] = r
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

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

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

// parseRef interprets one reference value. Problems become a kBad ref, so
// one bad key does not make the whole set unreadable.
func parseRef(key string, raw json.RawMessage, _ *env) *ref {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return &ref{kind: kBad, err: errs.New(errs.InvalidMetadata, key, "empty reference")}
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return &ref{kind: kBad, err: errs.Wrap(errs.InvalidMetadata, key, err, "bad string reference")}
		}
		return inlineString(key, s)
	case '{':
		// a JSON object is the JSON text of the value (fsspec 2024.6+)
		return &ref{kind: kInline, data: []byte(raw)}
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return &ref{kind: kBad, err: errs.Wrap(errs.InvalidMetadata, key, err, "bad list reference")}
		}
		if len(parts) != 1 && len(parts) != 3 {
			return &ref{kind: kBad, err: errs.New(errs.InvalidMetadata, key, "a list reference has 1 or 3 items ([url] or [url, offset, length]), not %d", len(parts))}
		}
		r := &ref{kind: kWhole}
		if isNull(parts[0]) {
			r.noURL = true
		} else if err := json.Unmarshal(parts[0], &r.url); err != nil {
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
		return r
	}
	return &ref{kind: kBad, err: errs.New(errs.InvalidMetadata, key, "a reference must be a string, an object or a list, not %s", shorten(raw))}
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
func jsonInt(raw json.RawMessage) (int64, error) {
	s := strings.TrimSpace(string(raw))
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%s is not an integer", s)
	}
	return int64(f), nil
}

// gen entries

type genEntry struct {
	Key        *string         `json:"key"`
	URL        *string         `json:"url"`
	Offset     json.RawMessage `json:"offset"`
	Length     json.RawMessage `json:"length"`
	Dimensions json.RawMessage `json:"dimensions"`
}

type dimension struct {
	name   string
	values []value
}

func expandGen(raw json.RawMessage, e *env, out map[string]*ref, maxKeys int) error {
	var gens []json.RawMessage
	if err := json.Unmarshal(raw, &gens); err != nil {
		return errs.Wrap(errs.InvalidMetadata, "gen", err, "gen must be a list")
	}
	total := 0
	for gi, g := range gens {
		where := fmt.Sprintf("gen[%d]", gi)
		var ge genEntry
		if err := json.Unmarshal(g, &ge); err != nil {
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
		compile := func(field string, raw json.RawMessage, s *string) (*template, error) {
			src := ""
			if s != nil {
				src = *s
			} else {
				// offset and length may be written as JSON numbers
				if err := json.Unmarshal(raw, &src); err != nil {
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
		return 0, fmt.Errorf("bad integer %q", s)
	}
	return strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
}

// parseDimensions reads the dimensions object in order (the product varies
// the last one fastest, so order matters and a Go map would lose it).
func parseDimensions(raw json.RawMessage, where string, maxKeys int) ([]dimension, error) {
	if raw == nil || isNull(raw) {
		return nil, errs.New(errs.InvalidMetadata, where, "a gen entry needs \"dimensions\"")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, errs.New(errs.InvalidMetadata, where, "dimensions must be an object")
	}
	var dims []dimension
	seen := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, where, err, "bad dimensions")
		}
		name := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, where, err, "bad dimensions")
		}
		vals, err := dimValues(v, maxKeys)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, where+".dimensions."+name, err, "bad dimension")
		}
		if i, ok := seen[name]; ok { // Python's dict keeps the first position, the last value
			dims[i].values = vals
			continue
		}
		seen[name] = len(dims)
		dims = append(dims, dimension{name: name, values: vals})
	}
	return dims, nil
}

func dimValues(raw json.RawMessage, maxKeys int) ([]value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		if len(items) > maxKeys {
			return nil, fmt.Errorf("more than %d values", maxKeys)
		}
		out := make([]value, len(items))
		for i, it := range items {
			var s string
			if err := json.Unmarshal(it, &s); err == nil {
				out[i] = strValue(s)
				continue
			}
			n, err := jsonInt(it)
			if err != nil {
				return nil, fmt.Errorf("values must be integers or strings, not %s", shorten(it))
			}
			out[i] = intValue(n)
		}
		return out, nil
	}
	var r struct {
		Start, Stop, Step json.RawMessage
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("must be a list or {start, stop, step}")
	}
	if r.Stop == nil {
		return nil, fmt.Errorf("a range needs \"stop\"")
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
		return nil, fmt.Errorf("step must not be zero")
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
		return nil, fmt.Errorf("more than %d values", maxKeys)
	}
	out := make([]value, n)
	for i := range out {
		out[i] = intValue(start + int64(i)*step)
	}
	return out, nil
}
