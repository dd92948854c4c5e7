package tsspec

import (
	"math"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// Drivers are the TensorStore drivers this package reads: "zarr" (whose
// alias is "zarr2") and "zarr3".
var Drivers = []string{"zarr", "zarr2", "zarr3"}

// Spec is a parsed TensorStore spec of a zarr2 or zarr3 array.
type Spec struct {
	// Driver is "zarr" (zarr v2) or "zarr3"; "" when a URL named only a
	// kvstore, for the opener to detect.
	Driver string
	// KvStore is nil when the spec has none (the caller supplies a store);
	// its Path already has the deprecated top-level "path" joined and ends
	// in "/" unless empty.
	KvStore *KvStore

	Open, Create, DeleteExisting         bool
	AssumeMetadata, AssumeCachedMetadata bool

	// V2 holds the zarr2 metadata constraints; V3 the zarr3 ones (raw).
	V2 *V2Constraints
	V3 map[string]jsonx.RawMessage

	// MetadataKey is the zarr2 metadata key (".zarray" unless given).
	MetadataKey string
	// Field selects a field of a structured data type ("" none).
	Field string

	Schema    Schema
	Transform *Transform // nil: none given

	FillMissingDataReads      bool // default true
	StoreDataEqualToFillValue bool

	// CacheBytes is cache_pool.total_bytes_limit (from "cache_pool" or
	// "context"); -1 when not given. CachePool names the resource
	// ("cache_pool", "cache_pool#name"; "" for a pool given inline).
	CacheBytes int64
	CachePool  string
	// RecheckCachedData / RecheckCachedMetadata hold the revalidation
	// bound as given: true, false, "open" or a time; nil when not given.
	RecheckCachedData, RecheckCachedMetadata any
	// DataCopyConcurrency is context.data_copy_concurrency.limit (0: none).
	DataCopyConcurrency int
}

// Parse reads a spec: a JSON object ([]byte, string starting with "{",
// jsonx.RawMessage or map[string]any) or a TensorStore URL string
// ("file:///tmp/a.zarr|zarr2:", "memory://|zarr2:a").
func Parse(spec any) (*Spec, error) {
	var raw []byte
	switch x := spec.(type) {
	case string:
		t := strings.TrimSpace(x)
		if !strings.HasPrefix(t, "{") {
			return ParseURL(t)
		}
		raw = []byte(t)
	case []byte:
		raw = x
	case jsonx.RawMessage:
		raw = x
	case map[string]any:
		b, err := jsonx.Marshal(x, "")
		if err != nil {
			return nil, invalid("spec", "cannot be written as JSON: %v", err)
		}
		raw = b
	default:
		return nil, invalid("spec", "must be a JSON object or a URL string, got %T", spec)
	}
	return parseObject(raw)
}

// ParseURL reads a TensorStore URL pipeline: a kvstore URL, then
// "|zarr2:path" or "|zarr3:path" (the path joined to the kvstore's). A URL
// of a kvstore alone leaves Driver empty, for the opener to detect.
func ParseURL(u string) (*Spec, error) {
	parts := strings.Split(u, "|")
	kv, err := ParseKvStoreURL("spec", parts[0])
	if err != nil {
		return nil, err
	}
	s := newSpec()
	s.KvStore = kv
	if len(parts) > 1 {
		scheme, p, ok := strings.Cut(parts[1], ":")
		if !ok {
			return nil, invalid("spec", "URL component %q is not driver:path", parts[1])
		}
		switch scheme {
		case "zarr2":
			s.Driver = "zarr"
		case "zarr3":
			s.Driver = "zarr3"
		default:
			return nil, unsupported("spec", "URL scheme %q is not supported (zarr2, zarr3)", scheme).WithSuggestion(scheme, []string{"zarr2", "zarr3"})
		}
		if strings.ContainsAny(p, "?#") {
			return nil, invalid("spec", "%s: URLs take no query or fragment", scheme)
		}
		p = strings.TrimPrefix(p, "//")
		dp, err := urlx.Unescape(p)
		if err != nil {
			return nil, invalid("spec", "bad percent-encoding in %q", parts[1])
		}
		kv.Path = joinPath(kv.Path, dp)
	}
	if len(parts) > 2 {
		scheme, _, _ := strings.Cut(parts[2], ":")
		return nil, unsupported("spec", "URL component %q (adapters after the driver) is not supported", scheme)
	}
	kv.Path = directory(kv.Path)
	return s, nil
}

func newSpec() *Spec {
	return &Spec{Open: true, MetadataKey: ".zarray", FillMissingDataReads: true, CacheBytes: -1,
		Schema: Schema{Rank: -1}}
}

// topMembers are the spec members TensorStore defines for the chunked
// drivers; the ones without an effect here are read and ignored.
var ignoredMembers = []string{"metadata_cache_pool", "allow_metadata_mismatch"}

func parseObject(raw []byte) (*Spec, error) {
	o, err := newObject("spec", raw)
	if err != nil {
		return nil, err
	}
	s := newSpec()
	d, ok, err := o.string("driver")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, invalid("spec.driver", "is required (\"zarr2\", \"zarr\" or \"zarr3\")")
	}
	switch d {
	case "zarr", "zarr2":
		s.Driver = "zarr"
	case "zarr3":
		s.Driver = "zarr3"
	default:
		return nil, unsupported("spec.driver", "driver %q is not supported (zarr2, zarr, zarr3)", d).WithSuggestion(d, Drivers)
	}
	if raw, ok := o.get("kvstore"); ok {
		if s.KvStore, err = ParseKvStore("spec.kvstore", raw); err != nil {
			return nil, err
		}
	}
	if p, ok, err := o.string("path"); err != nil {
		return nil, err
	} else if ok {
		if s.KvStore == nil {
			return nil, invalid("spec.path", "\"path\" must be specified in conjunction with \"kvstore\"")
		}
		s.KvStore.Path = joinPath(s.KvStore.Path, p)
	}
	if s.KvStore != nil {
		s.KvStore.Path = directory(s.KvStore.Path)
	}
	if err := s.parseOpenMode(o); err != nil {
		return nil, err
	}
	if raw, ok := o.get("dtype"); ok {
		if s.Schema.DType, err = parseDataType("spec.dtype", raw); err != nil {
			return nil, err
		}
	}
	if r, ok, err := o.int("rank", 0, MaxRank); err != nil {
		return nil, err
	} else if ok {
		s.Schema.Rank = int(r)
	}
	if raw, ok := o.get("schema"); ok {
		if err := parseSchemaInto(&s.Schema, "spec.schema", raw); err != nil {
			return nil, err
		}
	}
	if raw, ok := o.get("transform"); ok {
		if s.Transform, err = ParseTransform("spec.transform", raw); err != nil {
			return nil, err
		}
	}
	if v, ok, err := o.bool("fill_missing_data_reads"); err != nil {
		return nil, err
	} else if ok {
		s.FillMissingDataReads = v
	}
	if s.StoreDataEqualToFillValue, _, err = o.bool("store_data_equal_to_fill_value"); err != nil {
		return nil, err
	}
	if err := s.parseCaching(o); err != nil {
		return nil, err
	}
	if f, ok := o.get("field"); ok && string(f) != "null" {
		// "" is no field, as null.
		if err := jsonx.UnmarshalStrict(f, &s.Field); err != nil {
			return nil, invalid("spec.field", "must be null or a string, got %s", short(f))
		}
	}
	if v, _, err := o.bool("open_as_void"); err != nil {
		return nil, err
	} else if v {
		if s.Field != "" {
			return nil, invalid("spec.open_as_void", "\"field\" and \"open_as_void\" are mutually exclusive")
		}
		return nil, unsupported("spec.open_as_void", "opening as raw bytes is not supported")
	}
	for _, m := range ignoredMembers {
		if raw, ok := o.get(m); ok && m == "allow_metadata_mismatch" && string(raw) != "false" {
			return nil, invalid("spec.allow_metadata_mismatch", "\"allow_metadata_mismatch\" no longer supported")
		}
	}
	if s.Driver == "zarr" {
		if err := s.parseV2Members(o); err != nil {
			return nil, err
		}
	} else if raw, ok := o.get("metadata"); ok {
		if err := jsonx.UnmarshalStrict(raw, &s.V3); err != nil || s.V3 == nil {
			return nil, invalid("spec.metadata", "must be an object")
		}
	}
	if err := o.finish(); err != nil {
		return nil, err
	}
	if s.Transform != nil {
		if err := s.Schema.setRank("spec.transform", s.Transform.Domain.Rank); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// parseOpenMode reads open, create, delete_existing, assume_metadata and
// assume_cached_metadata with TensorStore's rules: neither open nor create
// means open; delete_existing needs create and not open; the assume
// options need open, and assume_metadata wins over assume_cached_metadata.
func (s *Spec) parseOpenMode(o *object) error {
	open, hasOpen, err := o.bool("open")
	if err != nil {
		return err
	}
	create, hasCreate, err := o.bool("create")
	if err != nil {
		return err
	}
	// As TensorStore: giving either member turns off the default open.
	s.Open = open || !hasOpen && !hasCreate
	s.Create = create
	if s.DeleteExisting, _, err = o.bool("delete_existing"); err != nil {
		return err
	}
	if s.AssumeMetadata, _, err = o.bool("assume_metadata"); err != nil {
		return err
	}
	if s.AssumeCachedMetadata, _, err = o.bool("assume_cached_metadata"); err != nil {
		return err
	}
	return s.checkOpenMode()
}

func (s *Spec) checkOpenMode() error {
	if s.AssumeMetadata {
		s.AssumeCachedMetadata = false
	}
	mode := func(format string, args ...any) error {
		return invalid("spec", "Cannot specify an open mode of "+format, args...)
	}
	switch {
	case !s.Open && !s.Create:
		return invalid("spec.open", "neither open nor create is true")
	case s.DeleteExisting && !s.Create:
		return mode("`delete_existing` without `create`")
	case s.DeleteExisting && s.Open:
		return mode("`delete_existing` with `open`")
	case s.DeleteExisting && s.AssumeMetadata:
		return mode("`delete_existing` with `assume_metadata`")
	case s.DeleteExisting && s.AssumeCachedMetadata:
		return mode("`delete_existing` with `assume_cached_metadata`")
	case s.AssumeMetadata && !s.Open:
		return mode("`assume_metadata` without `open`")
	case s.AssumeCachedMetadata && !s.Open:
		return mode("`assume_cached_metadata` without `open`")
	}
	return nil
}

// parseCaching reads cache_pool, data_copy_concurrency, context,
// recheck_cached_data and recheck_cached_metadata.
func (s *Spec) parseCaching(o *object) error {
	pools := map[string]int64{}
	concurrency := map[string]int{}
	if raw, ok := o.get("context"); ok {
		c, err := newObject("spec.context", raw)
		if err != nil {
			return err
		}
		for name, v := range c.members {
			c.used[name] = true
			kind, _, _ := strings.Cut(name, "#")
			switch kind {
			case "cache_pool":
				n, err := parseCachePool("spec.context."+name, v)
				if err != nil {
					return err
				}
				pools[name] = n
			case "data_copy_concurrency":
				n, err := parseConcurrency("spec.context."+name, v)
				if err != nil {
					return err
				}
				concurrency[name] = n
			case "memory_key_value_store", "file_io_concurrency", "file_io_sync", "file_io_mode", "file_io_locking",
				"http_request_concurrency", "http_request_retries", "metadata_cache_pool":
				// Resources of stores and caches this engine does not have.
			default:
				return unsupported("spec.context."+name, "context resource %q is not supported", kind).
					WithSuggestion(kind, []string{"cache_pool", "data_copy_concurrency"})
			}
		}
	}
	resolve := func(member string, defaults string) (jsonx.RawMessage, string, bool) {
		raw, ok := o.get(member)
		if !ok {
			return nil, defaults, true
		}
		var ref string
		if jsonx.UnmarshalStrict(raw, &ref) == nil {
			return nil, ref, true
		}
		return raw, "", true
	}
	raw, ref, _ := resolve("cache_pool", "cache_pool")
	s.CachePool = ref
	switch {
	case raw != nil:
		n, err := parseCachePool("spec.cache_pool", raw)
		if err != nil {
			return err
		}
		s.CacheBytes = n
	default:
		if n, ok := pools[ref]; ok {
			s.CacheBytes = n
		} else if ref != "cache_pool" && !strings.HasPrefix(ref, "cache_pool#") {
			return invalid("spec.cache_pool", "%q does not name a cache_pool resource", ref)
		} else if ref != "cache_pool" {
			return invalid("spec.cache_pool", "no context resource %q", ref)
		}
	}
	raw, ref, _ = resolve("data_copy_concurrency", "data_copy_concurrency")
	switch {
	case raw != nil:
		n, err := parseConcurrency("spec.data_copy_concurrency", raw)
		if err != nil {
			return err
		}
		s.DataCopyConcurrency = n
	default:
		if n, ok := concurrency[ref]; ok {
			s.DataCopyConcurrency = n
		} else if ref != "data_copy_concurrency" {
			return invalid("spec.data_copy_concurrency", "no context resource %q", ref)
		}
	}
	var err error
	if s.RecheckCachedData, err = parseRecheck(o, "recheck_cached_data"); err != nil {
		return err
	}
	if s.RecheckCachedMetadata, err = parseRecheck(o, "recheck_cached_metadata"); err != nil {
		return err
	}
	return nil
}

func parseCachePool(where string, raw jsonx.RawMessage) (int64, error) {
	o, err := newObject(where, raw)
	if err != nil {
		return 0, err
	}
	n, ok, err := o.int("total_bytes_limit", 0, math.MaxInt64)
	if err != nil {
		return 0, err
	}
	if !ok {
		n = 0
	}
	return n, o.finish()
}

func parseConcurrency(where string, raw jsonx.RawMessage) (int, error) {
	o, err := newObject(where, raw)
	if err != nil {
		return 0, err
	}
	lraw, ok := o.get("limit")
	n := 0
	if ok {
		var s string
		if jsonx.UnmarshalStrict(lraw, &s) == nil {
			if s != "shared" {
				return 0, invalid(o.path("limit"), "must be a positive integer or \"shared\"")
			}
		} else {
			v, err := parseInt(o.path("limit"), lraw, 1, 1<<20)
			if err != nil {
				return 0, err
			}
			n = int(v)
		}
	}
	return n, o.finish()
}

// parseRecheck reads a CacheRevalidationBound: true, false, "open" or a
// time in seconds since the epoch.
func parseRecheck(o *object, member string) (any, error) {
	raw, ok := o.get(member)
	if !ok {
		return nil, nil
	}
	var v any
	if err := jsonx.UnmarshalStrict(raw, &v); err != nil {
		return nil, invalid(o.path(member), "must be true, false, \"open\" or a time")
	}
	switch x := v.(type) {
	case bool, float64:
		return x, nil
	case string:
		if x == "open" {
			return x, nil
		}
	}
	return nil, invalid(o.path(member), "must be true, false, \"open\" or a time in seconds, got %s", short(raw))
}
