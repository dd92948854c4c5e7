//go:build js && wasm && zarrcore

package jsbridge

// The core build: reading only, the common codecs (see package codec).
const buildName = "core"
