package zarr

import (
	"context"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Group is an opened Zarr group.
type Group struct {
	store    Store
	path     string
	format   int
	attrs    map[string]any
	attrsKey string
	doc      []byte // v3: the group's zarr.json, rewritten by SetAttrs
	cfg      openConfig
	// v2: the consolidated metadata (.zmetadata) the group may have, read
	// when it first reads below itself (Open, Children, Consolidated)
	// rather than when it opens: opening a group then costs the requests
	// zarrita.js makes, and a walk that never reads below it none more.
	// Only the group opened from the store looks: the groups opened
	// through it read plainly, as in zarr-python, where consolidated
	// metadata is that of the node opened (a look at every level would
	// cost a walk one round trip per level).
	zmeta *lazyConsolidated
}

// lazyConsolidated is a v2 group's look for its .zmetadata: done once it
// was read (found or absent); a failed read is tried again.
type lazyConsolidated struct {
	mu   sync.Mutex
	done bool
}

func newGroupV3(s Store, path string, n *meta.V3Node, doc []byte, cfg openConfig) (*Group, error) {
	prefix := meta.Prefix(path)
	if _, already := s.(*consolidatedStore); !already && n.Consolidated != nil {
		s = &consolidatedStore{base: s, prefix: prefix, docs: v3Documents(prefix, doc, n)}
	}
	return &Group{store: s, path: path, format: 3, attrs: n.Attrs, attrsKey: prefix + keyZarrJSON, doc: doc, cfg: cfg}, nil
}

// v3Documents maps the store key of every node's zarr.json to its document:
// the group's own and those of its inline consolidated metadata.
func v3Documents(prefix string, doc []byte, n *meta.V3Node) map[string][]byte {
	docs := map[string][]byte{prefix + keyZarrJSON: doc}
	for k, v := range n.Consolidated {
		docs[prefix+k+"/"+keyZarrJSON] = v
	}
	return docs
}

// ConsolidatedDocuments splits a hierarchy's consolidated metadata into its
// documents by store key (relative to the hierarchy's root): data is a v2
// .zmetadata, or with v3 the root's zarr.json. A zarr.json without
// consolidated_metadata is NOT_FOUND. (zarr-wasm's withConsolidatedMetadata
// in JS serves metadata reads from them.)
func ConsolidatedDocuments(key string, data []byte, v3 bool) (map[string][]byte, error) {
	if !v3 {
		cs, err := newConsolidatedStore(nil, "", data)
		if err != nil {
			return nil, err
		}
		return cs.docs, nil
	}
	n, err := meta.ParseV3(key, data)
	if err != nil {
		return nil, err
	}
	if n.Array != nil || n.Consolidated == nil {
		return nil, errs.New(errs.NotFound, key, "no consolidated_metadata in this document")
	}
	return v3Documents("", data, n), nil
}

func newGroupV2(s Store, path string, attrs map[string]any, attrsKey string, cfg openConfig) *Group {
	g := &Group{store: s, path: path, format: 2, attrs: attrs, attrsKey: attrsKey, cfg: cfg}
	if _, already := s.(*consolidatedStore); !already && !cfg.below {
		g.zmeta = &lazyConsolidated{}
	}
	return g
}

// below is the store the group reads the nodes below it from: with
// consolidated metadata (a v2 group's .zmetadata, looked for the first
// time), the metadata documents come from that one document.
func (g *Group) below(ctx context.Context) (Store, error) {
	z := g.zmeta
	if z == nil {
		return g.store, nil
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.done {
		return g.store, nil
	}
	key := meta.Prefix(g.path) + keyZmetadata
	data, ok, err := get(ctx, g.store, key)
	if err != nil {
		return nil, err
	}
	if ok {
		cs, err := newConsolidatedStore(g.store, meta.Prefix(g.path), data)
		if err != nil {
			return nil, err
		}
		g.store = cs
	}
	z.done = true
	return g.store, nil
}

// current is the store as far as the group knows (no read): the
// consolidated one once found.
func (g *Group) current() Store {
	if z := g.zmeta; z != nil {
		z.mu.Lock()
		defer z.mu.Unlock()
	}
	return g.store
}

func (g *Group) Path() string          { return g.path }
func (g *Group) Attrs() map[string]any { return g.attrs }
func (g *Group) ZarrFormat() int       { return g.format }

// Store is the store the group reads below itself from: the one it was
// opened with, or a view of it answering metadata from the consolidated
// metadata once the group found it (see Consolidated).
func (g *Group) Store() Store { return g.current() }

// Consolidated reports whether the group reads its hierarchy from
// consolidated metadata (a v2 .zmetadata, a v3 zarr.json's inline
// consolidated_metadata). A v2 group looks for its .zmetadata here, or
// when it first opens or lists what is below it, not when it opens.
func (g *Group) Consolidated(ctx context.Context) (bool, error) {
	s, err := g.below(ctx)
	if err != nil {
		return false, err
	}
	_, ok := s.(*consolidatedStore)
	return ok, nil
}

// ConsolidatedSoFar is Consolidated without a read: false while a v2
// group has not yet looked for its .zmetadata.
func (g *Group) ConsolidatedSoFar() bool {
	_, ok := g.current().(*consolidatedStore)
	return ok
}

// SetAttrs replaces the group's attributes.
func (g *Group) SetAttrs(ctx context.Context, attrs map[string]any) error {
	if g.format == 3 {
		w, ok := store.AsWriter(g.current())
		if !ok {
			return errs.New(errs.ReadOnly, g.path, "the store cannot be written")
		}
		doc, err := meta.GroupDocWithAttrs(g.doc, attrs)
		if err != nil {
			return errs.Wrap(errs.InvalidMetadata, g.attrsKey, err, "attributes cannot be written as JSON")
		}
		if err := setKey(ctx, w, g.attrsKey, doc); err != nil {
			return err
		}
		g.doc, g.attrs = doc, attrs
		return nil
	}
	if err := writeAttrs(ctx, g.current(), g.attrsKey, attrs); err != nil {
		return err
	}
	g.attrs = attrs
	return nil
}

// UpdateAttrs merges attrs into the group's attributes.
func (g *Group) UpdateAttrs(ctx context.Context, attrs map[string]any) error {
	return g.SetAttrs(ctx, mergeAttrs(g.attrs, attrs))
}

// Open opens a node below the group by relative path, with the options
// the group was opened with; without a format hint (WithFormatHint), the
// group's format is the hint: a hierarchy seldom mixes formats, and each
// node below then costs one round trip.
func (g *Group) Open(ctx context.Context, rel string) (Node, error) {
	return g.OpenKind(ctx, rel, "")
}

// OpenArray opens the array at a path relative to the group.
func (g *Group) OpenArray(ctx context.Context, rel string) (*Array, error) {
	n, err := g.OpenKind(ctx, rel, "array")
	if err != nil {
		return nil, err
	}
	return n.(*Array), nil
}

// OpenGroup opens the group at a path relative to the group.
func (g *Group) OpenGroup(ctx context.Context, rel string) (*Group, error) {
	n, err := g.OpenKind(ctx, rel, "group")
	if err != nil {
		return nil, err
	}
	return n.(*Group), nil
}

// OpenKind opens a node below the group of kind "" (either), "array" or
// "group": given a kind, only that kind's documents are asked for.
func (g *Group) OpenKind(ctx context.Context, rel, kind string) (Node, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	s, err := g.below(ctx)
	if err != nil {
		return nil, err
	}
	return open(ctx, s, joinPath(g.path, rel), kind, g.childConfig())
}

// childConfig is the group's options for the nodes below it, with its
// format as the hint (a hierarchy seldom mixes formats).
func (g *Group) childConfig() openConfig {
	c := g.cfg
	c.below = true
	c.parentFormat = min(max(g.format, 2), 3)
	if c.formatHint == 0 {
		c.formatHint = c.parentFormat
	}
	return c
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "/" + b
}

// Children returns the arrays and groups directly inside the group, sorted
// by name. The store must be able to list, or the group must have
// consolidated metadata. A child that cannot be opened is listed with its
// error (Child.Err); a failure to list, or to read at all, is an error.
func (g *Group) Children(ctx context.Context) ([]Child, error) {
	s, err := g.below(ctx)
	if err != nil {
		return nil, err
	}
	l, ok := store.AsLister(s)
	if !ok {
		return nil, errs.New(errs.Unsupported, g.path, "the store cannot list keys and the group has no consolidated metadata")
	}
	entries, err := l.List(ctx, meta.Prefix(g.path))
	if err != nil {
		return nil, errs.Wrap(errs.Store, g.path, err, "list failed")
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e, "/") {
			names = append(names, strings.TrimSuffix(e, "/"))
		}
	}
	cfg := g.childConfig()
	cfg.parentFormat = 0 // (a listed name is something: whatever its format)
	children := make([]*Child, len(names))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, DefaultConcurrency)
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			n, err := open(ctx, s, joinPath(g.path, name), "", cfg)
			switch errs.CodeOf(err) {
			case "":
				if err == nil {
					children[i] = &Child{Name: name, Node: n}
					return
				}
			case errs.NotFound:
				return // a directory that is not a node
			case errs.InvalidMetadata, errs.Unsupported:
				children[i] = &Child{Name: name, Err: err}
				return
			}
			mu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	var out []Child
	for _, c := range children {
		if c != nil {
			out = append(out, *c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// consolidatedStore serves the metadata documents of a hierarchy from its
// consolidated ".zmetadata"; everything else goes to the underlying store.
type consolidatedStore struct {
	base   Store
	prefix string
	mu     sync.RWMutex
	docs   map[string][]byte // full store key -> document
}

func isMetadataKey(key string) bool {
	base := key[strings.LastIndexByte(key, '/')+1:]
	switch base {
	case keyZarray, keyZgroup, keyZattrs, keyZarrJSON:
		return true
	}
	return false
}

func newConsolidatedStore(base Store, prefix string, data []byte) (*consolidatedStore, error) {
	key := prefix + keyZmetadata
	// .zmetadata can be hundreds of MB: one pass of the scanner, each
	// document kept as a slice of it (jsonx.EachMemberNested).
	cs := &consolidatedStore{base: base, prefix: prefix, docs: map[string][]byte{}}
	var format []byte
	found := false
	err := jsonx.EachMemberNested(data, func(k string, v []byte) error {
		switch k {
		case "zarr_consolidated_format":
			format = v
		case "metadata":
			return errs.New(errs.InvalidMetadata, key+": metadata", "must be an object")
		}
		return nil
	}, func(k string) func(string, []byte) error {
		if k != "metadata" {
			return nil
		}
		found = true
		return func(k string, v []byte) error {
			cs.docs[prefix+k] = v
			return nil
		}
	})
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key, err, "not a JSON object")
	}
	if string(format) != "1" {
		return nil, errs.New(errs.InvalidMetadata, key+": zarr_consolidated_format", "must be 1")
	}
	if !found {
		return nil, errs.New(errs.InvalidMetadata, key+": metadata", "must be an object")
	}
	return cs, nil
}

func (c *consolidatedStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := c.ReadVersion(ctx, key, store.WholeValue(), store.Conditions{})
	return v.Data, v.Found, err
}

func (c *consolidatedStore) GetRange(ctx context.Context, key string, r store.ByteRange) ([]byte, bool, error) {
	v, err := c.ReadVersion(ctx, key, r, store.Conditions{})
	return v.Data, v.Found, err
}

// ReadVersion answers metadata documents from the consolidated ones
// (without a generation) and everything else from the base store.
func (c *consolidatedStore) ReadVersion(ctx context.Context, key string, r store.ByteRange, cond store.Conditions) (store.Versioned, error) {
	if strings.HasPrefix(key, c.prefix) && isMetadataKey(key) {
		c.mu.RLock()
		v, ok := c.docs[key]
		c.mu.RUnlock()
		if !ok {
			return store.Versioned{}, nil
		}
		sub, err := store.Slice(v, r)
		if err != nil {
			return store.Versioned{}, errs.Wrap(errs.Store, key, err, "bad range")
		}
		return store.Versioned{Data: sub, Found: true}, nil
	}
	return store.Read(ctx, c.base, key, r, cond)
}

// Can is the base store's, except that listing is always answered.
func (c *consolidatedStore) Can(cap store.Capability) bool {
	return cap == store.CanList || store.Has(c.base, cap)
}

// Identity is the base store's: caches and locks are shared with it.
func (c *consolidatedStore) Identity() any { return storeIdentity(c.base) }

func (c *consolidatedStore) Set(ctx context.Context, key string, value []byte) error {
	_, err := c.SetIf(ctx, key, value, "")
	return err
}

func (c *consolidatedStore) SetIf(ctx context.Context, key string, value []byte, ifMatch store.Generation) (store.Generation, error) {
	gen, err := store.SetIf(ctx, c.base, key, value, ifMatch)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(key, c.prefix) && isMetadataKey(key) {
		c.mu.Lock()
		c.docs[key] = append([]byte(nil), value...)
		c.mu.Unlock()
	}
	return gen, nil
}

func (c *consolidatedStore) Delete(ctx context.Context, key string) error {
	return c.DeleteIf(ctx, key, "")
}

func (c *consolidatedStore) DeleteIf(ctx context.Context, key string, ifMatch store.Generation) error {
	if err := store.DeleteIf(ctx, c.base, key, ifMatch); err != nil {
		return err
	}
	c.mu.Lock()
	delete(c.docs, key)
	c.mu.Unlock()
	return nil
}

// List answers from the consolidated documents: the sub-prefixes that hold
// a node, and the metadata keys themselves.
func (c *consolidatedStore) List(_ context.Context, prefix string) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return store.ListKeys(maps.Keys(c.docs), prefix), nil
}

// Consolidate gathers the metadata of the hierarchy below path into one
// document, as zarr-python's consolidate_metadata does: for v2 a
// ".zmetadata" with every ".zarray", ".zgroup" and ".zattrs"; for v3 an
// inline "consolidated_metadata" in the group's zarr.json. The store must be
// able to list.
func Consolidate(ctx context.Context, s Store, path string) error {
	p, err := meta.NormalizePath(path)
	if err != nil {
		return err
	}
	if cs, ok := s.(*consolidatedStore); ok {
		s = cs.base
	}
	l, ok := store.AsLister(s)
	if !ok {
		return errs.New(errs.Unsupported, p, "consolidating needs a store that can list keys")
	}
	w, ok := store.AsWriter(s)
	if !ok {
		return errs.New(errs.ReadOnly, p, "the store cannot be written")
	}
	prefix := meta.Prefix(p)
	rootDoc, isV3, err := get(ctx, s, prefix+keyZarrJSON)
	if err != nil {
		return err
	}
	entries := map[string]any{}
	var walk func(dir string) error
	walk = func(dir string) error {
		names, err := l.List(ctx, dir)
		if err != nil {
			return err
		}
		for _, n := range names {
			if strings.HasSuffix(n, "/") {
				if err := walk(dir + n); err != nil {
					return err
				}
				continue
			}
			key := dir + n
			if !isMetadataKey(key) || (isV3 != (n == keyZarrJSON)) || key == prefix+keyZarrJSON {
				continue
			}
			data, ok, err := get(ctx, s, key)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			var v any
			if err := jsonx.Unmarshal(data, &v); err != nil {
				return errs.Wrap(errs.InvalidMetadata, key, err, "not JSON")
			}
			rel := strings.TrimPrefix(key, prefix)
			if isV3 {
				rel = strings.TrimSuffix(strings.TrimSuffix(rel, keyZarrJSON), "/")
				if m, ok := v.(map[string]any); ok {
					delete(m, "consolidated_metadata")
				}
			}
			entries[rel] = v
		}
		return nil
	}
	if err := walk(prefix); err != nil {
		return err
	}
	if isV3 {
		var doc map[string]any
		if err := jsonx.Unmarshal(rootDoc, &doc); err != nil {
			return errs.Wrap(errs.InvalidMetadata, prefix+keyZarrJSON, err, "not JSON")
		}
		if doc["node_type"] != "group" {
			return errs.New(errs.InvalidMetadata, p, "only groups can be consolidated")
		}
		data, err := meta.GroupDocWithConsolidated(doc, entries)
		if err != nil {
			return errs.Wrap(errs.InvalidMetadata, prefix+keyZarrJSON, err, "cannot write")
		}
		return setKey(ctx, w, prefix+keyZarrJSON, data)
	}
	data, err := meta.ConsolidatedV2(entries)
	if err != nil {
		return errs.Wrap(errs.InvalidMetadata, prefix+keyZmetadata, err, "cannot write")
	}
	return setKey(ctx, w, prefix+keyZmetadata, data)
}
