//go:build zarrcore

package zarr

// isPointer: the core WebAssembly build links no reflect, and every store
// it opens is a pointer (the bridge's JS and HTTP stores, this module's
// stores and wrappers) or names its Identity, so each is its own identity,
// as storeIdentity's reflect test in the full build finds.
func isPointer(Store) bool { return true }
