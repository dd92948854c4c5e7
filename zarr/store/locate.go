package store

import "context"

// Locator is a store whose values are stored elsewhere — inline in its own
// metadata, byte ranges of objects in another store, or byte ranges of
// files fetched by URL (an Icechunk snapshot's chunks) — and can say where
// without reading them. A host that reads outside the engine
// (zarr/hostread) then fetches the bytes itself, merging neighbouring
// ranges of one object by the one policy (DefaultCoalescing).
type Locator interface {
	// Source is the store Location.Key values are keys of.
	Source() Store
	// Locate says where key's bytes are; found is false for a key the
	// store does not have. Errors are those reading the key would return
	// for its location (a virtual chunk outside the allowed prefixes, a
	// corrupt manifest).
	Locate(ctx context.Context, key string) (loc Location, found bool, err error)
}

// Location is where a Locator's value is: Data itself (Inline), or Length
// bytes at Offset of the value Key of the Locator's Source, or of the
// file at URL (whose version, when known, is ETag or LastModified: bytes
// of another version must not be used).
type Location struct {
	Inline bool
	Data   []byte

	Key            string
	URL            string
	Offset, Length int64

	ETag         string
	LastModified int64 // seconds since 1970; 0: not recorded
}
