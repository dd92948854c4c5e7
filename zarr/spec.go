package zarr

import (
	"context"
	"sync"
	"time"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	"github.com/zarr-wasm/zarr-wasm/zarr/tsspec"
)

// SpecOptions configures OpenSpecWith.
type SpecOptions struct {
	// Store, when set, is the store the array lives in; the spec's kvstore
	// then only gives the path inside it (and is left out of Spec()).
	Store Store
	// OpenKvStore opens file and http kvstores; nil opens them with
	// NewDirectoryStore and the native HTTP store (not available in the
	// WebAssembly build, where the JS package passes its own).
	OpenKvStore func(ctx context.Context, kv *tsspec.KvStore) (Store, error)
}

// OpenSpec opens or creates the array a TensorStore spec describes: a JSON
// object ([]byte, string or map[string]any) or a TensorStore URL string
// ("file:///data/a.zarr|zarr2:", "memory://|zarr2:x"). The zarr2 ("zarr")
// driver follows TensorStore's documentation: open/create/delete_existing,
// metadata and schema constraints with TensorStore's creation defaults,
// the automatic chunk shape, field, transform, fill_missing_data_reads,
// store_data_equal_to_fill_value, assume_metadata and
// assume_cached_metadata. The "memory" kvstore is one store shared by the
// whole process (MemoryKvStore).
func OpenSpec(ctx context.Context, spec any) (*Array, error) {
	return OpenSpecWith(ctx, spec, SpecOptions{})
}

// sharedMemory is the store of every "memory" kvstore.
var sharedMemory = store.NewMemory()

// MemoryKvStore returns the store behind the "memory" kvstore (one per
// process; a spec's kvstore path is a key prefix in it).
func MemoryKvStore() *store.Memory { return sharedMemory }

// OpenSpecWith is OpenSpec with a store or kvstore opener of the caller's.
func OpenSpecWith(ctx context.Context, spec any, opt SpecOptions) (*Array, error) {
	s, err := tsspec.Parse(spec)
	if err != nil {
		return nil, err
	}
	st, path, err := openKvStore(ctx, s, opt)
	if err != nil {
		return nil, err
	}
	if s.Driver == "" {
		if s.Driver, err = detectDriver(ctx, st, path); err != nil {
			return nil, err
		}
	}
	var arr *Array
	switch s.Driver {
	case "zarr":
		arr, err = openSpecV2(ctx, s, st, path)
	default:
		arr, err = openSpecV3(ctx, s, st, path)
	}
	if err != nil {
		return nil, err
	}
	arr.WriteEmptyChunks = s.StoreDataEqualToFillValue
	arr.MissingChunksAreErrors = !s.FillMissingDataReads
	if s.DataCopyConcurrency > 0 {
		arr.Concurrency = s.DataCopyConcurrency
	}
	return arr, nil
}

// openKvStore resolves the spec's kvstore to a store and the array's path
// in it.
func openKvStore(ctx context.Context, s *tsspec.Spec, opt SpecOptions) (Store, string, error) {
	kv := s.KvStore
	if opt.Store != nil {
		p := ""
		if kv != nil {
			p = kv.Path
		}
		s.KvStore = nil
		path, err := meta.NormalizePath(p)
		return opt.Store, path, err
	}
	if kv == nil {
		return nil, "", errs.New(errs.InvalidMetadata, "spec.kvstore", "is required")
	}
	if kv.Driver == "memory" {
		path, err := meta.NormalizePath(kv.Path)
		return sharedMemory, path, err
	}
	open := opt.OpenKvStore
	if open == nil {
		open = defaultKvStore
	}
	st, err := open(ctx, kv)
	return st, "", err
}

// detectDriver finds the format at path (a URL that named only a kvstore).
func detectDriver(ctx context.Context, s Store, path string) (string, error) {
	prefix := meta.Prefix(path)
	if _, ok, err := get(ctx, s, prefix+keyZarrJSON); err != nil {
		return "", err
	} else if ok {
		return "zarr3", nil
	}
	if _, ok, err := get(ctx, s, prefix+keyZarray); err != nil {
		return "", err
	} else if ok {
		return "zarr", nil
	}
	return "", errs.New(errs.NotFound, path, "no zarr2 or zarr3 array here to detect (add |zarr2: or |zarr3: to the URL to create one)")
}

// specPools are the cache pools of specs' cache_pool resources, one per
// resource name and limit, shared by every spec naming the same (as specs
// opened in one TensorStore context share their resources).
var (
	specPoolsMu sync.Mutex
	specPools   = map[string]*CachePool{}
)

// specCacheConfig maps cache_pool and recheck_cached_data onto the chunk
// cache: a spec without cache_pool uses DefaultCachePool (which, like
// TensorStore's default cache_pool, holds nothing until given a limit);
// recheck_cached_data true (the default) confirms cached chunks on every
// read, false never, "open" once per open, a time those cached before it.
func specCacheConfig(s *tsspec.Spec) openConfig {
	cfg := openConfig{pool: DefaultCachePool(), poolSet: true}
	if s.CacheBytes >= 0 {
		key := fmtx.Sprintf("%s|%d", s.CachePool, s.CacheBytes)
		specPoolsMu.Lock()
		p, ok := specPools[key]
		if !ok {
			p = NewCachePool(s.CacheBytes)
			specPools[key] = p
		}
		specPoolsMu.Unlock()
		cfg.pool = p
	}
	switch r := s.RecheckCachedData.(type) {
	case bool:
		if !r {
			cfg.recheck = RecheckNever
		}
	case string: // "open"
		cfg.recheck = RecheckOpen
	case float64:
		cfg.recheck = RecheckSince(time.Unix(0, int64(r*1e9)))
	}
	return cfg
}

// specState is what an array opened from a spec keeps: the spec, the
// metadata in TensorStore's terms, and the view (field, transform).
type specState struct {
	spec *tsspec.Spec
	v2   *tsspec.V2Metadata
	v3   *tsspec.V3Metadata
	view *arrayView
	// assumed: the metadata came from the spec, not the store.
	assumed bool
	// checked is when the metadata was last read from the store (zero:
	// never, for assumed metadata).
	checked time.Time
	// recheck is recheckSpecMetadata, set where a spec is opened: only
	// opening a spec links it (and package tsspec's metadata parsers) into
	// a program; the core WebAssembly build, which opens no specs, leaves
	// them out.
	recheck func(ctx context.Context, a *Array) error
}

// recheckMetadata re-reads the stored metadata of an array opened from a
// spec before a read or write (see recheckSpecMetadata).
func (a *Array) recheckMetadata(ctx context.Context) error {
	if a.spec == nil {
		return nil
	}
	return a.spec.recheck(ctx, a)
}

// recheckSpecMetadata re-reads the stored metadata before a read or write
// when recheck_cached_metadata asks for it (true: every time; a time in
// seconds since the epoch: once, if it was last read before then): a resize
// by another writer is taken up, any other change is an error.
func recheckSpecMetadata(ctx context.Context, a *Array) error {
	st := a.spec
	if st.spec.AssumeMetadata {
		return nil
	}
	switch r := st.spec.RecheckCachedMetadata.(type) {
	case bool:
		if !r {
			return nil
		}
	case float64:
		if !st.checked.Before(time.Unix(0, int64(r*1e9))) {
			return nil
		}
	default:
		return nil // "open": checked when opened
	}
	key := a.meta.Key
	data, ok, err := get(ctx, a.store, key)
	if err != nil {
		return err
	}
	if !ok {
		return errs.New(errs.NotFound, key, "Metadata at %q does not exist", key)
	}
	var shape []int64
	switch {
	case st.v2 != nil:
		m, err := tsspec.ParseV2Metadata(key, data)
		if err != nil {
			return err
		}
		if !st.v2.Compatible(m) {
			return errs.New(errs.InvalidMetadata, key, "Updated zarr metadata %s is incompatible with existing metadata", data)
		}
		shape, st.v2.Shape = m.Shape, m.Shape
	case st.v3 != nil:
		m, err := tsspec.ParseV3Metadata(key, data)
		if err != nil {
			return err
		}
		if !st.v3.Compatible(m) {
			return errs.New(errs.InvalidMetadata, key, "Updated zarr metadata %s is incompatible with existing metadata", data)
		}
		shape = m.Shape
		st.v3 = m
	}
	a.meta.SetShape(intsOf(shape))
	st.checked = time.Now()
	return nil
}

func openSpecV2(ctx context.Context, s *tsspec.Spec, st Store, path string) (*Array, error) {
	prefix := meta.Prefix(path)
	key := prefix + s.MetadataKey
	shown := key // the key as messages name it: with the kvstore's path
	if s.KvStore != nil && s.KvStore.Driver != "memory" {
		shown = s.KvStore.Path + s.MetadataKey
	}
	var m *tsspec.V2Metadata
	var f tsspec.Field
	var err error
	assumed := s.AssumeMetadata || s.AssumeCachedMetadata
	switch {
	case assumed:
		if m, f, err = s.NewV2Metadata(); err != nil {
			return nil, err
		}
	default:
		data, ok, err := get(ctx, st, key)
		if err != nil {
			return nil, err
		}
		if ok && s.Open {
			if m, err = tsspec.ParseV2Metadata(key, data); err != nil {
				return nil, err
			}
			if f, err = s.CheckV2(m); err != nil {
				return nil, err
			}
			break
		}
		if ok && !s.DeleteExisting {
			return nil, errs.New(errs.Exists, shown, "Error writing %q: the array already exists (give \"open\": true to open it, or \"delete_existing\": true to replace it)", shown)
		}
		if !s.Create {
			return nil, errs.New(errs.NotFound, shown, "Metadata at %q does not exist", shown)
		}
		if m, f, err = s.NewV2Metadata(); err != nil {
			return nil, err
		}
		if err := createV2(ctx, st, prefix, key, m, s.DeleteExisting); err != nil {
			return nil, err
		}
	}
	doc, err := m.Document().Marshal()
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, key, err, "cannot write metadata")
	}
	am, err := meta.ParseV2(key, doc)
	if err != nil {
		return nil, err
	}
	if m.DimensionSeparator == "" && s.V2 != nil && s.V2.DimensionSeparator != "" {
		// As TensorStore: a .zarray without dimension_separator takes the
		// spec's.
		am.Keys.Sep = s.V2.DimensionSeparator
	}
	arr := &Array{store: st, path: path, meta: am, attrs: map[string]any{}, attrsKey: prefix + keyZattrs, Concurrency: DefaultConcurrency, src: newChunkSource(st, specCacheConfig(s))}
	if !assumed {
		if arr.attrs, err = readAttrs(ctx, st, prefix+keyZattrs); err != nil {
			return nil, err
		}
		am.Attrs = arr.attrs
	}
	arr.spec = &specState{spec: s, v2: m, assumed: assumed, recheck: recheckSpecMetadata}
	if !assumed {
		arr.spec.checked = time.Now()
	}
	if arr.spec.view, err = newArrayView(arr, m.BaseShape(f), len(m.Shape), nil, f, m.DType.Kind != dtype.Struct, s.Transform); err != nil {
		return nil, err
	}
	return arr, nil
}

// createV2 writes a new .zarray, first deleting every key under the array's
// prefix when delete_existing is given. Only the metadata is written (no
// parent groups), as TensorStore does.
func createV2(ctx context.Context, st Store, prefix, key string, m *tsspec.V2Metadata, deleteExisting bool) error {
	w, ok := store.AsWriter(st)
	if !ok {
		return errs.New(errs.ReadOnly, key, "the store cannot be written")
	}
	doc, err := m.Document().Marshal()
	if err != nil {
		return errs.Wrap(errs.InvalidMetadata, key, err, "cannot write metadata")
	}
	if _, err := meta.ParseV2(key, doc); err != nil { // the engine must read what it writes
		return err
	}
	if deleteExisting {
		if err := deletePrefix(ctx, st, w, prefix); err != nil {
			return err
		}
	}
	return setKey(ctx, w, key, doc)
}

// deletePrefix deletes every key below prefix ("" is the whole store); the
// store must list.
func deletePrefix(ctx context.Context, st Store, w store.Writer, prefix string) error {
	if _, ok := store.AsLister(st); !ok {
		return errs.New(errs.Unsupported, prefix, "delete_existing needs a store that can list its keys")
	}
	return deleteTree(ctx, st, w, prefix)
}

// Spec returns the TensorStore JSON spec that reopens the array (with its
// complete metadata, and the field, transform and options it was opened
// with). The kvstore is included when the array was opened from a spec
// naming one.
func (a *Array) Spec() (map[string]any, error) {
	if a.spec != nil && a.spec.v2 != nil {
		return a.spec.spec.V2Spec(a.spec.v2, a.spec.view.field, a.spec.view.tsView(a)), nil
	}
	if a.meta.ZarrFormat == 3 {
		return a.specV3()
	}
	m, f, err := a.v2Model()
	if err != nil {
		return nil, err
	}
	s, _ := tsspec.Parse(`{"driver":"zarr"}`)
	return s.V2Spec(m, f, tsspec.DefaultView(m.BaseShape(f), len(m.Shape), nil)), nil
}

// Schema returns the array's TensorStore Schema: domain, chunk layout,
// codec, data type, fill value and rank as TensorStore reports them (for
// a zarr v2 array with a structured data type, of the field opened).
func (a *Array) Schema() (map[string]any, error) {
	if a.spec != nil && a.spec.v2 != nil {
		return tsspec.V2Schema(a.spec.v2, a.spec.view.field, a.spec.view.tsView(a)), nil
	}
	if a.meta.ZarrFormat == 3 {
		return a.schemaV3()
	}
	m, f, err := a.v2Model()
	if err != nil {
		return nil, err
	}
	return tsspec.V2Schema(m, f, nil), nil
}

// v2Model reads the array's v2 metadata in TensorStore's terms (for arrays
// opened with OpenArray).
func (a *Array) v2Model() (*tsspec.V2Metadata, tsspec.Field, error) {
	if a.meta.ZarrFormat != 2 {
		return nil, tsspec.Field{}, errs.New(errs.Unsupported, a.path, "TensorStore has no driver for zarr v%d", a.meta.ZarrFormat)
	}
	doc, err := a.meta.Document()
	if err != nil {
		return nil, tsspec.Field{}, errs.Wrap(errs.InvalidMetadata, a.meta.Key, err, "")
	}
	m, err := tsspec.ParseV2Metadata(a.meta.Key, doc)
	if err != nil {
		return nil, tsspec.Field{}, err
	}
	f, err := tsspec.SelectField(m.DType, "")
	if err != nil {
		return nil, tsspec.Field{}, errs.Wrap(errs.Unsupported, a.path, err, "TensorStore opens one field of a structured array at a time (use OpenSpec with \"field\")")
	}
	return m, f, nil
}

// ResizeOptions are TensorStore's resize modes.
type ResizeOptions struct {
	// ExpandOnly fails if a dimension would shrink; ShrinkOnly if one would
	// grow.
	ExpandOnly, ShrinkOnly bool
	// MetadataOnly writes the new shape without deleting the chunks that
	// fall outside it.
	MetadataOnly bool
}

// ResizeWith changes the shape as Resize does, with TensorStore's modes. A
// negative entry keeps that dimension. For an array opened through a view
// (a field with subarray dimensions, a transform) shape is over the view's
// dimensions: subarray dimensions cannot change, and a dimension whose
// upper bound the transform fixes cannot either.
func (a *Array) ResizeWith(ctx context.Context, shape []int, opt ResizeOptions) error {
	if a.spec != nil && a.spec.spec.AssumeMetadata {
		return errs.New(errs.Unsupported, a.path, "Resize not supported with assume_metadata (the stored metadata is not read or written)")
	}
	base := shape
	if a.spec != nil && a.spec.view != nil {
		var err error
		if base, err = a.spec.view.baseShape(a, shape); err != nil {
			return err
		}
	}
	if len(base) != len(a.meta.Shape) {
		return errs.New(errs.InvalidArgument, a.path, "new shape %v has %d dimensions, the array has %d", shape, len(shape), len(a.meta.Shape))
	}
	for d, n := range base {
		old := a.meta.Shape[d]
		if n < 0 {
			base[d] = old
			continue
		}
		if opt.ExpandOnly && n < old {
			return errs.New(errs.InvalidArgument, a.meta.Key, "Resize operation would shrink output dimension %d from [0, %d) to [0, %d) but `expand_only` was specified", d, old, n)
		}
		if opt.ShrinkOnly && n > old {
			return errs.New(errs.InvalidArgument, a.meta.Key, "Resize operation would expand output dimension %d from [0, %d) to [0, %d) but `shrink_only` was specified", d, old, n)
		}
	}
	if a.spec != nil && a.spec.spec.AssumeCachedMetadata {
		// The metadata was assumed; resizing reads and checks the stored one.
		data, ok, err := get(ctx, a.store, a.meta.Key)
		if err != nil {
			return err
		}
		if !ok {
			return errs.New(errs.NotFound, a.meta.Key, "cannot resize: Metadata at %q does not exist", a.meta.Key)
		}
		if a.spec.v3 != nil {
			stored, err := tsspec.ParseV3Metadata(a.meta.Key, data)
			if err == nil {
				err = a.spec.spec.CheckV3(stored)
			}
			if err != nil {
				return err
			}
		} else {
			stored, err := tsspec.ParseV2Metadata(a.meta.Key, data)
			if err == nil {
				_, err = a.spec.spec.CheckV2(stored)
			}
			if err != nil {
				return err
			}
		}
	}
	if err := a.resize(ctx, base, !opt.MetadataOnly); err != nil {
		return err
	}
	if a.spec != nil && a.spec.v2 != nil {
		for d, n := range base {
			a.spec.v2.Shape[d] = int64(n)
		}
	}
	return nil
}
