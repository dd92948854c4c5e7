//go:build js && wasm && !zarrcore

package jsbridge

import (
	"syscall/js"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
)

// Reference sets (fsspec / kerchunk, zarr/refs) from JS. The npm wrapper's
// ReferenceStore asks refOpen for a *refs.Store and gets an id; handing the
// ReferenceStore to open() gives the engine that Go store directly (no JS
// in between), and its get/getRange/list methods reach the same store
// through refGet, refGetRange and refList so it also works as a plain
// zarrita-style store. Targets and Parquet files are read through a JS
// function the wrapper passes in (fetch with Range, checked answers,
// retries): jsFetcher.

// refOptions reads the options object of refOpen: baseUrl, target,
// templates ({name: text}), identityUrlMap (the wrapper maps urls itself,
// in JS), sameOrigin, allowedTargets, maxGap, maxBlock, window (ms),
// concurrency, cacheFiles.
func refOptions(o js.Value, read js.Value) (refs.Options, error) {
	opt := refs.Options{Fetcher: jsFetcher{read: read}}
	if o.Type() != js.TypeObject {
		return opt, nil
	}
	opt.BaseURL = optString(o.Get("baseUrl"))
	opt.Target = optString(o.Get("target"))
	if o.Get("identityUrlMap").Truthy() {
		opt.URLMap = func(u string) string { return u }
	}
	opt.SameOrigin = o.Get("sameOrigin").Truthy()
	if a := o.Get("allowedTargets"); a.Type() != js.TypeUndefined && a.Type() != js.TypeNull {
		if !jsArray.Call("isArray", a).Bool() {
			return opt, errs.New(errs.InvalidMetadata, "allowedTargets", "allowedTargets is an array of origins or URL prefixes")
		}
		for i := 0; i < a.Length(); i++ {
			if a.Index(i).Type() != js.TypeString {
				return opt, errs.New(errs.InvalidMetadata, "allowedTargets", "allowedTargets is an array of strings")
			}
			opt.AllowedTargets = append(opt.AllowedTargets, a.Index(i).String())
		}
	}
	if t := o.Get("templates"); t.Type() == js.TypeObject {
		keys := jsObject.Call("keys", t)
		opt.Templates = make(map[string]string, keys.Length())
		for i := 0; i < keys.Length(); i++ {
			k := keys.Index(i).String()
			v := t.Get(k)
			if v.Type() != js.TypeString {
				return opt, errs.New(errs.InvalidMetadata, "templates."+k, "a template override is a string")
			}
			opt.Templates[k] = v.String()
		}
	}
	num := func(name string) (float64, bool, error) {
		v := o.Get(name)
		switch v.Type() {
		case js.TypeUndefined, js.TypeNull:
			return 0, false, nil
		case js.TypeNumber:
			return v.Float(), true, nil
		}
		return 0, false, errs.New(errs.InvalidMetadata, name, "the %s option is a number", name)
	}
	var err error
	set := func(name string, dst *int64) {
		if err != nil {
			return
		}
		var x float64
		var ok bool
		if x, ok, err = num(name); ok {
			*dst = int64(x)
		}
	}
	var gap, block, conc, cache int64
	set("maxGap", &gap)
	set("maxBlock", &block)
	set("concurrency", &conc)
	set("cacheFiles", &cache)
	if err != nil {
		return opt, err
	}
	opt.MaxGap, opt.MaxBlock = gap, block
	opt.Concurrency, opt.CacheFiles = int(conc), int(cache)
	// window in ms: 0 keeps the default, negative means no waiting
	w, ok, err := num("window")
	if err != nil {
		return opt, err
	}
	if ok && w < 0 {
		opt.Window = -1
	} else if ok && w > 0 {
		opt.Window = time.Duration(w * float64(time.Millisecond))
	}
	return opt, nil
}

func lookupRefs(v js.Value) (*refs.Store, error) {
	return lookupHandle[*refs.Store](v, "reference store")
}

func init() {
	readRefs = func(v js.Value) (any, error) { return lookupRefs(v) }
	fn := handleAsync
	// refOpen(mode, source, options, read, signal) → {id}; mode "url"
	// (JSON or a Parquet directory, detected), "json" (source: the bytes,
	// compressed or not) or "parquet".
	fn("refOpen", "", func(c *bridgeCall) (js.Value, error) {
		a := c.a
		mode := optString(a[0])
		if a[3].Type() != js.TypeFunction {
			return js.Value{}, errs.New(errs.Store, "", "refOpen needs a read function")
		}
		opt, err := refOptions(a[2], a[3])
		if err != nil {
			return js.Value{}, err
		}
		if err := callSignal(c, 4); err != nil {
			return js.Value{}, err
		}
		ctx := c.ctx
		var s *refs.Store
		switch mode {
		case "url":
			s, err = refs.FromURL(ctx, optString(a[1]), opt)
		case "parquet":
			s, err = refs.FromParquet(ctx, optString(a[1]), opt)
		case "json":
			var data []byte
			var ok bool
			data, ok, err = bytesFromJS("references", a[1])
			if err == nil && !ok {
				err = errs.New(errs.InvalidMetadata, "", "no reference set given")
			}
			if err == nil {
				s, err = refs.FromJSON(ctx, data, opt)
			}
		default:
			return js.Value{}, errs.New(errs.Store, mode, "unknown reference source")
		}
		if err != nil {
			return js.Value{}, err
		}
		o := jsObject.New()
		o.Set("id", keep(s))
		return o, nil
	})
	// refLookup(id, key, signal) → where a key's bytes are: {inline: true,
	// length} or {url, fetchUrl, offset, length} (length -1: the whole
	// file); undefined for a key without a reference.
	fn("refLookup", inRefs+inKey+inSignal, func(c *bridgeCall) (js.Value, error) {
		r, ok, err := c.handle.(*refs.Store).Lookup(c.ctx, c.key)
		if err != nil {
			return js.Value{}, err
		}
		if !ok {
			return js.Undefined(), nil
		}
		o := jsObject.New()
		if r.Inline {
			o.Set("inline", true)
			o.Set("length", len(r.Data))
			return o, nil
		}
		o.Set("url", r.URL)
		o.Set("fetchUrl", r.FetchURL)
		o.Set("offset", r.Offset)
		o.Set("length", r.Length)
		return o, nil
	})
	// defaultURLMap(url) → the public HTTPS URL of s3:// and gs:// urls
	// (synchronous: the wrapper's urlMap hook offers it to the caller).
	handleSync("defaultURLMap", inAny, func(c *bridgeCall) (any, error) {
		if c.a[0].Type() != js.TypeString {
			return js.Undefined(), nil
		}
		return refs.DefaultURLMap(c.a[0].String()), nil
	})
}
