//go:build js && wasm

package jsbridge

import (
	"runtime"
	"sync"
	"syscall/js"
	"unsafe"

	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
)

// The host: the npm package hands each engine one object (setHost,
// npm/lib/host.js) with a view of this instance's memory, through which
//   - its libzstd and libdeflate (compiled to WebAssembly, about three
//     times as fast as the Go codecs compiled to WebAssembly) decode and
//     encode for the engine's codecs (codec.UseHostCodecs), reading and
//     writing Go memory directly: one copy each way, no JS value per chunk;
//   - the engine's own reads (read.go: jsDest) place chunks into results
//     allocated in JS.
// Whatever the host declines, the Go codecs do (or report).

var (
	hostMu  sync.Mutex
	hostObj js.Value
)

func currentHost() (js.Value, bool) {
	hostMu.Lock()
	defer hostMu.Unlock()
	return hostObj, hostObj.Type() == js.TypeObject
}

func init() {
	// setHost(host) (undefined: none; the engine's Go codecs alone, results
	// built in Go and copied out).
	handleSync("setHost", inAny, func(c *bridgeCall) (any, error) {
		hostMu.Lock()
		hostObj = js.Undefined()
		if c.a[0].Type() == js.TypeObject {
			hostObj = c.a[0]
		}
		on := hostObj.Type() == js.TypeObject
		hostMu.Unlock()
		if on {
			codec.UseHostCodecs(jsCodecs{})
		} else {
			codec.UseHostCodecs(nil)
		}
		return nil, nil
	})
}

// goAddr is where b starts in this instance's linear memory (what the
// host's view of it is indexed by). b must stay alive (and Go memory is
// not moved) while JS reads it: the calls are synchronous.
func goAddr(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

func floatsAddr(f []float64) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(f))))
}

// jsCodecs are the host's codecs as codec.HostCodecs.
type jsCodecs struct{}

func (jsCodecs) DecodeInto(format string, dst, src []byte) (int, bool) {
	h, ok := currentHost()
	if !ok || len(dst) == 0 || len(src) == 0 {
		return 0, false
	}
	n := h.Call("decodeInto", format, goAddr(src), len(src), goAddr(dst), len(dst)).Int()
	runtime.KeepAlive(src)
	runtime.KeepAlive(dst)
	return n, n >= 0 && n <= len(dst)
}

func (jsCodecs) Decode(format string, src []byte, limit int) ([]byte, bool) {
	h, ok := currentHost()
	if !ok || len(src) == 0 {
		return nil, false
	}
	res := h.Call("decode", format, goAddr(src), len(src), limit)
	runtime.KeepAlive(src)
	if !res.Truthy() || !res.InstanceOf(jsUint8Array) {
		return nil, false
	}
	n := res.Get("byteLength").Int()
	if n > limit {
		return nil, false
	}
	out := make([]byte, n)
	js.CopyBytesToGo(out, res)
	return out, true
}

// encodeScratch holds the compressed output until its size is known: the
// chunk then gets a slice of its own size (a store may keep it).
var encodeScratch sync.Pool

func (jsCodecs) Encode(format string, level int, checksum bool, src []byte) ([]byte, bool) {
	h, ok := currentHost()
	if !ok || len(src) == 0 {
		return nil, false
	}
	// Above both encoders' bounds (libzstd: n + n/256 + 64 and a frame
	// header; libdeflate: 5 bytes a 5,000 and a gzip header and trailer);
	// output that does not fit is declined and Go's encoder writes it.
	need := len(src) + len(src)/128 + 256
	sp, _ := encodeScratch.Get().(*[]byte)
	if sp == nil || cap(*sp) < need {
		s := make([]byte, need)
		sp = &s
	}
	scratch := (*sp)[:need]
	n := h.Call("encodeInto", format, level, checksum, goAddr(src), len(src), goAddr(scratch), len(scratch)).Int()
	runtime.KeepAlive(src)
	var out []byte
	if n >= 0 && n <= len(scratch) {
		out = append([]byte(nil), scratch[:n]...)
	}
	encodeScratch.Put(sp)
	return out, out != nil
}
