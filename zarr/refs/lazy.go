package refs

import (
	"container/list"
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs/parquet"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// lazy is a Parquet reference directory (fsspec's LazyReferenceMapper):
//
//	<root>/.zmetadata                  {"metadata": {key: JSON, ...}, "record_size": N}
//	<root>/<field>/refs.<i>.parq       columns path, offset, size, raw
//
// A chunk key "<field>/<i>.<j>..." is record n = the C-order ravel of the
// chunk index over the array's chunk grid (ceil(shape/chunks), [1] for a
// scalar); it is row n % N of refs.<n / N>.parq. A row with raw is inline
// data; else with a path, [path] when size is 0 and [path, offset, size]
// otherwise; with neither, the key is absent (the chunk reads as the fill
// value). A record file that does not exist, or that ends before the row
// (older writers did not pad the last file), means absent keys too.
type lazy struct {
	s          *Store
	root       string // ends in "/"
	meta       map[string][]byte
	metaKeys   []string
	recordSize int64

	mu     sync.Mutex
	arrays map[string]*lazyArray

	cache *fileCache
}

type lazyArray struct {
	grid []int64 // nil: not an array
}

func openLazy(ctx context.Context, s *Store, root string) (*lazy, error) {
	zm := root
	if i := strings.IndexAny(zm, "?#"); i >= 0 {
		zm = zm[:i] + ".zmetadata" + zm[i:]
	} else {
		zm += ".zmetadata"
	}
	u := s.mapURL(zm)
	data, ok, err := s.co.Get(ctx, ".zmetadata", u)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errs.New(errs.NotFound, u, "no Parquet reference directory here (no .zmetadata)")
	}
	top, err := jsonx.Object(data)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, u, err, "bad .zmetadata")
	}
	var rs int64
	if raw, ok := top["record_size"]; ok {
		if rs, err = jsonInt(raw); err != nil || rs <= 0 {
			return nil, errs.New(errs.InvalidMetadata, u, "record_size must be a positive integer, not %s", shorten(raw))
		}
	} else {
		return nil, errs.New(errs.InvalidMetadata, u, "no record_size: not a Parquet reference directory")
	}
	l := &lazy{s: s, root: root, meta: map[string][]byte{}, recordSize: rs, arrays: map[string]*lazyArray{}}
	if raw, ok := top["metadata"]; ok && !isNull(raw) {
		m, err := jsonx.Object(raw)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, u, err, "metadata must be an object")
		}
		for k, v := range m {
			// values are JSON objects (fsspec writes them parsed); a string
			// is taken as the document's text
			var str string
			if len(v) > 0 && v[0] == '"' && jsonx.UnmarshalStrict(v, &str) == nil {
				l.meta[k] = []byte(str)
			} else {
				l.meta[k] = []byte(v)
			}
			l.metaKeys = append(l.metaKeys, k)
		}
	}
	sort.Strings(l.metaKeys)
	n := s.opt.CacheFiles
	if n <= 0 {
		n = DefaultCacheFiles
	}
	l.cache = &fileCache{max: n, m: map[string]*fileEntry{}, lru: list.New()}
	return l, nil
}

// isMeta is fsspec's test for metadata keys.
func isMeta(key string) bool {
	return strings.HasPrefix(key, ".z") || strings.Contains(key, "/.z")
}

func (l *lazy) lookup(ctx context.Context, key string) (*ref, bool, error) {
	if d, ok := l.meta[key]; ok {
		return &ref{kind: kInline, data: d}, true, nil
	}
	if isMeta(key) {
		return nil, false, nil
	}
	field, chunk := "", key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		field, chunk = key[:i], key[i+1:]
	}
	a, err := l.array(field)
	if err != nil || a == nil {
		return nil, false, err
	}
	n, ok := ravel(chunk, a.grid)
	if !ok {
		return nil, false, nil
	}
	file, row := n/l.recordSize, n%l.recordSize
	t, err := l.file(ctx, field, file)
	if err != nil || t == nil || row >= int64(t.rows) {
		return nil, false, err
	}
	r := t.ref(int(row))
	return r, r != nil, nil
}

// array returns the chunk grid of the array at field, or nil.
func (l *lazy) array(field string) (*lazyArray, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a, ok := l.arrays[field]; ok {
		return a, nil
	}
	mk := ".zarray"
	if field != "" {
		mk = field + "/.zarray"
	}
	d, ok := l.meta[mk]
	if !ok {
		l.arrays[field] = nil
		return nil, nil
	}
	var m struct {
		Shape  []jsonx.Number `json:"shape"`
		Chunks []jsonx.Number `json:"chunks"`
	}
	if err := jsonx.Unmarshal(d, &m); err != nil || len(m.Shape) != len(m.Chunks) {
		return nil, errs.New(errs.InvalidMetadata, mk, "cannot read shape and chunks to locate references")
	}
	a := &lazyArray{grid: make([]int64, len(m.Shape))}
	for i := range m.Shape {
		s, err1 := m.Shape[i].Int64()
		c, err2 := m.Chunks[i].Int64()
		if err1 != nil || err2 != nil || s < 0 || c <= 0 {
			return nil, errs.New(errs.InvalidMetadata, mk, "bad shape %v or chunks %v", numberTexts(m.Shape), numberTexts(m.Chunks))
		}
		a.grid[i] = (s + c - 1) / c
	}
	l.arrays[field] = a
	return a, nil
}

// ravel turns a chunk key "i.j.k" into its C-order record number over the
// grid. A scalar array's only chunk is "0".
func ravel(chunk string, grid []int64) (int64, bool) {
	g := grid
	if len(g) == 0 {
		g = []int64{1}
	}
	parts := strings.Split(chunk, ".")
	if len(parts) != len(g) {
		return 0, false
	}
	var n int64
	for d, p := range parts {
		if p == "" || (len(p) > 1 && p[0] == '0') || p[0] == '+' || p[0] == '-' {
			return 0, false
		}
		i, err := strconv.ParseInt(p, 10, 64)
		if err != nil || i >= g[d] {
			return 0, false
		}
		if n > (math.MaxInt64-i)/g[d] {
			return 0, false
		}
		n = n*g[d] + i
	}
	return n, true
}

// file returns record file i of a field (nil when it does not exist).
func (l *lazy) file(ctx context.Context, field string, i int64) (*table, error) {
	u := l.root
	q := ""
	if j := strings.IndexAny(u, "?#"); j >= 0 {
		u, q = u[:j], u[j:]
	}
	if field != "" {
		u += urlx.EscapePath(field) + "/"
	}
	u += "refs." + strconv.FormatInt(i, 10) + ".parq" + q
	u = l.s.mapURL(u)
	return l.cache.get(ctx, u, func(ctx context.Context) (*table, error) {
		data, ok, err := l.s.co.Get(ctx, field, u)
		if err != nil || !ok {
			return nil, err
		}
		t, err := readTable(data, int(min(l.recordSize, parquet.MaxRows)), l.s.opt.parquetPage)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, u, err, "cannot read the Parquet references")
		}
		return t, nil
	})
}

// table is a decoded record file.
type table struct {
	rows    int
	paths   []string // unique paths
	path    []int32  // per row: index into paths, -1 for null; nil when no path column
	offset  []int64
	size    []int64
	raw     [][]byte // nil entries are null; nil when no raw column
	rawNull []bool
}

func readTable(data []byte, maxRows, maxPage int) (*table, error) {
	// padded files hold record_size rows; more is not a record file
	f, err := parquet.OpenLimits(data, parquet.Limits{Rows: maxRows, PageSize: maxPage})
	if err != nil {
		return nil, err
	}
	t := &table{rows: f.NumRows()}
	hasPath, hasRaw := f.HasColumn("path"), f.HasColumn("raw")
	if !hasPath && !hasRaw {
		return nil, errs.New(errs.InvalidMetadata, "", "neither a path nor a raw column (columns: %s)", strings.Join(f.Columns(), ", "))
	}
	if hasPath {
		c, err := f.Column("path")
		if err != nil {
			return nil, err
		}
		if c.Bytes == nil {
			return nil, errs.New(errs.InvalidMetadata, "", "the path column does not hold strings")
		}
		t.path = make([]int32, t.rows)
		index := map[string]int32{}
		for i, b := range c.Bytes {
			if c.Null(i) {
				t.path[i] = -1
				continue
			}
			k, ok := index[string(b)]
			if !ok {
				k = int32(len(t.paths))
				t.paths = append(t.paths, string(b))
				index[string(b)] = k
			}
			t.path[i] = k
		}
		for _, name := range []string{"offset", "size"} {
			if !f.HasColumn(name) {
				continue // older writers: a path alone is the whole file
			}
			c, err := f.Column(name)
			if err != nil {
				return nil, err
			}
			if c.Ints == nil {
				return nil, errs.New(errs.InvalidMetadata, "", "the %s column does not hold integers", name)
			}
			if name == "offset" {
				t.offset = c.Ints
			} else {
				t.size = c.Ints
			}
		}
	}
	if hasRaw {
		c, err := f.Column("raw")
		if err != nil {
			return nil, err
		}
		if c.Bytes == nil {
			return nil, errs.New(errs.InvalidMetadata, "", "the raw column does not hold bytes")
		}
		if c.Valid != nil {
			t.raw = c.Bytes
			t.rawNull = make([]bool, t.rows)
			any := false
			for i := range t.rawNull {
				t.rawNull[i] = !c.Valid[i]
				any = any || c.Valid[i]
			}
			if !any {
				t.raw, t.rawNull = nil, nil
			}
		} else {
			t.raw = c.Bytes
		}
	}
	return t, nil
}

func (t *table) ref(i int) *ref {
	if t.raw != nil && (t.rawNull == nil || !t.rawNull[i]) {
		d := t.raw[i]
		if d == nil {
			d = []byte{}
		}
		return &ref{kind: kInline, data: d}
	}
	if t.path == nil || t.path[i] < 0 {
		return nil
	}
	r := &ref{kind: kWhole, url: t.paths[t.path[i]]}
	var off, size int64
	if t.offset != nil {
		off = t.offset[i]
	}
	if t.size != nil {
		size = t.size[i]
	}
	if size == 0 {
		return r // the spec: a path with size 0 is the whole file
	}
	if off < 0 || size < 0 || off > math.MaxInt64-size {
		return &ref{kind: kBad, err: errs.New(errs.InvalidMetadata, r.url, "bad offset %d and size %d", off, size)}
	}
	r.kind, r.off, r.n = kRange, off, size
	return r
}

// fileCache keeps the most recently used record files; concurrent reads
// of one file share a single fetch.
type fileCache struct {
	mu  sync.Mutex
	max int
	m   map[string]*fileEntry
	lru *list.List // of *fileEntry, most recent first
}

type fileEntry struct {
	url  string
	done chan struct{}
	t    *table
	err  error
	elem *list.Element
}

func (c *fileCache) get(ctx context.Context, url string, load func(context.Context) (*table, error)) (*table, error) {
	c.mu.Lock()
	e, ok := c.m[url]
	if ok {
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
		}
		c.mu.Unlock()
		select {
		case <-e.done:
			return e.t, e.err
		case <-ctx.Done():
			return nil, errs.Wrap(errs.Aborted, url, ctx.Err(), "aborted")
		}
	}
	e = &fileEntry{url: url, done: make(chan struct{})}
	c.m[url] = e
	e.elem = c.lru.PushFront(e)
	for c.lru.Len() > c.max {
		old := c.lru.Back().Value.(*fileEntry)
		c.lru.Remove(old.elem)
		old.elem = nil
		delete(c.m, old.url)
	}
	c.mu.Unlock()
	// the load outlives a caller that gives up: others may be waiting
	go func() {
		t, err := load(context.WithoutCancel(ctx))
		c.mu.Lock()
		e.t, e.err = t, err
		if err != nil {
			// errors are not cached: a later read tries again
			if c.m[url] == e {
				delete(c.m, url)
			}
			if e.elem != nil {
				c.lru.Remove(e.elem)
				e.elem = nil
			}
		}
		c.mu.Unlock()
		close(e.done)
	}()
	select {
	case <-e.done:
		return e.t, e.err
	case <-ctx.Done():
		return nil, errs.Wrap(errs.Aborted, url, ctx.Err(), "aborted")
	}
}

// numberTexts is ns as strings (what %v prints of a []jsonx.Number).
func numberTexts(ns []jsonx.Number) []string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return s
}
