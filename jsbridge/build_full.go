//go:build js && wasm && !zarrcore

package jsbridge

// The full build: every codec, writing, reference sets, TensorStore specs.
const buildName = "full"
