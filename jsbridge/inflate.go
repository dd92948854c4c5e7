//go:build js && wasm

package jsbridge

import (
	"context"
	"encoding/json"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
)

// Inflating zlib and gzip chunks with the host's native
// DecompressionStream is several times faster than Go's inflate compiled to
// WebAssembly. Encoding stays in Go; when the host has no
// DecompressionStream, or it fails, the Go decoder decides (so errors and
// leniency stay the engine's).

// ignoreRejection swallows a rejection the Go side handles by other means.
var ignoreRejection js.Func

func init() {
	if js.Global().Get("DecompressionStream").Type() != js.TypeFunction {
		return
	}
	ignoreRejection = js.FuncOf(func(js.Value, []js.Value) any { return nil })
	for name, format := range map[string]string{
		"zlib": "deflate", "numcodecs.zlib": "deflate",
		"gzip": "gzip", "numcodecs.gzip": "gzip",
	} {
		goFactory, ok := codec.Lookup(name)
		if !ok {
			continue
		}
		codec.Register(func(cfg json.RawMessage, in codec.Spec) (any, error) {
			c, err := goFactory(cfg, in)
			if err != nil {
				return nil, err
			}
			bb, ok := c.(codec.BytesToBytes)
			if !ok {
				return c, nil
			}
			return &hostInflate{BytesToBytes: bb, format: format}, nil
		}, name)
	}
}

type hostInflate struct {
	codec.BytesToBytes
	format string
}

// maxHostInflate bounds what one chunk may inflate to when the caller does
// not know its size.
const maxHostInflate = 1 << 30

func (h *hostInflate) Decode(b []byte) ([]byte, error) { return h.DecodeLimit(b, 0) }

func (h *hostInflate) DecodeLimit(b []byte, max int) ([]byte, error) {
	if max <= 0 {
		max = maxHostInflate
	}
	if out, ok := inflateOnHost(h.format, b, max); ok {
		return out, nil
	}
	if ld, ok := h.BytesToBytes.(codec.LimitedDecoder); ok {
		return ld.DecodeLimit(b, max)
	}
	return h.BytesToBytes.Decode(b)
}

// inflateOnHost runs b through a DecompressionStream, reading at most max
// bytes; ok is false when the host could not (corrupt data, a gzip stream
// of several members, more than max bytes).
func inflateOnHost(format string, b []byte, max int) ([]byte, bool) {
	ds := js.Global().Get("DecompressionStream").New(format)
	writer := ds.Get("writable").Call("getWriter")
	reader := ds.Get("readable").Call("getReader")
	// Write and close without waiting: the reader drives the stream.
	writer.Call("write", bytesToJS(b)).Call("catch", ignoreRejection)
	writer.Call("close").Call("catch", ignoreRejection)
	out := make([]byte, 0, min(max, 4*len(b)+64))
	ctx := context.Background()
	for {
		res, err := await(ctx, reader.Call("read"))
		if err != nil {
			return nil, false
		}
		if res.Get("done").Bool() {
			return out, true
		}
		chunk := res.Get("value")
		n := chunk.Get("byteLength").Int()
		if len(out)+n > max {
			reader.Call("cancel").Call("catch", ignoreRejection)
			return nil, false
		}
		out = append(out, make([]byte, n)...)
		js.CopyBytesToGo(out[len(out)-n:], chunk)
	}
}
