// Package icechunk opens Icechunk repositories (earth-mover/icechunk, spec
// versions 1 and 2) as read-only Zarr stores: one snapshot of a repository,
// chosen by branch, tag or snapshot id, seen through the store contract of
// zarr/store, so arrays and groups open with the ordinary zarr.OpenArray
// and zarr.OpenGroup.
//
//	s, err := icechunk.Open(ctx, st, icechunk.Version{Branch: "main"}, icechunk.Options{})
//	arr, err := zarr.OpenArray(ctx, s, "group/array")
//
// st is the store the repository's files are in (a directory, HTTP, any
// store). What is read, in order: the repo info file `repo` (spec 2:
// branches, tags, every snapshot's parent and message) or, without one,
// `refs/branch.<name>/ref.json` and `refs/tag.<name>/ref.json` (spec 1,
// told apart by which exists); the snapshot file (every node's path and
// zarr.json, and which manifests hold each array's chunk references); a
// manifest when a chunk of its region is first read; the chunk itself.
// Transaction logs, the config and the ops log are not read.
//
// Design decisions:
//   - The formats are read by this package's own code: the 39-byte file
//     header (header.go), zstd bodies through the engine's zstd codec (in
//     WebAssembly the host's libzstd), and FlatBuffers through a small
//     bounded reader of the schemas' subset (fb.go) rather than
//     google/flatbuffers' Go runtime and generated code: every offset and
//     length is checked against the buffer, and nothing is allocated in
//     proportion to a count read from a file before the budget
//     (zarr/budget) allows it. The runtime costs less in the .wasm (a
//     program reading a snapshot's nodes through it: +7 KB raw, no
//     measurable brotli; through fb.go: +42 KB raw, +9 KB brotli, its
//     error messages included), but Go's runtime checks nothing and has no
//     verifier: a corrupt offset is an index-out-of-range panic.
//   - A manifest is kept as its decompressed FlatBuffers body and searched
//     in place (binary search over the references, which the spec keeps
//     sorted; checked once per array): opening a 10,000-reference manifest
//     costs its decompression, not 10,000 decoded structs. Manifests are
//     cached per store, up to Options.ManifestCacheBytes.
//   - A Store is one snapshot and never changes (snapshots are immutable):
//     its generation (store.VersionedReader) is the snapshot id for every
//     key, so the engine's chunk cache never needs to ask twice. Refresh
//     opens the branch's head again as a new Store; readers of the old one
//     keep their snapshot.
//   - Chunk keys are Icechunk's own: "<path>/c/<i>/<j>..." (the only form
//     Icechunk stores; "c" alone for a 0-dimensional root array). Zarr v2
//     keys are absent, as in Icechunk.
//   - Virtual chunks are fetched only from location prefixes the caller
//     allows (Options.VirtualChunks, mapping a prefix to itself or to
//     another: Icechunk's own authorisation of virtual chunk containers),
//     through Options.Fetcher. A reference's ETag or last-modified time is
//     checked against the answer's headers (not only sent as a condition:
//     servers that ignore If-Match would otherwise return other bytes): a
//     changed target is a CONFLICT error, never other bytes.
//   - Errors are *errs.Error naming the file or key: NOT_FOUND for an
//     unknown branch, tag or snapshot (with the near name), INVALID_METADATA
//     for corrupt files, CODEC for bodies that do not decompress,
//     UNSUPPORTED for unknown spec versions, STORE for a missing chunk
//     object or a virtual chunk outside the allowed prefixes, CONFLICT for
//     a changed virtual chunk target.
//   - Reading only. Writing would add a session that writes chunks, a
//     manifest and a snapshot, then moves the branch with a conditional
//     write of `repo` (spec 2) or the branch's ref.json (spec 1)
//     (store.ConditionalWriter); nothing here assumes it cannot happen.
package icechunk

import (
	"container/list"
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlfetch"
)

// Options configure a Store. The zero value reads inline and native chunks;
// virtual chunks need VirtualChunks and a Fetcher.
type Options struct {
	// VirtualChunks lists the location prefixes virtual chunks may be read
	// from, each mapped to the prefix to fetch instead ("" fetches the
	// location as it is): {"s3://bucket/data/": "https://mirror/data/"}.
	// The longest matching prefix applies; a prefix matches at a "/"
	// boundary. A virtual chunk outside every prefix is a STORE error.
	VirtualChunks map[string]string
	// Fetcher reads virtual chunks' targets (natively zarr/store/http's
	// Fetcher; in WebAssembly the bridge's fetch).
	Fetcher Fetcher
	// URLMap turns a location, after VirtualChunks, into the URL fetched
	// (nil: s3:// and gs:// locations become their HTTPS URLs,
	// urlx.ObjectURL; http(s) URLs stay).
	URLMap func(string) string
	// ManifestCacheBytes bounds the decompressed manifests kept (0:
	// DefaultManifestCacheBytes; the manifest being read is always kept).
	ManifestCacheBytes int64
	// Window is how long a virtual chunk's read waits for reads of other
	// chunks of its file, to be fetched with them in one request (0:
	// urlfetch.DefaultWindow, 2 ms; negative: no waiting).
	Window time.Duration
}

// DefaultManifestCacheBytes is the manifest cache's default size.
const DefaultManifestCacheBytes = 256 << 20

// Store is one snapshot of an Icechunk repository as a read-only Zarr
// store. It implements store.Store, store.RangeReader, store.Lister and
// store.VersionedReader. Safe for concurrent use.
type Store struct {
	st      store.Store
	repo    *repo
	version Version
	snap    *snapshot
	opt     Options
	cache   *manifestCache
	files   *urlfetch.Coalescer // virtual chunks' files, read through opt.Fetcher
}

// Open opens the snapshot v names in the repository whose files st holds.
func Open(ctx context.Context, st store.Store, v Version, opt Options) (*Store, error) {
	r, err := openRepo(ctx, st)
	if err != nil {
		return nil, err
	}
	return r.checkout(ctx, v, opt, nil)
}

// checkout opens version v; cache (nil: a new one) holds manifests, which
// never change, so a refreshed store shares its predecessor's.
func (r *repo) checkout(ctx context.Context, v Version, opt Options, cache *manifestCache) (*Store, error) {
	id, err := r.resolve(ctx, v)
	if err != nil {
		return nil, err
	}
	key := snapshotKey(id)
	data, ok, err := r.st.Get(ctx, key)
	if err != nil {
		return nil, errs.Wrap(errs.Store, key, err, "cannot read the snapshot of %s", v)
	}
	if !ok {
		if !r.hasMain(ctx) {
			return nil, notARepo()
		}
		return nil, errs.New(errs.NotFound, key, "the snapshot file of %s is missing", v)
	}
	_, b, err := body(key, data, fileSnapshot)
	if err != nil {
		return nil, err
	}
	snap, err := parseSnapshot(key, b)
	if err != nil {
		return nil, err
	}
	if snap.id != id {
		return nil, errs.New(errs.InvalidMetadata, key, "the file holds snapshot %s", snap.id)
	}
	if cache == nil {
		limit := opt.ManifestCacheBytes
		if limit <= 0 {
			limit = DefaultManifestCacheBytes
		}
		cache = newManifestCache(limit)
	}
	s := &Store{st: r.st, repo: r, version: v, snap: snap, opt: opt, cache: cache}
	if opt.Fetcher != nil {
		s.files = urlfetch.New(opt.Fetcher, urlfetch.Options{Window: opt.Window, What: "the virtual chunk's file"})
	}
	return s, nil
}

// SnapshotID is the id of the snapshot the store reads.
func (s *Store) SnapshotID() string { return s.snap.id.String() }

// SpecVersion is the repository's Icechunk spec version (1 or 2).
func (s *Store) SpecVersion() int { return s.repo.spec }

// Version is what the store was opened with.
func (s *Store) Version() Version { return s.version }

// Branches lists the repository's branches now (not as of the snapshot),
// sorted by name.
func (s *Store) Branches(ctx context.Context) ([]Ref, error) {
	r, err := openRepo(ctx, s.st)
	if err != nil {
		return nil, err
	}
	return r.listRefs(ctx, "branch")
}

// Tags lists the repository's tags now, sorted by name (deleted ones left
// out).
func (s *Store) Tags(ctx context.Context) ([]Ref, error) {
	r, err := openRepo(ctx, s.st)
	if err != nil {
		return nil, err
	}
	return r.listRefs(ctx, "tag")
}

// Ancestry lists the store's snapshot and its ancestors, newest first.
func (s *Store) Ancestry(ctx context.Context) ([]SnapshotInfo, error) {
	if s.repo.info != nil && s.repo.info.find(s.snap.id) < 0 {
		// a snapshot committed after the repo info was read
		r, err := openRepo(ctx, s.st)
		if err != nil {
			return nil, err
		}
		return r.ancestry(ctx, s.snap.id)
	}
	return s.repo.ancestry(ctx, s.snap.id)
}

// Refresh opens the store's version again: a branch's head as it is now (a
// tag or a snapshot id gives the same snapshot). s itself does not change.
func (s *Store) Refresh(ctx context.Context) (*Store, error) {
	r, err := openRepo(ctx, s.st)
	if err != nil {
		return nil, err
	}
	return r.checkout(ctx, s.version, s.opt, s.cache)
}

// Generation is the store's generation for every key it holds: the
// snapshot id.
func (s *Store) Generation() store.Generation { return store.Generation(s.SnapshotID()) }

// Get reads a key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	return s.read(ctx, key, store.WholeValue())
}

// GetRange reads part of a key.
func (s *Store) GetRange(ctx context.Context, key string, r store.ByteRange) ([]byte, bool, error) {
	return s.read(ctx, key, r)
}

// ReadVersion reads a key under conditions: every key's generation is the
// snapshot id (store.Absent for a key the snapshot does not have).
func (s *Store) ReadVersion(ctx context.Context, key string, r store.ByteRange, c store.Conditions) (store.Versioned, error) {
	loc, err := s.locate(ctx, key)
	if err != nil {
		return store.Versioned{}, err
	}
	gen := s.Generation()
	if !loc.found {
		gen = store.Absent
	}
	if pre, done, err := store.Precheck(key, gen, c); done {
		return pre, err
	}
	data, ok, err := s.fetch(ctx, key, loc, r)
	if err != nil {
		return store.Versioned{}, err
	}
	if !ok {
		return store.Versioned{Generation: store.Absent}, nil
	}
	return store.Versioned{Data: data, Found: true, Generation: gen}, nil
}

// Fetcher is what the store reads virtual chunks with (Options.Fetcher).
func (s *Store) Fetcher() Fetcher { return s.opt.Fetcher }

// Source is the store the repository's files are read from.
func (s *Store) Source() store.Store { return s.st }

// Locate says where a key's bytes are, reading no chunk (a manifest may
// be read): a node's zarr.json and inline chunks are their bytes, native
// chunks a range of an object under chunks/ of Source, virtual chunks a
// range of the URL their location maps to (checked against the allowed
// prefixes, as a read checks it), with the version recorded.
func (s *Store) Locate(ctx context.Context, key string) (store.Location, bool, error) {
	loc, err := s.locate(ctx, key)
	if err != nil || !loc.found {
		return store.Location{}, false, err
	}
	if loc.meta != nil {
		return store.Location{Inline: true, Data: loc.meta}, true, nil
	}
	ref := loc.ref
	if ref.kind == refKindInline {
		return store.Location{Inline: true, Data: ref.inline}, true, nil
	}
	if ref.length > 1<<62 || ref.offset > 1<<62 {
		return store.Location{}, false, errs.New(errs.InvalidMetadata, key, "%s gives the chunk %d bytes at offset %d", loc.man, ref.length, ref.offset)
	}
	out := store.Location{Offset: int64(ref.offset), Length: int64(ref.length)}
	switch ref.kind {
	case refKindNative:
		out.Key = chunkKey(ref.chunkID)
	case refKindVirtual:
		url, err := s.virtualURL(key, ref.location)
		if err != nil {
			return store.Location{}, false, err
		}
		out.URL, out.ETag, out.LastModified = url, ref.etag, int64(ref.lastModified)
	default:
		return store.Location{}, false, errs.New(errs.InvalidMetadata, key, "unknown chunk reference in %s", loc.man)
	}
	return out, true, nil
}

func (s *Store) read(ctx context.Context, key string, r store.ByteRange) ([]byte, bool, error) {
	loc, err := s.locate(ctx, key)
	if err != nil || !loc.found {
		return nil, false, err
	}
	return s.fetch(ctx, key, loc, r)
}

// location is where a key's bytes are: a node's zarr.json, or a chunk's
// reference.
type location struct {
	found bool
	meta  []byte
	ref   chunkRef
	man   string // the manifest holding ref
}

// locate finds a key without reading chunk bytes (a manifest may be read).
func (s *Store) locate(ctx context.Context, key string) (location, error) {
	if key == "zarr.json" || strings.HasSuffix(key, "/zarr.json") {
		if i, ok := s.snap.byPath["/"+strings.TrimSuffix(strings.TrimSuffix(key, "zarr.json"), "/")]; ok {
			return location{found: true, meta: s.snap.nodes[i].meta}, nil
		}
		return location{}, nil
	}
	path, coords, ok := parseChunkKey(key)
	if !ok {
		return location{}, nil
	}
	i, ok := s.snap.byPath[path]
	if !ok || !s.snap.nodes[i].array || len(coords) != s.snap.nodes[i].ndim {
		return location{}, nil
	}
	n := &s.snap.nodes[i]
	for j := range n.manifests {
		mr := &n.manifests[j]
		if !mr.covers(coords) {
			continue
		}
		m, err := s.manifest(ctx, mr.id)
		if err != nil {
			return location{}, err
		}
		ref, found, err := m.lookup(n.id, coords)
		if err != nil {
			return location{}, errs.Wrap(errs.InvalidMetadata, key, err, "cannot look the chunk up")
		}
		if found {
			return location{found: true, ref: ref, man: m.key}, nil
		}
		// (extents of one array do not overlap: no other manifest has it)
		return location{}, nil
	}
	return location{}, nil
}

// parseChunkKey splits "<path>/c/<i>/<j>" into the node path ("/<path>")
// and the chunk coordinates.
func parseChunkKey(key string) (string, []uint32, bool) {
	segs := strings.Split(key, "/")
	k := len(segs)
	for k > 0 && isIndex(segs[k-1]) {
		k--
	}
	if k == 0 || segs[k-1] != "c" {
		return "", nil, false
	}
	coords := make([]uint32, 0, len(segs)-k)
	for _, seg := range segs[k:] {
		v, err := strconv.ParseUint(seg, 10, 32)
		if err != nil {
			return "", nil, false
		}
		coords = append(coords, uint32(v))
	}
	return "/" + strings.Join(segs[:k-1], "/"), coords, true
}

func isIndex(s string) bool {
	if s == "" || len(s) > 10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// fetch reads r of a located key.
func (s *Store) fetch(ctx context.Context, key string, loc location, r store.ByteRange) ([]byte, bool, error) {
	if loc.meta != nil {
		data, err := store.Slice(loc.meta, r)
		if err != nil {
			return nil, false, errs.Wrap(errs.Store, key, err, "bad range")
		}
		return data, true, nil
	}
	ref := loc.ref
	switch ref.kind {
	case refKindInline:
		data, err := store.Slice(ref.inline, r)
		if err != nil {
			return nil, false, errs.Wrap(errs.Store, key, err, "bad range")
		}
		return data, true, nil
	case refKindNative:
		if ref.length > 1<<62 || ref.offset > 1<<62 {
			return nil, false, errs.New(errs.InvalidMetadata, key, "%s gives the chunk %d bytes at offset %d", loc.man, ref.length, ref.offset)
		}
		off, n, err := r.Resolve(int64(ref.length))
		if err != nil {
			return nil, false, errs.Wrap(errs.Store, key, err, "bad range")
		}
		obj := chunkKey(ref.chunkID)
		data, ok, err := store.GetRange(ctx, s.st, obj, store.Span(int64(ref.offset)+off, n))
		if err != nil {
			return nil, false, errs.Wrap(errs.Store, key, err, "cannot read %s", obj)
		}
		if !ok {
			return nil, false, errs.New(errs.Store, key, "%s names the chunk object %s, which the repository does not have", loc.man, obj)
		}
		if int64(len(data)) != n {
			return nil, false, errs.New(errs.Store, key, "%s is shorter than %s says (%d bytes at offset %d, read %d)", obj, loc.man, n, int64(ref.offset)+off, len(data))
		}
		return data, true, nil
	case refKindVirtual:
		return s.virtual(ctx, key, loc, r)
	}
	return nil, false, errs.New(errs.InvalidMetadata, key, "unknown chunk reference in %s", loc.man)
}

// List lists the entries directly under prefix ("" or ending in "/"): a
// group's children and zarr.json, an array's zarr.json and "c/", and under
// an array's "c/" its chunk keys (which reads its manifests).
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	path := "/" + strings.TrimSuffix(prefix, "/")
	if i, ok := s.snap.byPath[path]; ok && s.snap.nodes[i].array {
		out := []string{"zarr.json"}
		switch n := &s.snap.nodes[i]; {
		case len(n.manifests) == 0:
		case n.ndim == 0:
			// a 0-dimensional array's one chunk is the key "c"
			loc, err := s.locate(ctx, prefix+"c")
			if err != nil {
				return nil, err
			}
			if loc.found {
				out = []string{"c", "zarr.json"}
			}
		default:
			out = []string{"c/", "zarr.json"}
		}
		return out, nil
	}
	// a group (or the root of an empty repository): nodes below it
	under := path + "/"
	if path == "/" {
		under = "/"
	}
	seen := map[string]bool{}
	for i := range s.snap.nodes {
		p := s.snap.nodes[i].path
		if p == path {
			seen["zarr.json"] = true
			continue
		}
		if rest, ok := strings.CutPrefix(p, under); ok && rest != "" {
			name, _, _ := strings.Cut(rest, "/")
			seen[name+"/"] = true
		}
	}
	if len(seen) == 0 {
		return s.listChunks(ctx, prefix)
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// listChunks lists under a prefix inside an array's chunk keys.
func (s *Store) listChunks(ctx context.Context, prefix string) ([]string, error) {
	arrPath, rest, ok := strings.Cut(prefix, "c/")
	for ok {
		p := "/" + strings.TrimSuffix(arrPath, "/")
		if i, found := s.snap.byPath[p]; found && s.snap.nodes[i].array && (arrPath == "" || strings.HasSuffix(arrPath, "/")) {
			return s.listArrayChunks(ctx, &s.snap.nodes[i], rest)
		}
		var more string
		more, rest, ok = strings.Cut(rest, "c/")
		arrPath += "c/" + more
	}
	return []string{}, nil
}

func (s *Store) listArrayChunks(ctx context.Context, n *node, rest string) ([]string, error) {
	seen := map[string]bool{}
	var b []byte
	for j := range n.manifests {
		m, err := s.manifest(ctx, n.manifests[j].id)
		if err != nil {
			return nil, err
		}
		err = m.each(n.id, n.ndim, func(coords []uint32, _ chunkRef) error {
			b = b[:0]
			for k, c := range coords {
				if k > 0 {
					b = append(b, '/')
				}
				b = strconv.AppendUint(b, uint64(c), 10)
			}
			key := string(b)
			if tail, ok := strings.CutPrefix(key, rest); ok && tail != "" {
				if i := strings.IndexByte(tail, '/'); i >= 0 {
					seen[tail[:i+1]] = true
				} else {
					seen[tail] = true
				}
			}
			return ctx.Err()
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// manifestCache keeps decompressed manifests up to a number of bytes,
// dropping the least recently used; a manifest wanted by several reads at
// once is read once.
type manifestCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	m     map[id12]*list.Element
	lru   list.List // of *manifestEntry, most recent first
}

type manifestEntry struct {
	id   id12
	done chan struct{}
	man  *manifest
	err  error
}

func newManifestCache(limit int64) *manifestCache {
	return &manifestCache{limit: limit, m: map[id12]*list.Element{}}
}

// manifest returns the manifest with id, reading it on first use.
func (s *Store) manifest(ctx context.Context, id id12) (*manifest, error) {
	c := s.cache
	c.mu.Lock()
	if el, ok := c.m[id]; ok {
		c.lru.MoveToFront(el)
		e := el.Value.(*manifestEntry)
		c.mu.Unlock()
		select {
		case <-e.done:
			return e.man, e.err
		case <-ctx.Done():
			return nil, errs.Wrap(errs.Aborted, manifestKey(id), ctx.Err(), "aborted")
		}
	}
	e := &manifestEntry{id: id, done: make(chan struct{})}
	el := c.lru.PushFront(e)
	c.m[id] = el
	c.mu.Unlock()

	e.man, e.err = s.readManifest(ctx, id)
	close(e.done)
	c.mu.Lock()
	if e.err != nil {
		// not kept: a later read tries again (the failure may pass)
		if c.m[id] == el {
			delete(c.m, id)
			c.lru.Remove(el)
		}
	} else {
		c.used += int64(e.man.size)
		for c.used > c.limit && c.lru.Len() > 1 {
			last := c.lru.Back()
			old := last.Value.(*manifestEntry)
			if old == e {
				break
			}
			select {
			case <-old.done:
			default:
				// still loading: it is counted when it is done
				c.lru.MoveToFront(last)
				continue
			}
			c.lru.Remove(last)
			delete(c.m, old.id)
			if old.man != nil {
				c.used -= int64(old.man.size)
			}
		}
	}
	c.mu.Unlock()
	return e.man, e.err
}

func (s *Store) readManifest(ctx context.Context, id id12) (*manifest, error) {
	key := manifestKey(id)
	data, ok, err := s.st.Get(ctx, key)
	if err != nil {
		return nil, errs.Wrap(errs.Store, key, err, "cannot read a manifest")
	}
	if !ok {
		return nil, errs.New(errs.Store, key, "the snapshot %s names this manifest, which the repository does not have", s.SnapshotID())
	}
	_, b, err := body(key, data, fileManifest)
	if err != nil {
		return nil, err
	}
	return parseManifest(key, b)
}

var (
	_ store.Store           = (*Store)(nil)
	_ store.RangeReader     = (*Store)(nil)
	_ store.Lister          = (*Store)(nil)
	_ store.VersionedReader = (*Store)(nil)
	_ store.Locator         = (*Store)(nil)
)
