//go:build !zarrcore

package zarr

import "reflect"

// isPointer reports whether the store is a pointer (its identity for
// storeIdentity).
func isPointer(s Store) bool { return reflect.TypeOf(s).Kind() == reflect.Pointer }
