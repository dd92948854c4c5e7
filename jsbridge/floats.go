package jsbridge

// The float types JavaScript has no TypedArray for (float16, bfloat16, the
// float8/float6/float4 families) reach it as a Float32Array; the
// conversions are the data type registry's (dtype.Numeric). This file does
// not touch syscall/js.

import "github.com/zarr-wasm/zarr-wasm/zarr/dtype"

// isFloat32Like reports whether dt's elements reach JavaScript widened to
// a Float32Array.
func isFloat32Like(dt *dtype.DataType) bool {
	n := dt.Numeric()
	return n != nil && n.Widened()
}

// widenedItems is how many float32 values n elements of such a type take
// (two per complex number).
func widenedItems(dt *dtype.DataType, n int) int {
	_, items := typedArrayName(dt)
	return n * items
}

// toFloat32 converts n elements of such a type to little-endian float32
// bytes, exactly.
func toFloat32(dt *dtype.DataType, src []byte, n int) []byte {
	out := make([]byte, 4*widenedItems(dt, n))
	dt.Numeric().ToFloat32(out, src[:n*dt.Size])
	return out
}

// fromFloat32 rounds n little-endian float32 values to elements of dt.
func fromFloat32(dt *dtype.DataType, src []byte, n int) []byte {
	out := make([]byte, dt.Size*n)
	dt.Numeric().FromFloat32(out, src[:4*widenedItems(dt, n)])
	return out
}

// typedArrayName is the JS TypedArray holding elements of dt, and how many
// TypedArray items make one element (2 for complex); "" for types that are
// not TypedArrays (strings, objects, structs).
func typedArrayName(dt *dtype.DataType) (string, int) {
	if n := dt.Numeric(); n != nil {
		return n.JSArray, n.JSItems
	}
	if dt.Kind == dtype.Datetime || dt.Kind == dtype.Timedelta {
		return "BigInt64Array", 1 // their int64 ticks
	}
	return "", 0
}
