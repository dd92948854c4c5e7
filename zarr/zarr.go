// Package zarr reads and writes Zarr arrays and groups in any key/value
// store: v1 (read), v2 and v3 (read and write; v3 with sharding), with
// consolidated metadata (v2 .zmetadata, v3 inline) and zip stores; OpenSpec
// opens a TensorStore JSON spec (zarr2 and zarr3 drivers). Every format is
// parsed into one array model (package meta), and reading and writing
// chunks work on that model only; creating nodes, SetAttrs and Consolidate
// write each format's own documents (which package meta builds).
//
// An array's chunks are read and decoded in one place, which a pool of
// decoded chunks wraps (CachePool, WithCache, WithRecheck); the reads that
// make one chunk keep to one version of it, and a write into part of a
// chunk starts over when another writer changed the chunk meanwhile (the
// versions of package store). Sizes that input asks for are checked against
// a memory budget before anything is allocated (SetMemoryLimit).
//
//	store, _ := zarr.NewDirectoryStore("data.zarr")
//	arr, _ := zarr.OpenArray(ctx, store, "temperature")
//	sel, _ := zarr.ParseSelection("0:10, ::2")
//	nd, _ := arr.Read(ctx, sel)
package zarr

import (
	"context"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Store is the key/value contract: Get, and optionally GetRange, Set/Delete
// and List (see package store).
type Store = store.Store

// NDArray is an n-dimensional result or input: Shape, Bytes (little-endian,
// C order), Strings, Objects and Field.
type NDArray = nd.Array

// DataType describes an element type.
type DataType = dtype.DataType

// Error is the typed error every function returns; Code tells what failed.
type Error = errs.Error

// ErrorCode classifies errors.
type ErrorCode = errs.Code

// Generated from zarr/errs/errs.go by internal/errcodes (make codes): do not edit.

// Error codes (see package errs).
const (
	CodeNotFound        = errs.NotFound
	CodeInvalidMetadata = errs.InvalidMetadata
	CodeUnsupported     = errs.Unsupported
	CodeCodec           = errs.Codec
	CodeSelection       = errs.Selection
	CodeInvalidArgument = errs.InvalidArgument
	CodeStore           = errs.Store
	CodeAborted         = errs.Aborted
	CodeReadOnly        = errs.ReadOnly
	CodeExists          = errs.Exists
	CodeTooLarge        = errs.TooLarge
	CodeConflict        = errs.Conflict
	CodeAccessDenied    = errs.AccessDenied
)

// End of the generated error codes.

// ErrorCodeOf returns the code of err ("" if it is not a zarr error).
func ErrorCodeOf(err error) ErrorCode { return errs.CodeOf(err) }

// NewMemoryStore returns an empty in-memory store.
func NewMemoryStore() *store.Memory { return store.NewMemory() }

// NewDirectoryStore returns a store over a directory; writes are atomic.
func NewDirectoryStore(root string) (*store.Directory, error) { return store.NewDirectory(root) }

// NewNDArray returns a zeroed array of the given type and shape.
func NewNDArray(dt *DataType, shape []int) *NDArray { return nd.New(dt, shape) }

// NDArrayFromBytes wraps element bytes (little-endian, C order).
func NDArrayFromBytes(dt *DataType, shape []int, data []byte) (*NDArray, error) {
	return nd.FromBytes(dt, shape, data)
}

// NDArrayFromObjects wraps values of an object or string array.
func NDArrayFromObjects(dt *DataType, shape []int, values []any) (*NDArray, error) {
	return nd.FromObjects(dt, shape, values)
}

// Node is an *Array or a *Group.
type Node interface {
	Path() string
	Attrs() map[string]any
	ZarrFormat() int
}

// Child is one entry of Group.Children. A child that exists but cannot be
// opened (an unsupported codec, broken metadata) has Node nil and Err set,
// so one bad array does not hide its siblings.
type Child struct {
	Name string
	Node Node
	Err  error
}

// NewZipStore opens the zip file stored at key in s (a directory, an HTTP
// server, memory) as a read-only store, reading only the bytes it needs
// through range requests. A zip whose only top-level directory holds the
// hierarchy ("zipped from the parent") is rooted at that directory.
func NewZipStore(ctx context.Context, s Store, key string) (*store.Zip, error) {
	return store.NewZip(ctx, s, key)
}
