package zarr

import (
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// How many chunk-sized buffers a chunk operation holds at its peak, for
// the memory budget (zarr/budget): decoding holds the decompressed bytes
// and the array (a copy when a filter or byte swap runs); encoding the
// array, its serialised bytes and the compressed output; a partial write
// first decodes the stored chunk and copies it.
const (
	decodeCopies  = 2
	encodeCopies  = 3
	rewriteCopies = 2
)

// SetMemoryLimit sets the most memory one request may allocate (n <= 0:
// the default, 4 GiB) and returns the previous limit. In WebAssembly what
// 32-bit memory has left is checked too. A request over the budget fails
// with a TOO_LARGE error before allocating; the engine stays usable.
func SetMemoryLimit(n int64) int64 { return budget.SetLimit(n) }

// elementBytes is the memory one element takes decoded (a variable-length
// element: its string or slice header, the least it can take).
func elementBytes(dt *dtype.DataType) int {
	if dt.Variable() {
		return 16
	}
	return max(dt.Size, 1)
}

// checkChunkWork checks that copies buffers of a chunk of shape fit the
// memory budget.
func (a *Array) checkChunkWork(key string, shape []int, copies int64) error {
	n, ok := nd.CheckedSize(shape, elementBytes(a.meta.DType))
	if !ok {
		return budget.Check(key, 1<<62)
	}
	return budget.Check(key, budget.Mul(int64(n), copies))
}
