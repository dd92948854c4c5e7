package zarr

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Metadata keys of each format.
const (
	keyZarray    = ".zarray"
	keyZgroup    = ".zgroup"
	keyZattrs    = ".zattrs"
	keyZmetadata = ".zmetadata"
	keyV1Meta    = "meta"
	keyV1Attrs   = "attrs"
	keyZarrJSON  = "zarr.json"
)

// OpenOption configures how nodes are opened (and what the arrays below a
// group opened with it use).
type OpenOption func(*openConfig)

type openConfig struct {
	pool    *CachePool
	poolSet bool
	recheck Recheck
	format  int // WithZarrFormat's; 0: any
	// formatHint: the format other nodes of the store had (0: unknown)
	formatHint int
	// below: opened through a group, which already looked for
	// consolidated metadata: a v2 group below does not look for its own,
	// and a name not found is not looked up in the root's.
	below bool
	// parentFormat: opened by name through a group of this format (2 or
	// 3): the node is of its group's format, as zarr-python reads a
	// group's children, and only that format's documents are asked for.
	// (With below, what a probe for an optional child — an OME-Zarr
	// image's labels — costs is then what it costs zarrita.js.) A group's
	// listing, which knows something is there, opens either format.
	parentFormat int
}

// WithZarrFormat opens only a node of that format (2 also takes v1): one
// of another format is NOT_FOUND, saying what is there (a URL pipeline's
// "zarr2:" or "zarr3:").
func WithZarrFormat(format int) OpenOption {
	return func(c *openConfig) { c.format = format }
}

// WithFormatHint says which Zarr format (2 or 3) the store's other nodes
// had, as a store seldom mixes them: open then asks for that format's
// metadata first (zarr.json; or .zarray or .zgroup with .zattrs) and for
// the others only when it is absent. Fewer requests per node when many
// are opened (an OME-Zarr plate's wells); the npm package passes it for
// each store.
func WithFormatHint(format int) OpenOption {
	return func(c *openConfig) {
		if format == 2 || format == 3 {
			c.formatHint = format
		}
	}
}

// WithCache keeps the arrays' decoded chunks in pool (nil: no cache)
// instead of DefaultCachePool.
func WithCache(pool *CachePool) OpenOption {
	return func(c *openConfig) { c.pool, c.poolSet = pool, true }
}

// WithRecheck sets when cached chunks are confirmed with the store
// (default RecheckAlways).
func WithRecheck(r Recheck) OpenOption {
	return func(c *openConfig) { c.recheck = r }
}

func configure(opts []OpenOption) openConfig {
	var c openConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// Open opens the array or group at path, detecting the format.
func Open(ctx context.Context, s Store, path string, opts ...OpenOption) (Node, error) {
	return openAs(ctx, s, path, "", configure(opts))
}

// OpenArray opens the array at path.
func OpenArray(ctx context.Context, s Store, path string, opts ...OpenOption) (*Array, error) {
	n, err := openAs(ctx, s, path, "array", configure(opts))
	if err != nil {
		return nil, err
	}
	return n.(*Array), nil
}

// OpenGroup opens the group at path ("" is the root).
func OpenGroup(ctx context.Context, s Store, path string, opts ...OpenOption) (*Group, error) {
	n, err := openAs(ctx, s, path, "group", configure(opts))
	if err != nil {
		return nil, err
	}
	return n.(*Group), nil
}

// OpenKind opens the node at path of kind "" (either), "array" or
// "group": given a kind, only that kind's documents are asked for.
func OpenKind(ctx context.Context, s Store, path, kind string, opts ...OpenOption) (Node, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	return openAs(ctx, s, path, kind, configure(opts))
}

func checkKind(kind string) error {
	switch kind {
	case "", "array", "group":
		return nil
	}
	return errs.New(errs.InvalidArgument, kind, "kind must be \"array\" or \"group\"")
}

// openAs is open with WithZarrFormat's check.
func openAs(ctx context.Context, s Store, path, kind string, cfg openConfig) (Node, error) {
	n, err := open(ctx, s, path, kind, cfg)
	if err != nil || cfg.format == 0 {
		return n, err
	}
	if f := n.ZarrFormat(); f != cfg.format && !(cfg.format == 2 && f == 1) {
		what := "group"
		if _, ok := n.(*Array); ok {
			what = "array"
		}
		return nil, errs.New(errs.NotFound, "/"+path, "is a Zarr v%d %s, not v%d", f, what, cfg.format)
	}
	return n, nil
}

func get(ctx context.Context, s Store, key string) ([]byte, bool, error) {
	data, ok, _, err := getMeta(ctx, s, key)
	return data, ok, err
}

// getMeta is get that also tells whether the key is absent because the
// store was refused access to it (store.Versioned.Denied: an object
// store's HTTP 403).
func getMeta(ctx context.Context, s Store, key string) (data []byte, ok, denied bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, false, errs.Wrap(errs.Aborted, key, err, "aborted")
	}
	var v store.Versioned
	if store.Has(s, store.CanTellDenied) {
		v, err = store.Read(ctx, s, key, store.WholeValue(), store.Conditions{})
	} else {
		v.Data, v.Found, err = s.Get(ctx, key)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, false, errs.Wrap(errs.Aborted, key, err, "aborted")
		}
		return nil, false, false, errs.Wrap(errs.Store, key, err, "read failed")
	}
	if v.Found && htmlStandIn(key, v.Data) {
		return nil, false, false, nil
	}
	return v.Data, v.Found, v.Denied && !v.Found, nil
}

// htmlStandIn reports whether data, read for a metadata document, is an
// HTML page: dev servers with an SPA fallback (vite, vite preview) answer
// 200 with index.html for files they do not have, and a JSON document
// never starts with "<". Such a key counts as absent.
func htmlStandIn(key string, data []byte) bool {
	base := key[strings.LastIndexByte(key, '/')+1:]
	if !isMetadataKey(key) && base != keyZmetadata {
		return false
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '<'
}

// OpenFirstReads are the keys, under the node's path, that opening a node
// of kind ("" for either, "array", "group") asks the store for at once
// before anything else, in this order, when the store's format is not
// known: zarr.json and a v2 node's documents (its .zattrs with them), one
// round trip for either format. (Asking for the v2 documents first, as
// zarrita.js does, would save a v2 node one request and cost a v3 node a
// round trip; with both formats' metadata at one path, zarr.json wins, as
// in zarr-python.) The JS package asks for them while the engine starts
// (npm/lib/core.js's copy is generated from this list by
// internal/firstreads).
func OpenFirstReads(kind string) []string {
	return append([]string{keyZarrJSON}, v2Reads(kind)...)
}

// v2Reads are the documents of a v2 node of kind, with its attributes.
func v2Reads(kind string) []string {
	switch kind {
	case "array":
		return []string{keyZarray, keyZattrs}
	case "group":
		return []string{keyZgroup, keyZattrs}
	}
	return []string{keyZarray, keyZgroup, keyZattrs}
}

// firstReads are the keys open asks for first when the store's other
// nodes had format (WithFormatHint; 0: unknown): that format's only.
func firstReads(kind string, format int) []string {
	switch format {
	case 2:
		return v2Reads(kind)
	case 3:
		return []string{keyZarrJSON}
	}
	return OpenFirstReads(kind)
}

func open(ctx context.Context, s Store, path, kind string, cfg openConfig) (Node, error) {
	p, err := meta.NormalizePath(path)
	if err != nil {
		return nil, err
	}
	prefix := meta.Prefix(p)
	// Ask for every format's documents at once (a v2 node's .zattrs with
	// them), or with a format hint for that format's, and for the other's
	// only when that format has no node here. A v2 group's consolidated
	// metadata is looked for when it first reads below itself (newGroupV2).
	type result struct {
		data   []byte
		ok     bool
		denied bool // absent: the store was refused access (HTTP 403)
		err    error
	}
	const (
		iZarrJSON = iota
		iZarray
		iZgroup
		iZattrs
	)
	keys := []string{iZarrJSON: prefix + keyZarrJSON, iZarray: prefix + keyZarray, iZgroup: prefix + keyZgroup, iZattrs: prefix + keyZattrs}
	ask := make([]bool, len(keys))
	res := make([]result, len(keys))
	// read asks for the keys named in names (not asked yet) at once.
	read := func(names []string) error {
		var wg sync.WaitGroup
		for i, k := range keys {
			if ask[i] || !slices.Contains(names, k[len(prefix):]) {
				continue
			}
			ask[i] = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i].data, res[i].ok, res[i].denied, res[i].err = getMeta(ctx, s, k)
			}()
		}
		wg.Wait()
		// A failed read of .zattrs matters only for a v2 array (below).
		for i, r := range res {
			if r.err != nil && i != iZattrs {
				return r.err
			}
		}
		return nil
	}
	format := cfg.formatHint
	if cfg.parentFormat != 0 {
		format = cfg.parentFormat
	}
	if err := read(firstReads(kind, format)); err != nil {
		return nil, err
	}
	if !res[iZarrJSON].ok && !res[iZarray].ok && !res[iZgroup].ok && cfg.parentFormat == 0 {
		if err := read(append(OpenFirstReads(kind), keyZarrJSON)); err != nil {
			return nil, err
		}
	}
	// Nothing of the kind asked for: whether the other kind is here, for
	// the error's message only (below a group, only when the node's
	// attributes say something is there).
	if !res[iZarrJSON].ok && !res[iZarray].ok && !res[iZgroup].ok && kind != "" && (cfg.parentFormat == 0 || res[iZattrs].ok) {
		if err := read([]string{keyZarray, keyZgroup}); err != nil {
			return nil, err
		}
	}
	// v2Attrs: the .zattrs read with a v2 node's document.
	v2Attrs := func() (map[string]any, error) {
		a := res[iZattrs]
		if a.err != nil || !a.ok {
			return map[string]any{}, a.err
		}
		return meta.ParseAttrs(keys[iZattrs], a.data)
	}
	switch {
	case res[iZarrJSON].ok:
		n, err := meta.ParseV3(keys[iZarrJSON], res[iZarrJSON].data)
		if err != nil {
			return nil, err
		}
		if n.Array != nil {
			if kind == "group" {
				return nil, errs.New(errs.NotFound, p, "is an array, not a group")
			}
			return newArrayV3(s, p, n.Array, cfg), nil
		}
		if kind == "array" {
			return nil, errs.New(errs.NotFound, p, "is a group, not an array")
		}
		return newGroupV3(s, p, n, res[iZarrJSON].data, cfg)
	case res[iZarray].ok:
		if kind == "group" {
			return nil, errs.New(errs.NotFound, p, "is an array, not a group")
		}
		m, err := meta.ParseV2(keys[iZarray], res[iZarray].data)
		if err != nil {
			return nil, err
		}
		attrs, err := v2Attrs()
		if err != nil {
			return nil, err
		}
		return newArrayAttrs(s, p, m, attrs, keys[iZattrs], cfg), nil
	case res[iZgroup].ok:
		if kind == "array" {
			return nil, errs.New(errs.NotFound, p, "is a group, not an array")
		}
		if err := meta.ParseGroupV2(keys[iZgroup], res[iZgroup].data); err != nil {
			return nil, err
		}
		attrs, err := v2Attrs()
		if err != nil {
			return nil, err
		}
		return newGroupV2(s, p, attrs, keys[iZattrs], cfg), nil
	}
	// Every metadata key refused (HTTP 403): a private bucket, or nothing
	// here in a bucket that may not be listed. Say which it may be.
	denied, asked := true, []string{}
	for i, r := range res {
		if ask[i] {
			denied = denied && r.denied
			asked = append(asked, keys[i][len(prefix):])
		}
	}
	if kind != "group" && cfg.parentFormat == 0 {
		data, ok, metaDenied, err := getMeta(ctx, s, prefix+keyV1Meta)
		if err != nil {
			return nil, err
		} else if ok {
			m, err := meta.ParseV1(prefix+keyV1Meta, data)
			if err != nil {
				return nil, err
			}
			return newArray(ctx, s, p, m, prefix+keyV1Attrs, cfg)
		}
		denied = denied && metaDenied
	}
	if denied {
		return nil, errs.New(errs.AccessDenied, p, "access denied to every metadata document here (%s: HTTP 403): the bucket or path is private (give credentials) or holds no array or group (object stores answer 403 for missing keys to readers who may not list the bucket)", strings.Join(asked, ", "))
	}
	return nil, notFound(ctx, s, p, kind, cfg.below)
}

// notFound builds a NOT_FOUND error and suggests a sibling with a near
// name: from the store's listing, else (not below a group, which already
// knows whether there is consolidated metadata: a miss there costs no
// request) from the root's consolidated metadata, read now.
func notFound(ctx context.Context, s Store, p, kind string, below bool) error {
	what := "no array or group"
	if kind != "" {
		what = "no " + kind
	}
	e := errs.New(errs.NotFound, p, "%s at this path", what)
	if p == "" {
		return e
	}
	parent, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		parent, name = p[:i], p[i+1:]
	}
	var names []string
	if l, ok := store.AsLister(s); ok {
		entries, err := l.List(ctx, meta.Prefix(parent))
		if err != nil {
			return e
		}
		for _, en := range entries {
			if strings.HasSuffix(en, "/") {
				names = append(names, strings.TrimSuffix(en, "/"))
			}
		}
	} else if !below {
		names = consolidatedChildren(ctx, s, parent)
	}
	if near := errs.Nearest(name, names); near != "" {
		if parent != "" {
			near = parent + "/" + near
		}
		e.Suggest = near
	}
	return e
}

// consolidatedChildren names the nodes directly under parent that the
// root's consolidated metadata (v2 .zmetadata, v3 inline) lists, for
// suggestions where the store cannot list (HTTP); nil when there is none.
func consolidatedChildren(ctx context.Context, s Store, parent string) []string {
	var paths []string
	if data, ok, err := get(ctx, s, keyZmetadata); err == nil && ok {
		var doc consolidatedDoc
		if jsonx.Unmarshal(data, &doc) == nil {
			for k := range doc.Metadata {
				for _, suffix := range []string{"/" + keyZarray, "/" + keyZgroup} {
					if strings.HasSuffix(k, suffix) {
						paths = append(paths, strings.TrimSuffix(k, suffix))
					}
				}
			}
		}
	} else if data, ok, err := get(ctx, s, keyZarrJSON); err == nil && ok {
		var doc v3ConsolidatedDoc
		if jsonx.Unmarshal(data, &doc) == nil {
			for k := range doc.Consolidated.Metadata {
				paths = append(paths, k)
			}
		}
	}
	var names []string
	prefix := parent + "/"
	if parent == "" {
		prefix = ""
	}
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
			names = append(names, rest)
		}
	}
	return names
}

func readAttrs(ctx context.Context, s Store, key string) (map[string]any, error) {
	data, ok, err := get(ctx, s, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return map[string]any{}, nil
	}
	return meta.ParseAttrs(key, data)
}

// The consolidated metadata documents consolidatedChildren reads,
// described to jsonx (no reflect in the core build).

type consolidatedDoc struct {
	Metadata map[string]jsonx.RawMessage `json:"metadata"`
}

func (d *consolidatedDoc) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("metadata", &d.Metadata)}
}

type v3ConsolidatedDoc struct {
	Consolidated consolidatedDoc `json:"consolidated_metadata"`
}

func (d *v3ConsolidatedDoc) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("consolidated_metadata", &d.Consolidated)}
}
