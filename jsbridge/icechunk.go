//go:build js && wasm && (!zarrcore || zarricechunk)

package jsbridge

import (
	"context"
	"runtime"
	"sync"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/hostread"
	"github.com/zarr-wasm/zarr-wasm/zarr/icechunk"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Icechunk repositories from JS (zarr/icechunk), in the full build only: in
// the core build they would add 47 KB brotli to what every page downloads
// first (the core build stays under 1.0 MB); the package starts the full
// build when IcechunkStore.open finds icOpen missing from the core one. The npm wrapper's
// IcechunkStore asks icOpen for a store over the repository's files (any
// JS store) and gets an id. The handle is an icechunkHandle: the snapshot
// the JS object reads now, which refresh replaces by the branch's new
// head. open() given the IcechunkStore pins the snapshot of that moment
// (storeHandle), so an array opened before a refresh keeps reading the
// snapshot it was opened at; the object's own get/getRange/list read the
// current one. Virtual chunks are read through a JS function the wrapper
// passes in (jsFetcher: fetch, with the answer's ETag and Last-Modified).

// icechunkHandle is the current snapshot of an IcechunkStore.
type icechunkHandle struct {
	mu  sync.Mutex
	cur *icechunk.Store
}

func (h *icechunkHandle) current() *icechunk.Store {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur
}

// pinned is the store open() reads: the snapshot of the moment.
func (h *icechunkHandle) pinned() store.Store { return h.current() }

func (h *icechunkHandle) Get(ctx context.Context, key string) ([]byte, bool, error) {
	return h.current().Get(ctx, key)
}

func (h *icechunkHandle) GetRange(ctx context.Context, key string, r store.ByteRange) ([]byte, bool, error) {
	return h.current().GetRange(ctx, key, r)
}

func (h *icechunkHandle) List(ctx context.Context, prefix string) ([]string, error) {
	return h.current().List(ctx, prefix)
}

// icechunkOptions reads icOpen's options: {branch, tag, snapshot,
// virtualChunks: {prefix: replacement | true}, manifestCacheBytes}.
func icechunkOptions(o js.Value, read js.Value) (icechunk.Version, icechunk.Options, error) {
	var v icechunk.Version
	opt := icechunk.Options{}
	if read.Type() == js.TypeFunction {
		opt.Fetcher = jsFetcher{read: read}
	}
	if o.Type() != js.TypeObject {
		return v, opt, nil
	}
	for name, dst := range map[string]*string{"branch": &v.Branch, "tag": &v.Tag, "snapshot": &v.Snapshot} {
		switch x := o.Get(name); x.Type() {
		case js.TypeUndefined, js.TypeNull:
		case js.TypeString:
			*dst = x.String()
		default:
			return v, opt, errs.New(errs.InvalidMetadata, name, "the %s option is a string", name)
		}
	}
	if vc := o.Get("virtualChunks"); vc.Type() == js.TypeObject {
		keys := jsObject.Call("keys", vc)
		opt.VirtualChunks = make(map[string]string, keys.Length())
		for i := 0; i < keys.Length(); i++ {
			k := keys.Index(i).String()
			switch x := vc.Get(k); {
			case x.Type() == js.TypeString:
				opt.VirtualChunks[k] = x.String()
			case x.Type() == js.TypeBoolean && x.Bool():
				opt.VirtualChunks[k] = ""
			case x.Type() == js.TypeBoolean:
			default:
				return v, opt, errs.New(errs.InvalidMetadata, "virtualChunks."+k, "a virtualChunks entry maps a location prefix to a replacement prefix or to true")
			}
		}
	} else if vc.Type() != js.TypeUndefined && vc.Type() != js.TypeNull {
		return v, opt, errs.New(errs.InvalidMetadata, "virtualChunks", "virtualChunks is an object mapping location prefixes to replacement prefixes or true")
	}
	if n := o.Get("manifestCacheBytes"); n.Type() == js.TypeNumber {
		opt.ManifestCacheBytes = int64(n.Float())
	}
	return v, opt, nil
}

func lookupIcechunk(c *bridgeCall) (*icechunkHandle, error) {
	h, ok := c.store.(*icechunkHandle)
	if !ok {
		return nil, errs.New(errs.Store, "", "not an Icechunk store")
	}
	return h, nil
}

// icechunkInfo is what JS learns of an opened snapshot.
func icechunkInfo(s *icechunk.Store) js.Value {
	o := jsObject.New()
	o.Set("snapshotId", s.SnapshotID())
	o.Set("specVersion", s.SpecVersion())
	return o
}

func refsToJS(refs []icechunk.Ref) js.Value {
	out := jsArray.New(len(refs))
	for i, r := range refs {
		o := jsObject.New()
		o.Set("name", r.Name)
		o.Set("snapshot", r.Snapshot)
		out.SetIndex(i, o)
	}
	return out
}

func init() {
	// planLocated(id, selection, host, signal) → [the plan's JSON text,
	// the JS store its keys are read from, the function its URLs are read
	// with]: the plan of a read of an array whose store locates its chunks
	// in another (an Icechunk snapshot: planRead answers {"locate": true};
	// only the builds with Icechunk have such a store).
	// Asynchronous: locating chunks may read manifests.
	handleAsync("planLocated", inArray+inSelection+inAny+inSignal, func(c *bridgeCall) (js.Value, error) {
		return planLocated(c.ctx, c.arr, c.sel, c.a[2])
	})
	// The core build decodes Icechunk's dictionary-compressed virtual chunk
	// locations with the host's libzstd (npm/lib/host.js decodeDict).
	icechunk.HostZstdDict = func(dict, src []byte, max int) ([]byte, bool) {
		h, ok := currentHost()
		if !ok || len(src) == 0 || len(dict) == 0 || max <= 0 {
			return nil, false
		}
		out := make([]byte, max)
		n := h.Call("decodeDict", goAddr(src), len(src), goAddr(dict), len(dict), goAddr(out), max).Int()
		runtime.KeepAlive(src)
		runtime.KeepAlive(dict)
		if n < 0 || n > max {
			return nil, false
		}
		return out[:n], true
	}
	// icOpen(store, options, read, signal) → {id, snapshotId, specVersion}
	handleAsync("icOpen", inStore+inAny+inAny+inSignal, func(c *bridgeCall) (js.Value, error) {
		v, opt, err := icechunkOptions(c.a[1], c.a[2])
		if err != nil {
			return js.Value{}, err
		}
		s, err := icechunk.Open(c.ctx, c.store, v, opt)
		if err != nil {
			return js.Value{}, err
		}
		o := icechunkInfo(s)
		o.Set("id", keep(&icechunkHandle{cur: s}))
		return o, nil
	})
	// icRefresh(id, signal) → {snapshotId, specVersion}: the version opened
	// again (a branch's head as it is now)
	handleAsync("icRefresh", inGoStore+inSignal, func(c *bridgeCall) (js.Value, error) {
		h, err := lookupIcechunk(c)
		if err != nil {
			return js.Value{}, err
		}
		s, err := h.current().Refresh(c.ctx)
		if err != nil {
			return js.Value{}, err
		}
		h.mu.Lock()
		h.cur = s
		h.mu.Unlock()
		return icechunkInfo(s), nil
	})
	// icRefs(id, kind, signal) → [{name, snapshot}]: kind "branches" or "tags"
	handleAsync("icRefs", inGoStore+inAny+inSignal, func(c *bridgeCall) (js.Value, error) {
		h, err := lookupIcechunk(c)
		if err != nil {
			return js.Value{}, err
		}
		s := h.current()
		list := s.Branches
		if optString(c.a[1]) == "tags" {
			list = s.Tags
		}
		refs, err := list(c.ctx)
		if err != nil {
			return js.Value{}, err
		}
		return refsToJS(refs), nil
	})
	// icAncestry(id, signal) → [{id, parent, message, time (ms since 1970)}], newest first
	handleAsync("icAncestry", inGoStore+inSignal, func(c *bridgeCall) (js.Value, error) {
		h, err := lookupIcechunk(c)
		if err != nil {
			return js.Value{}, err
		}
		list, err := h.current().Ancestry(c.ctx)
		if err != nil {
			return js.Value{}, err
		}
		out := jsArray.New(len(list))
		for i, a := range list {
			o := jsObject.New()
			o.Set("id", a.ID)
			if a.Parent != "" {
				o.Set("parent", a.Parent)
			} else {
				o.Set("parent", js.Null())
			}
			o.Set("message", a.Message)
			o.Set("time", float64(a.Time.UnixMicro())/1000)
			out.SetIndex(i, o)
		}
		return out, nil
	})
}

// locatedReader is the JS function reading the URLs of l's chunks
// (an Icechunk snapshot's virtual chunks), or undefined.
func locatedReader(l store.Locator) js.Value {
	if ic, ok := l.(*icechunk.Store); ok {
		if f, ok := ic.Fetcher().(jsFetcher); ok {
			return f.read
		}
	}
	return js.Undefined()
}

// locatedIn says whether arr's chunks come from a store that locates them
// (store.Locator) in a JS store, and returns it, that JS store and the JS
// function reading its URLs (undefined when it has none).
func locatedIn(arr *zarr.Array) (store.Locator, *jsStore, js.Value, bool) {
	l, ok := arr.ChunkStore().(store.Locator)
	if !ok {
		return nil, nil, js.Undefined(), false
	}
	src, _ := l.Source().(*jsStore)
	return l, src, locatedReader(l), true
}

func planLocated(ctx context.Context, arr *zarr.Array, sel zarr.Selection, host js.Value) (js.Value, error) {
	l, st, read, _ := locatedIn(arr)
	var p *hostread.Plan
	switch {
	case l == nil || st == nil:
		p = &hostread.Plan{Engine: "a store of the engine", Fixed: true}
	case !st.Can(store.CanReadRange):
		p = &hostread.Plan{Engine: "a store without ranged reads", Fixed: true}
	default:
		var err error
		if p, err = hostread.Located(ctx, arr, sel, hostOf(host), l); err != nil {
			return js.Value{}, err
		}
		if p.Engine == "" && read.Type() != js.TypeFunction {
			for _, f := range p.Fetches {
				if f.URL != "" {
					p = &hostread.Plan{Engine: "no function to read URLs with"}
					break
				}
			}
		}
	}
	b := p.AppendJSON(make([]byte, 0, 256+200*len(p.Fetches)))
	out := jsArray.New(3)
	if p.Engine == "" {
		name, _ := typedArrayName(arr.DType())
		b = append(b[:len(b)-1], `,"array":"`...)
		b = append(b, name...)
		b = append(b, `"}`...)
		out.SetIndex(1, st.obj)
		out.SetIndex(2, read)
	}
	out.SetIndex(0, string(b))
	return out, nil
}
