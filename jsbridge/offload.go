//go:build js && wasm

package jsbridge

import (
	"context"
	"runtime"
	"sync"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr/blosc"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// Decompressing chunks is where reads spend their CPU time, and Go compiled
// to WebAssembly is slow at it and runs on one thread. The host lends help:
//   - host decoders (setHostDecoders; the npm package's libzstd and zlib
//     compiled to WebAssembly), called synchronously, decode zstd, zlib and
//     gzip, and Blosc's zstd and zlib streams, about three times as fast as
//     the Go decoders compiled to WebAssembly;
//   - a pool of workers (npm's useWorkers), each running this module,
//     decodes what only Go decodes, slowly (bz2, lzma; zstd, zlib and gzip
//     when there is no host decoder), while this instance fetches and
//     assembles chunks. Fast codecs stay here: the trip to a worker and back
//     costs more than they take (measured in tests/bench).
// Whatever the host cannot do (no pool, a small chunk, corrupt data), the Go
// decoder here does, so errors and leniency stay the engine's. Encoding
// always stays in Go.

// hostHelp says what the host can do for a codec: decode it with one of its
// host decoders, and which chunks are worth a worker when it cannot.
type hostHelp struct {
	decoder string
	worker  func(chunk []byte) bool
	// direct names a host decoder of whole stored chunks that only the
	// host's own reads use (codec.DirectDecodable): the decoders module's
	// Blosc walker, for npm/lib/direct.js.
	direct string
}

func always([]byte) bool { return true }

// bloscCodecs names the host decoders of Blosc's inner compressors by the
// code in the header's flags byte (zlib 3, zstd 4).
var bloscCodecs = map[byte]string{3: "zlib", 4: "zstd"}

// bloscSlow: Blosc chunks whose streams only Go can decode, slowly.
func bloscSlow(b []byte) bool {
	if len(b) < 3 {
		return false
	}
	name, ok := bloscCodecs[b[2]>>5]
	return ok && !haveHostDecoder(name)
}

// offloaded is keyed by model names (package meta translates v2 ids and
// v3 aliases into them).
var offloaded = map[string]hostHelp{
	"numcodecs.zlib": {decoder: "zlib", worker: always},
	"gzip":           {decoder: "gzip", worker: always},
	"zstd":           {decoder: "zstd", worker: always},
	"numcodecs.bz2":  {worker: always},
	"numcodecs.lzma": {worker: always},
	"blosc":          {worker: bloscSlow, direct: "blosc"},
}

func init() {
	for name, help := range offloaded {
		goFactory, ok := codec.Lookup(name)
		if !ok {
			continue
		}
		codec.Register(func(cfg jsonx.RawMessage, in codec.Spec) (any, error) {
			c, err := goFactory(cfg, in)
			if err != nil {
				return nil, err
			}
			bb, ok := c.(codec.BytesToBytes)
			if !ok {
				return c, nil
			}
			return &hostDecoded{BytesToBytes: bb, name: name, config: string(cfg), hostHelp: help}, nil
		}, name)
	}
}

// hostDecoded is a compressor whose decoding the host may do.
type hostDecoded struct {
	codec.BytesToBytes
	name, config string // rebuilt from these in a worker
	hostHelp
}

func (h *hostDecoded) Decode(b []byte) ([]byte, error) { return h.DecodeLimit(b, 0) }

// HostDecoder names the host decoder that decodes this codec's chunks
// (codec.HostDecodable), or "" when there is none now.
func (h *hostDecoded) HostDecoder() string {
	if h.decoder != "" && haveHostDecoder(h.decoder) {
		return h.decoder
	}
	return ""
}

// DirectDecoder names the host decoder of whole chunks the host's own
// reads may use (codec.DirectDecodable), or "" when there is none now.
func (h *hostDecoded) DirectDecoder() string {
	if h.direct == "" || !haveHostDecoder(h.direct) {
		return ""
	}
	if b, ok := h.BytesToBytes.(interface{ Options() blosc.Options }); ok && !bloscWalked(b.Options()) {
		return ""
	}
	return h.direct
}

// bloscWalked: the chunks Blosc writes with o are ones the decoders
// module's Blosc walker decodes (npm/codecs/glue.c blosc_decode: lz4,
// lz4hc, zstd or zlib streams, no shuffle or byte shuffle). For others
// (blosclz, snappy, bitshuffle) every chunk would be declined, so such
// arrays stay the engine's; a chunk whose header says otherwise than its
// array's settings is declined alone (the engine decodes it).
func bloscWalked(o blosc.Options) bool {
	switch o.Cname {
	case "lz4", "lz4hc", "zstd", "zlib":
		return o.Shuffle == 0 || o.Shuffle == 1 || (o.Shuffle == -1 && o.Typesize > 1)
	}
	return false
}

func (h *hostDecoded) DecodeLimit(b []byte, max int) ([]byte, error) {
	// What a host decoder does fast is not worth the trip to a worker.
	if h.worker != nil && h.worker(b) && !haveHostDecoder(h.decoder) {
		if out, ok := decodeInWorker(h.name, h.config, b, max); ok {
			return out, nil
		}
	}
	return h.decodeHere(b, max)
}

// decodeHere decodes in this instance: a host decoder, else Go.
func (h *hostDecoded) decodeHere(b []byte, max int) ([]byte, error) {
	if out, ok := decodeOnHost(h.decoder, b, max); ok {
		return out, nil
	}
	if ld, ok := h.BytesToBytes.(codec.LimitedDecoder); ok && max > 0 {
		return ld.DecodeLimit(b, max)
	}
	return h.BytesToBytes.Decode(b)
}

// The worker pool, as the npm wrapper registers it: decode(name, config,
// bytes, max) → Promise<Uint8Array | null>, taking only chunks that decode
// to at least minBytes (below that, messaging costs more than it saves).
var (
	poolMu       sync.Mutex
	poolDecode   js.Value
	poolMinBytes int
)

func decodeInWorker(name, config string, b []byte, max int) ([]byte, bool) {
	poolMu.Lock()
	decode, minBytes := poolDecode, poolMinBytes
	poolMu.Unlock()
	size := max // the decoded size, when the chain knows it
	if size <= 0 {
		size = len(b)
	}
	if decode.Type() != js.TypeFunction || size < minBytes {
		return nil, false
	}
	res, err := await(context.Background(), decode.Invoke(name, config, bytesToJS(b), max))
	if err != nil {
		return nil, false
	}
	return copyResult(res, max)
}

// hostDecoders are the host's synchronous decoders by name:
// decode(bytes, max) → Uint8Array, or null to leave the chunk to Go.
var (
	hostDecodersMu sync.Mutex
	hostDecoders   = map[string]js.Value{}
)

// hostDecoder returns the host's decoder called name, if it has one.
func hostDecoder(name string) (js.Value, bool) {
	hostDecodersMu.Lock()
	defer hostDecodersMu.Unlock()
	fn, ok := hostDecoders[name]
	return fn, ok
}

func haveHostDecoder(name string) bool {
	_, ok := hostDecoder(name)
	return ok
}

func decodeOnHost(name string, b []byte, max int) ([]byte, bool) {
	fn, ok := hostDecoder(name)
	if !ok {
		return nil, false
	}
	if max > 0 {
		out := make([]byte, max)
		if n, tried := decodeInto(name, out, b); tried {
			if n < 0 {
				return nil, false
			}
			return out[:n], true
		}
		return copyResult(fn.Invoke(bytesToJS(b), max), max)
	}
	// The decoded size is not known: the host grows its output up to a bound.
	limit := codec.HostDecodeLimit(name, b)
	if limit <= 0 {
		return nil, false
	}
	return copyResult(fn.Invoke(bytesToJS(b), 0, limit), limit)
}

// decodeInto decodes b with the host decoder called name straight from
// and into Go memory (the placer's decodeInto: one copy into the decoder's
// memory, one out of it): n is the decoded size, or -1 when the host
// declines; tried is false when there is no placer (the caller copies
// through JS values instead).
func decodeInto(name string, dst, b []byte) (n int, tried bool) {
	p, have := currentPlacer()
	if !have || len(dst) == 0 || len(b) == 0 {
		return 0, false
	}
	n = p.Call("decodeInto", name, goAddr(b), len(b), goAddr(dst), len(dst)).Int()
	runtime.KeepAlive(b)
	runtime.KeepAlive(dst)
	if n > len(dst) {
		n = -1
	}
	return n, true
}

// hostEncoders are the host's synchronous compressors by format:
// encode(bytes, level, checksum) → Uint8Array, or null to leave it to Go.
var (
	hostEncodersMu sync.Mutex
	hostEncoders   = map[string]js.Value{}
)

// Encode compresses with the host's library when it has one for the
// format (libzstd and zlib compiled to WebAssembly are faster than the Go
// encoders compiled to WebAssembly), else with Go.
func (h *hostDecoded) Encode(b []byte) ([]byte, error) {
	if hc, ok := h.BytesToBytes.(codec.HostCompressor); ok {
		format, level, checksum := hc.HostEncoding()
		hostEncodersMu.Lock()
		fn, ok := hostEncoders[format]
		hostEncodersMu.Unlock()
		if ok {
			if out, tried := encodeInto(format, level, checksum, b); tried {
				if out != nil {
					return out, nil
				}
			} else if out, ok := copyResult(fn.Invoke(bytesToJS(b), level, checksum), 0); ok {
				return out, nil
			}
		}
	}
	return h.BytesToBytes.Encode(b)
}

// encodeScratch holds the compressed output until its size is known: the
// chunk then gets a slice of its own size (a store may keep it).
var encodeScratch sync.Pool

// encodeInto compresses b with the host's encoder for format straight from
// and into Go memory (the placer's encodeInto: one copy into the encoders'
// memory, one out; no JS value per chunk): the output, or nil when the host
// declines; tried is false when there is no placer.
func encodeInto(format string, level int, checksum bool, b []byte) (out []byte, tried bool) {
	p, have := currentPlacer()
	if !have || len(b) == 0 {
		return nil, false
	}
	// Above both encoders' bounds (libzstd: n + n/256 + 64 and a frame
	// header; libdeflate: 5 bytes a 5,000 and a gzip header and trailer);
	// output that does not fit is declined and Go's encoder writes it.
	need := len(b) + len(b)/128 + 256
	sp, _ := encodeScratch.Get().(*[]byte)
	if sp == nil || cap(*sp) < need {
		s := make([]byte, need)
		sp = &s
	}
	scratch := (*sp)[:need]
	n := p.Call("encodeInto", format, level, checksum, goAddr(b), len(b), goAddr(scratch), len(scratch)).Int()
	runtime.KeepAlive(b)
	if n >= 0 && n <= len(scratch) {
		out = append([]byte(nil), scratch[:n]...)
	}
	encodeScratch.Put(sp)
	return out, true
}

// copyResult copies a host decoder's Uint8Array into Go; ok is false for
// anything else, or more than max bytes (when max is known).
func copyResult(res js.Value, max int) ([]byte, bool) {
	if !res.Truthy() || !res.InstanceOf(jsUint8Array) {
		return nil, false
	}
	n := res.Get("byteLength").Int()
	if max > 0 && n > max {
		return nil, false
	}
	out := make([]byte, n)
	js.CopyBytesToGo(out, res)
	return out, true
}

// workerCodecs caches the codecs a worker instance builds from their
// configurations (a zstd decoder is worth keeping).
var (
	workerCodecsMu sync.Mutex
	workerCodecs   = map[string]*hostDecoded{}
)

func workerCodec(name, config string) (*hostDecoded, error) {
	key := name + "\x00" + config
	workerCodecsMu.Lock()
	defer workerCodecsMu.Unlock()
	if c, ok := workerCodecs[key]; ok {
		return c, nil
	}
	if _, ok := offloaded[name]; !ok {
		return nil, errs.New(errs.Unsupported, name, "not a codec workers decode")
	}
	var cfg jsonx.RawMessage
	if config != "" {
		cfg = jsonx.RawMessage(config)
	}
	// Decoding needs no data type: blosc reads its typesize from the chunk.
	c, err := codec.Build(codec.Config{Name: name, Configuration: cfg}, codec.Spec{})
	if err != nil {
		return nil, err
	}
	h, ok := c.(*hostDecoded)
	if !ok {
		return nil, errs.New(errs.Unsupported, name, "not a bytes→bytes codec")
	}
	if len(workerCodecs) >= 64 {
		clear(workerCodecs)
	}
	workerCodecs[key] = h
	return h, nil
}

// funcsOf is the functions among o's own properties, by name (none when o
// is not an object): the host's encoders or decoders.
func funcsOf(o js.Value) map[string]js.Value {
	fns := map[string]js.Value{}
	if o.Type() == js.TypeObject {
		keys := js.Global().Get("Object").Call("keys", o)
		for i := 0; i < keys.Length(); i++ {
			name := keys.Index(i).String()
			if fn := o.Get(name); fn.Type() == js.TypeFunction {
				fns[name] = fn
			}
		}
	}
	return fns
}

func init() {
	fn := handleAsync
	// setDecodeWorkers(decode, minBytes): decode(name, config, bytes, max)
	// → Promise<Uint8Array | null>; null (or no function) decodes here.
	handleSync("setDecodeWorkers", inAny+inAny, func(c *bridgeCall) (any, error) {
		poolMu.Lock()
		defer poolMu.Unlock()
		poolDecode, poolMinBytes = js.Undefined(), 0
		if c.a[0].Type() == js.TypeFunction {
			poolDecode = c.a[0]
			if c.a[1].Type() == js.TypeNumber {
				poolMinBytes = c.a[1].Int()
			}
		}
		return nil, nil
	})
	// setHostEncoders({format: encode(bytes, level, checksum) → Uint8Array | null}).
	handleSync("setHostEncoders", inAny, func(c *bridgeCall) (any, error) {
		encoders := funcsOf(c.a[0])
		hostEncodersMu.Lock()
		hostEncoders = encoders
		hostEncodersMu.Unlock()
		return nil, nil
	})
	// setHostDecoders({name: decode(bytes, max[, limit]) → Uint8Array | null};
	// limit instead of max when the decoded size is not known).
	handleSync("setHostDecoders", inAny, func(c *bridgeCall) (any, error) {
		decoders := funcsOf(c.a[0])
		hostDecodersMu.Lock()
		hostDecoders = decoders
		hostDecodersMu.Unlock()
		// Blosc's streams (one per block) go to the same decoders.
		for _, name := range bloscCodecs {
			var f func(d, s []byte) bool
			if _, ok := decoders[name]; ok {
				f = func(d, s []byte) bool {
					if n, tried := decodeInto(name, d, s); tried {
						return n == len(d)
					}
					out, ok := decodeOnHost(name, s, len(d))
					return ok && len(out) == len(d) && copy(d, out) == len(d)
				}
			}
			_ = blosc.SetStreamDecoder(name, f)
		}
		return nil, nil
	})
	// decodeBytes(name, config, bytes, max) → Uint8Array: what a worker
	// runs for the pool.
	fn("decodeBytes", "", func(c *bridgeCall) (js.Value, error) {
		a := c.a
		name, config := optString(a[0]), optString(a[1])
		dec, err := workerCodec(name, config)
		if err != nil {
			return js.Value{}, err
		}
		b, ok, err := bytesFromJS(name, a[2])
		if err != nil || !ok {
			return js.Value{}, errs.New(errs.Codec, name, "no bytes to decode")
		}
		max := 0
		if a[3].Type() == js.TypeNumber {
			max = a[3].Int()
		}
		out, err := dec.decodeHere(b, max)
		if err != nil {
			return js.Value{}, err
		}
		return bytesToJS(out), nil
	})
}
