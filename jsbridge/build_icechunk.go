//go:build js && wasm && zarrcore && zarricechunk

package jsbridge

// The Icechunk build: the core build and Icechunk repositories
// (zarr/icechunk), what a page that opens a repository first downloads
// instead of the core build.
const buildName = "icechunk"
