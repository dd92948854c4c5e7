// Package refs reads fsspec / kerchunk reference sets as a read-only Zarr
// store: every key is either inline bytes or a byte range of some other
// file (an HDF5, NetCDF, TIFF or GRIB file on a server or in a bucket), as
// kerchunk and VirtualiZarr write them.
//
// Formats:
//   - JSON version 0 (a plain object of references) and version 1
//     ({"version": 1, "templates", "gen", "refs"}), optionally zstd- or
//     gzip-compressed. A reference is a string (its UTF-8 bytes, or
//     "base64:..." decoded), a JSON object (its JSON text), [url] (the whole
//     file), [url, offset, length], with a null url meaning Options.Target.
//     "{{name}}" templates are substituted in urls and "gen" entries are
//     expanded (see template.go for the exact subset of jinja evaluated;
//     anything beyond it is an errs.Unsupported error naming the key).
//   - Parquet reference directories in fsspec's LazyReferenceMapper layout:
//     <root>/.zmetadata ({"metadata": {...}, "record_size": N}) and
//     <root>/<array>/refs.<i>.parq, fetched lazily, one record file at a
//     time as reads need it, and cached.
//
// Targets are read through a Fetcher (natively zarr/store/http; in
// WebAssembly the JS fetch, which the bridge provides), so this package does
// not import net/http. Relative urls resolve against the reference file's
// own location (Options.BaseURL); s3:// and gs:// map to public HTTPS
// endpoints (DefaultURLMap, overridable). Reads of one target file that
// arrive together are merged when they are close (fsspec's defaults: gaps
// up to 64 000 bytes, blocks up to 256 MB) and the merged blocks fetched
// concurrently.
package refs

import (
	"bytes"
	"context"
	"errors"
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlfetch"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// Fetcher reads byte ranges of URLs; it is how targets and Parquet files
// are reached, for any store.ByteRange (WholeValue, Span, From, Last). A
// file that does not exist (HTTP 404) is ok == false with a nil error. A
// fetcher returns at most the bytes asked for; fewer only at the end of
// the file. Targets are read through zarr/urlfetch, which merges ranges.
type Fetcher = urlfetch.Fetcher

// FetcherFunc makes a function a Fetcher (a hook that signs or re-routes
// requests can wrap another Fetcher this way).
type FetcherFunc = urlfetch.FetcherFunc

// Defaults for reading targets (Options documents them).
const (
	DefaultMaxGap      = 64 << 10 // store.DefaultCoalescing's gap
	DefaultMaxBlock    = 16 << 20 // store.DefaultCoalescing's largest request
	DefaultWindow      = urlfetch.DefaultWindow
	DefaultConcurrency = urlfetch.DefaultConcurrency
)

// Options configure a reference store. Only Fetcher is needed to read
// anything but inline data.
type Options struct {
	// BaseURL is where the reference file lives; relative target urls
	// resolve against it. FromURL and FromParquet set it to their URL.
	BaseURL string
	// Target is the file a reference with a null url points at (fsspec's
	// target=); it too resolves against BaseURL.
	Target string
	// Fetcher reads targets and Parquet files.
	Fetcher Fetcher
	// URLMap turns a resolved url into the one fetched; nil means
	// DefaultURLMap (s3:// and gs:// to public HTTPS). It may return its
	// argument unchanged, and may call DefaultURLMap itself.
	URLMap func(string) string
	// Templates override the reference set's own templates (fsspec's
	// template_overrides).
	Templates map[string]string

	// SameOrigin restricts reference targets to the reference file's own
	// origin (the scheme, host and port of BaseURL) and AllowedTargets: a
	// service that opens reference files it did not write keeps them from
	// making it read other hosts or local ports. With AllowedTargets alone,
	// only those are allowed. The check applies to each target url as
	// resolved, before URLMap (the caller's own mapping is trusted); a
	// refused target is a STORE error when its key is read.
	SameOrigin bool
	// AllowedTargets lists origins ("https://host:port") or URL prefixes
	// ("https://host/data/", "s3://bucket/") targets may be in.
	AllowedTargets []string

	// MaxGap is the largest gap between two ranges of one target that are
	// still read as one request (0: DefaultMaxGap, the engine's one
	// coalescing policy, store.DefaultCoalescing; negative: never merge).
	MaxGap int64
	// MaxBlock bounds a merged request (0: DefaultMaxBlock, the policy's).
	MaxBlock int64
	// Window is how long a read waits for other reads of the same target
	// to merge with (0: DefaultWindow, 2 ms; negative: no waiting, every
	// read is fetched on its own). GetMany merges without waiting.
	Window time.Duration
	// Concurrency bounds the fetches in flight (0: DefaultConcurrency, 16).
	Concurrency int
	// CacheFiles is how many Parquet record files are kept decoded
	// (0: DefaultCacheFiles).
	CacheFiles int
	// MaxGenKeys bounds the keys "gen" entries may expand to
	// (0: DefaultMaxGenKeys, 16 Mi).
	MaxGenKeys int

	parquetPage int // a lower page size limit, for fuzzing
}

// DefaultCacheFiles is how many Parquet record files a store keeps by
// default (a 100 000-row file takes about 2 MB decoded).
const DefaultCacheFiles = 32

// Store is a reference set as a read-only Zarr store. It implements
// store.Store, store.RangeReader and store.Lister, and is safe for
// concurrent use.
type Store struct {
	opt  Options
	base string
	co   *urlfetch.Coalescer

	refs map[string]*ref // JSON sets
	lazy *lazy           // Parquet sets

	keysOnce sync.Once
	keys     []string // sorted, for List

	urlMu sync.Mutex
	urls  map[string]string // written url -> fetched url
}

var (
	_ store.Store       = (*Store)(nil)
	_ store.RangeReader = (*Store)(nil)
	_ store.Lister      = (*Store)(nil)
)

type noFetcher struct{}

func (noFetcher) Fetch(_ context.Context, url string, _ store.ByteRange) ([]byte, bool, error) {
	return nil, false, errs.New(errs.Unsupported, url, "no Fetcher was given to read reference targets")
}

func newStore(opt Options) *Store {
	s := &Store{opt: opt, base: opt.BaseURL, urls: map[string]string{}}
	f := opt.Fetcher
	if f == nil {
		f = noFetcher{}
	}
	s.co = urlfetch.New(f, urlfetch.Options{Gap: opt.MaxGap, MaxRequest: opt.MaxBlock, Window: opt.Window, Concurrency: opt.Concurrency, What: "reference target"})
	return s
}

// FromJSON reads a JSON reference set (version 0 or 1; zstd- or
// gzip-compressed JSON is detected).
func FromJSON(ctx context.Context, data []byte, opt Options) (*Store, error) {
	data, err := decompressJSON(data)
	if err != nil {
		return nil, err
	}
	if err := budget.Check("the reference file", budget.Mul(int64(len(data)), parseCopies)); err != nil {
		return nil, err
	}
	s := newStore(opt)
	refs, err := parseJSON(data, &s.opt)
	if err != nil {
		return nil, err
	}
	s.refs = refs
	return s, nil
}

// maxJSON bounds a decompressed reference file; the memory budget
// (zarr/budget) usually bounds it further.
const maxJSON = 1<<31 - 1

// parseCopies is how much memory parsing takes per byte of JSON text, at
// most (the references, their keys and inline data): the text itself may be
// at most 1/parseCopies of what the memory budget leaves.
const parseCopies = 3

// textLimit is the largest reference file text the budget allows.
func textLimit() int {
	return int(min(int64(maxJSON), budget.Available()/parseCopies))
}

// decompressJSON inflates a zstd- or gzip-compressed reference file with
// the codecs chunks are decoded with, under the same bounds: a file that
// would decompress past textLimit fails before it is inflated (zstd: from
// its frame headers) or as soon as it passes (gzip).
func decompressJSON(data []byte) ([]byte, error) {
	var name string
	switch {
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		name = "zstd"
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		name = "gzip"
	default:
		return data, nil
	}
	c, err := codec.Build(codec.Config{Name: name}, codec.Spec{})
	if err != nil {
		return nil, err
	}
	avail := budget.Available()
	limit := textLimit()
	out, err := c.(codec.LimitedDecoder).DecodeLimit(data, limit)
	if errors.Is(err, codec.ErrTooLarge) {
		return nil, errs.New(errs.TooLarge, "", "the %s-compressed reference file decompresses to more than %s (%d bytes), the most the memory budget (%s available, %d bytes; zarr.SetMemoryLimit) allows for a reference file's text", name, budget.Size(int64(limit)), limit, budget.Size(avail), avail)
	}
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, "", err, "cannot read %s-compressed references", name)
	}
	return out, nil
}

// FromParquet opens a Parquet reference directory (the URL of the directory
// holding .zmetadata; a trailing "/.zmetadata" is accepted too).
func FromParquet(ctx context.Context, url string, opt Options) (*Store, error) {
	root := parquetRoot(url)
	if opt.BaseURL == "" {
		opt.BaseURL = root
	}
	s := newStore(opt)
	l, err := openLazy(ctx, s, root)
	if err != nil {
		return nil, err
	}
	s.lazy = l
	return s, nil
}

// parquetRoot makes a directory URL end in "/" (before any query).
func parquetRoot(u string) string {
	p, q := u, ""
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		p, q = u[:i], u[i:]
	}
	p = strings.TrimSuffix(p, ".zmetadata")
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p + q
}

// FromURL opens the reference set at url: a JSON file (compressed or not),
// or a Parquet reference directory. A URL ending in "/", "/.zmetadata",
// ".parq" or ".parquet" is taken as a Parquet directory; otherwise the URL
// is read, used if it holds a JSON reference set, and else tried as a
// Parquet directory.
func FromURL(ctx context.Context, url string, opt Options) (*Store, error) {
	p := url
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.zmetadata") || strings.HasSuffix(p, ".parq") || strings.HasSuffix(p, ".parquet") {
		return FromParquet(ctx, url, opt)
	}
	if opt.BaseURL == "" {
		opt.BaseURL = url
	}
	f := opt.Fetcher
	if f == nil {
		f = noFetcher{}
	}
	m := opt.URLMap
	if m == nil {
		m = DefaultURLMap
	}
	data, ok, err := f.Fetch(ctx, m(url), store.WholeValue())
	if err != nil {
		return nil, errs.Wrap(errs.Store, url, err, "cannot read the reference file")
	}
	if ok {
		data, err = decompressJSON(data)
		if err != nil {
			return nil, err
		}
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
			return FromJSON(ctx, data, opt)
		}
	}
	opt.BaseURL = ""
	s, err := FromParquet(ctx, url, opt)
	if err != nil && errs.CodeOf(err) == errs.NotFound {
		if ok {
			return nil, errs.New(errs.InvalidMetadata, url, "neither a JSON reference set nor a Parquet reference directory")
		}
		return nil, errs.New(errs.NotFound, url, "no reference file there (and no %s.zmetadata)", parquetRoot(url))
	}
	return s, err
}

// url returns the URL a reference's bytes are fetched from.
func (s *Store) url(key string, r *ref) (string, error) {
	raw := r.url
	if r.noURL {
		if s.opt.Target == "" {
			return "", errs.New(errs.InvalidMetadata, key, "the reference has a null url and no default target (Options.Target) was given")
		}
		raw = s.opt.Target
	}
	if raw == "" {
		return "", errs.New(errs.InvalidMetadata, key, "the reference has an empty url")
	}
	s.urlMu.Lock()
	defer s.urlMu.Unlock()
	if u, ok := s.urls[raw]; ok {
		return u, nil
	}
	resolved := Resolve(s.base, raw)
	if s.opt.SameOrigin || len(s.opt.AllowedTargets) > 0 {
		if err := allowedTarget(resolved, s.base, s.opt); err != nil {
			return "", errs.Wrap(errs.Store, key, err, "reference target refused")
		}
	}
	u := s.mapURL(resolved)
	if len(s.urls) < 1<<16 {
		s.urls[raw] = u
	}
	return u, nil
}

func (s *Store) mapURL(u string) string {
	if s.opt.URLMap != nil {
		return s.opt.URLMap(u)
	}
	return DefaultURLMap(u)
}

func (s *Store) lookup(ctx context.Context, key string) (*ref, bool, error) {
	if s.lazy != nil {
		return s.lazy.lookup(ctx, key)
	}
	r, ok := s.refs[key]
	return r, ok, nil
}

// Get reads a key. A key without a reference is absent (ok == false); a
// reference whose target cannot be read is an error.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	r, ok, err := s.lookup(ctx, key)
	if err != nil || !ok {
		return nil, false, err
	}
	switch r.kind {
	case kInline:
		return r.data, true, nil
	case kBad:
		return nil, false, r.err
	}
	u, err := s.url(key, r)
	if err != nil {
		return nil, false, err
	}
	off, n := r.off, r.n
	if r.kind == kWhole {
		off, n = 0, -1
	}
	ans, err := s.co.Read(ctx, key, u, off, n)
	if err != nil {
		return nil, false, err
	}
	return ans.Data, true, nil
}

// GetRange reads part of a key: the range is relative to the key's bytes
// (for [url, offset, length] references, to the block). A suffix longer
// than the value gives the whole value.
func (s *Store) GetRange(ctx context.Context, key string, br store.ByteRange) ([]byte, bool, error) {
	r, ok, err := s.lookup(ctx, key)
	if err != nil || !ok {
		return nil, false, err
	}
	bad := func(size int64) error {
		return errs.New(errs.Store, key, "%s of a %d-byte value", br, size)
	}
	suffix, isSuffix := br.Suffix()
	start, length := br.Bounds()
	switch r.kind {
	case kBad:
		return nil, false, r.err
	case kInline:
		if isSuffix && suffix > int64(len(r.data)) {
			return r.data, true, nil
		}
		sub, err := store.Slice(r.data, br)
		if err != nil {
			return nil, false, bad(int64(len(r.data)))
		}
		return sub, true, nil
	}
	u, err := s.url(key, r)
	if err != nil {
		return nil, false, err
	}
	var data []byte
	if r.kind == kWhole {
		if isSuffix {
			data, err = s.co.Suffix(ctx, key, u, suffix)
		} else {
			if start < 0 {
				return nil, false, bad(-1)
			}
			data, err = s.read(ctx, key, u, start, length)
		}
	} else {
		off, n := start, length
		if isSuffix {
			n = min(suffix, r.n)
			off = r.n - n
		} else {
			if n < 0 && off >= 0 && off <= r.n {
				n = r.n - off
			}
			if off < 0 || n < 0 || off > r.n || n > r.n-off {
				return nil, false, bad(r.n)
			}
		}
		data, err = s.read(ctx, key, u, r.off+off, n)
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// read reads n bytes at off of a target (n < 0: to the end).
func (s *Store) read(ctx context.Context, key, url string, off, n int64) ([]byte, error) {
	ans, err := s.co.Read(ctx, key, url, off, n)
	return ans.Data, err
}

// GetMany reads several keys at once, merging the ranges each target file
// is read for without waiting for a window: the way to read a known set of
// chunks in the fewest requests. Absent keys are missing from the result.
func (s *Store) GetMany(ctx context.Context, keys []string) (map[string][]byte, error) {
	type item struct {
		key string
		r   *ref
		ans *urlfetch.Result
	}
	items := make([]item, len(keys))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, DefaultConcurrency)
	for i, k := range keys {
		items[i].key = k
		if s.lazy == nil {
			items[i].r = s.refs[k]
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r, ok, err := s.lookup(ctx, k)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if ok {
				items[i].r = r
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	out := map[string][]byte{}
	byURL := map[string][]urlfetch.Range{}
	of := map[string][]int{} // the items of each URL's ranges
	var order []string
	for i := range items {
		it := &items[i]
		if it.r == nil {
			continue
		}
		switch it.r.kind {
		case kInline:
			out[it.key] = it.r.data
			continue
		case kBad:
			return nil, it.r.err
		}
		u, err := s.url(it.key, it.r)
		if err != nil {
			return nil, err
		}
		off, n := it.r.off, it.r.n
		if it.r.kind == kWhole {
			off, n = 0, -1
		}
		if _, seen := byURL[u]; !seen {
			order = append(order, u)
		}
		byURL[u] = append(byURL[u], urlfetch.Range{Key: it.key, Off: off, N: n})
		of[u] = append(of[u], i)
	}
	for _, u := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j, res := range s.co.ReadMany(ctx, u, byURL[u]) {
				items[of[u][j]].ans = &res
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, errs.Wrap(errs.Aborted, "", err, "aborted")
	}
	for _, it := range items {
		if it.ans == nil {
			continue
		}
		if it.ans.Err != nil {
			return nil, it.ans.Err
		}
		out[it.key] = it.ans.Data
	}
	return out, nil
}

// Ref describes what a key refers to.
type Ref struct {
	// Inline is true when the bytes are in the reference set (Data).
	Inline bool
	Data   []byte
	// URL is the url as written in the reference set (templates
	// rendered; "" for a null url), FetchURL the one fetched (resolved
	// against BaseURL, Target for a null url, mapped by URLMap).
	URL, FetchURL string
	// Offset and Length select the bytes; Length is -1 for a whole file.
	Offset, Length int64
}

// Lookup returns the reference of a key without reading its target (a
// Parquet set may fetch the record file holding it).
func (s *Store) Lookup(ctx context.Context, key string) (Ref, bool, error) {
	r, ok, err := s.lookup(ctx, key)
	if err != nil || !ok {
		return Ref{}, false, err
	}
	switch r.kind {
	case kBad:
		return Ref{}, false, r.err
	case kInline:
		return Ref{Inline: true, Data: r.data}, true, nil
	}
	u, err := s.url(key, r)
	if err != nil {
		return Ref{}, false, err
	}
	out := Ref{URL: r.url, FetchURL: u, Offset: r.off, Length: r.n}
	if r.kind == kWhole {
		out.Offset, out.Length = 0, -1
	}
	return out, true, nil
}

// Keys returns the keys of a JSON reference set, sorted; for a Parquet set,
// the metadata keys (chunk keys would need every record file).
func (s *Store) Keys() []string {
	s.keysOnce.Do(func() {
		if s.lazy != nil {
			s.keys = s.lazy.metaKeys
			return
		}
		s.keys = make([]string, 0, len(s.refs))
		for k := range s.refs {
			s.keys = append(s.keys, k)
		}
		slices.Sort(s.keys)
	})
	return s.keys
}

// List lists the entries directly under a prefix ("" or ending in "/"). For
// a Parquet set it sees metadata keys and the arrays' directories, not
// chunk keys.
func (s *Store) List(_ context.Context, prefix string) ([]string, error) {
	keys := s.Keys()
	i := sort.SearchStrings(keys, prefix)
	var out []string
	for i < len(keys) && strings.HasPrefix(keys[i], prefix) {
		rest := keys[i][len(prefix):]
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			if rest != "" {
				out = append(out, rest)
			}
			i++
			continue
		}
		// a sub-prefix: skip every key below it at once ('/'+1 is '0')
		out = append(out, rest[:j+1])
		i += sort.SearchStrings(keys[i:], prefix+rest[:j]+"0")
	}
	sort.Strings(out)
	return out, nil
}

// StoreFetcher reads URLs that start with Prefix from a store: the rest of
// the URL, percent-decoded, is the key. With a Directory store it reads
// local files; in WebAssembly it lets any JS store hold the targets.
type StoreFetcher struct {
	Prefix string
	Store  store.Store
}

func (f StoreFetcher) Fetch(ctx context.Context, url string, r store.ByteRange) ([]byte, bool, error) {
	if !strings.HasPrefix(url, f.Prefix) {
		return nil, false, errs.New(errs.Unsupported, url, "not under %q", f.Prefix)
	}
	key := strings.TrimPrefix(url, f.Prefix)
	if i := strings.IndexAny(key, "?#"); i >= 0 {
		key = key[:i]
	}
	if strings.Contains(key, "%") {
		if k, err := urlx.Unescape(key); err == nil {
			key = k
		}
	}
	if r.IsWhole() {
		return f.Store.Get(ctx, key)
	}
	data, ok, err := store.GetRange(ctx, f.Store, key, r)
	if err != nil && ok {
		return nil, false, err
	}
	return data, ok, err
}

var _ store.VersionedReader = (*Store)(nil)

// ReadVersion reads a key with a generation made from its reference (the
// inline bytes, or the url, offset and length): a reference set does not
// change once loaded, so confirming a cached chunk costs no request. (The
// target files carry no versions in a reference set: a target rewritten
// behind it is not noticed, as with fsspec.)
func (s *Store) ReadVersion(ctx context.Context, key string, r store.ByteRange, c store.Conditions) (store.Versioned, error) {
	ref, ok, err := s.lookup(ctx, key)
	if err != nil {
		return store.Versioned{}, err
	}
	gen := store.Absent
	if ok {
		gen = refGeneration(ref)
	}
	if pre, done, err := store.Precheck(key, gen, c); done {
		return pre, err
	}
	var v store.Versioned
	if r.IsWhole() {
		v.Data, v.Found, err = s.Get(ctx, key)
	} else {
		v.Data, v.Found, err = s.GetRange(ctx, key, r)
	}
	if err != nil {
		return store.Versioned{}, err
	}
	v.Generation = gen
	return v, nil
}

// refGeneration hashes what a reference says (FNV-1a, 64 bits).
func refGeneration(r *ref) store.Generation {
	h := fnv.New64a()
	h.Write(fmtx.Appendf(nil, "%d\x00%v\x00%s\x00%d\x00%d\x00", uint8(r.kind), r.noURL, r.url, r.off, r.n))
	h.Write(r.data)
	return store.Generation("ref:" + strconv.FormatUint(h.Sum64(), 36))
}
