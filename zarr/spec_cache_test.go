package zarr

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// cache_pool and recheck_cached_data map onto the chunk cache: a second
// read of the same chunks comes from the pool without asking the store
// (recheck false), is confirmed with the store (true: the memory store's
// generations say unchanged), or is not cached at all (no cache_pool, as
// TensorStore's default pool of 0 bytes).
func TestSpecCachePool(t *testing.T) {
	ctx := context.Background()
	path := fmt.Sprintf("cache-%d/", time.Now().UnixNano())
	w, err := OpenSpec(ctx, `{"driver": "zarr", "kvstore": {"driver": "memory", "path": "`+path+`"}, "create": true, "dtype": "int32",
		"metadata": {"compressor": null, "chunks": [4]}, "schema": {"domain": {"shape": [8]}, "fill_value": 0}}`)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := NDArrayFromBytes(w.DType(), []int{8}, make([]byte, 32))
	for i := range v.Bytes() {
		v.Bytes()[i] = byte(i + 1)
	}
	if err := w.Write(ctx, nil, v); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, members             string
		hits, revalidated, misses int64
	}{
		{"no cache_pool", ``, 0, 0, 4},
		{"recheck false", `, "cache_pool": {"total_bytes_limit": 1000000}, "recheck_cached_data": false`, 2, 0, 2},
		{"recheck true", `, "context": {"cache_pool#t": {"total_bytes_limit": 1000000}}, "cache_pool": "cache_pool#t", "recheck_cached_data": true`, 0, 2, 2},
		{"recheck open", `, "cache_pool": {"total_bytes_limit": 2000000}, "recheck_cached_data": "open"`, 2, 0, 2},
		{"recheck since a time to come", fmt.Sprintf(`, "cache_pool": {"total_bytes_limit": 3000000}, "recheck_cached_data": %d`, time.Now().Add(time.Hour).Unix()), 0, 2, 2},
	} {
		a, err := OpenSpec(ctx, `{"driver": "zarr", "kvstore": {"driver": "memory", "path": "`+path+`"}`+c.members+`}`)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		before := a.CachePool().Stats()
		for i := 0; i < 2; i++ {
			got, err := a.Read(ctx, nil)
			if err != nil || string(got.Bytes()) != string(v.Bytes()) {
				t.Fatalf("%s: read %v, %v", c.name, got, err)
			}
		}
		s := a.CachePool().Stats()
		hits, rev, miss := s.Hits-before.Hits, s.Revalidated-before.Revalidated, s.Misses-before.Misses
		if c.name == "no cache_pool" {
			if a.CachePool() != DefaultCachePool() || s.Limit != 0 || s.Entries != 0 {
				t.Errorf("%s: pool %+v", c.name, s)
			}
			continue
		}
		if hits != c.hits || rev != c.revalidated || miss != c.misses {
			t.Errorf("%s: hits %d, revalidated %d, misses %d; want %d, %d, %d", c.name, hits, rev, miss, c.hits, c.revalidated, c.misses)
		}
	}
	// Specs naming the same context resource share its pool.
	a, _ := OpenSpec(ctx, `{"driver": "zarr", "kvstore": {"driver": "memory", "path": "`+path+`"}, "context": {"cache_pool": {"total_bytes_limit": 1000000}}}`)
	b, _ := OpenSpec(ctx, `{"driver": "zarr", "kvstore": {"driver": "memory", "path": "`+path+`"}, "context": {"cache_pool": {"total_bytes_limit": 1000000}}}`)
	if a.CachePool() != b.CachePool() || a.CachePool().Stats().Limit != 1000000 {
		t.Errorf("the cache_pool resource is not shared: %p %p", a.CachePool(), b.CachePool())
	}
}

// A spec given as a Go map opens as its JSON text does.
func TestSpecAsMap(t *testing.T) {
	ctx := context.Background()
	a, err := OpenSpec(ctx, map[string]any{"driver": "zarr2", "kvstore": map[string]any{"driver": "memory", "path": fmt.Sprintf("map-%d", time.Now().UnixNano())},
		"create": true, "dtype": "float32", "schema": map[string]any{"domain": map[string]any{"shape": []int{3, 4}}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.Schema()
	if err != nil || s["dtype"] != "float32" || s["rank"] != 2 {
		t.Fatalf("schema %v, %v", s, err)
	}
}
