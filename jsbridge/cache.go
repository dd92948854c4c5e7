//go:build js && wasm

package jsbridge

import (
	"math"
	"syscall/js"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// openOptions reads open()'s cache options: cacheBytes (a pool of that
// many bytes for this node and what is opened through it; 0: no cache;
// absent: the default pool) and recheck (true, false, "open" or seconds),
// and formatHint (core.js: the format of the store's last opened node).
func openOptions(o js.Value) ([]zarr.OpenOption, error) {
	if o.Type() != js.TypeObject {
		return nil, nil
	}
	var opts []zarr.OpenOption
	if b := o.Get("cacheBytes"); !b.IsUndefined() && !b.IsNull() {
		n, err := cacheBytes(b)
		if err != nil {
			return nil, err
		}
		var pool *zarr.CachePool
		if n > 0 {
			pool = zarr.NewCachePool(n)
		}
		opts = append(opts, zarr.WithCache(pool))
	}
	if h := o.Get("formatHint"); h.Type() == js.TypeNumber {
		opts = append(opts, zarr.WithFormatHint(h.Int()))
	}
	if r := o.Get("recheck"); !r.IsUndefined() && !r.IsNull() {
		rc, err := recheckFromJS(r)
		if err != nil {
			return nil, err
		}
		opts = append(opts, zarr.WithRecheck(rc))
	}
	return opts, nil
}

func cacheBytes(v js.Value) (int64, error) {
	if v.Type() != js.TypeNumber || v.Float() < 0 || math.IsNaN(v.Float()) || v.Float() > 1<<53 {
		return 0, errs.New(errs.InvalidArgument, "cacheBytes", "must be a number of bytes ≥ 0")
	}
	return int64(v.Float()), nil
}

// recheckFromJS reads TensorStore's recheck_cached_data forms.
func recheckFromJS(v js.Value) (zarr.Recheck, error) {
	switch v.Type() {
	case js.TypeBoolean:
		if v.Bool() {
			return zarr.RecheckAlways, nil
		}
		return zarr.RecheckNever, nil
	case js.TypeString:
		if v.String() == "open" {
			return zarr.RecheckOpen, nil
		}
	case js.TypeNumber:
		if s := v.Float(); s >= 0 && !math.IsInf(s, 0) {
			return zarr.RecheckAfter(time.Duration(s * float64(time.Second))), nil
		}
	}
	return zarr.Recheck{}, errs.New(errs.InvalidArgument, "recheck", "must be true, false, \"open\" or a number of seconds")
}

func cacheStatsToJS(st zarr.CacheStats) js.Value {
	o := jsObject.New()
	o.Set("hits", st.Hits)
	o.Set("revalidated", st.Revalidated)
	o.Set("misses", st.Misses)
	o.Set("evictions", st.Evictions)
	o.Set("entries", st.Entries)
	o.Set("bytes", st.Bytes)
	o.Set("limit", st.Limit)
	return o
}

func init() {
	// setCacheBytes(n): the default pool's limit (0: off).
	handleSync("setCacheBytes", inAny, func(c *bridgeCall) (any, error) {
		if c.a[0].IsUndefined() {
			return nil, nil
		}
		n, err := cacheBytes(c.a[0])
		if err == nil {
			zarr.DefaultCachePool().SetLimit(n)
		}
		return nil, err
	})
	// cacheStats(id?) → the counters of an array's pool, or of the
	// default pool.
	handleSync("cacheStats", inOptArray, func(c *bridgeCall) (any, error) {
		pool := zarr.DefaultCachePool()
		if c.arr != nil {
			if pool = c.arr.CachePool(); pool == nil {
				return cacheStatsToJS(zarr.CacheStats{}), nil
			}
		}
		return cacheStatsToJS(pool.Stats()), nil
	})
	// clearCache(id?): empties an array's pool, or the default pool.
	handleSync("clearCache", inOptArray, func(c *bridgeCall) (any, error) {
		pool := zarr.DefaultCachePool()
		if c.arr != nil {
			pool = c.arr.CachePool()
		}
		pool.Clear()
		return nil, nil
	})
}
