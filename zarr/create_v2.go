// The .zarray and attributes of a new v2 array, from ArrayOptions, with
// zarr-python's defaults (the document itself is package meta's).

package zarr

import (
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
)

// v2ArrayDocument writes the .zarray of a new v2 array.
func v2ArrayDocument(p string, dt *dtype.DataType, chunks []int, opt ArrayOptions) ([]byte, error) {
	dtJSON, err := dt.V2JSON()
	if err != nil {
		return nil, errs.Wrap(errs.Unsupported, p+": dtype", err, "no v2 form")
	}
	doc := &meta.V2ArrayDocument{Shape: int64s(opt.Shape), Chunks: int64s(chunks), DType: dtJSON, Order: opt.Order}
	switch {
	case opt.NoFill:
		doc.FillValue = nil
	case opt.FillValue == nil && dt.Variable():
		doc.FillValue = 0 // zarr-python's default for object arrays
	default:
		f, err := fillOption(p, dt, opt)
		if err != nil {
			return nil, err
		}
		if doc.FillValue, err = dt.FillV2JSON(f); err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, p+": fill_value", err, "bad fill value")
		}
	}
	if doc.Order == "" {
		doc.Order = "C"
	}
	if opt.Serializer != nil {
		return nil, errs.New(errs.InvalidArgument, p, "Serializer is a v3 option (v2 has no array→bytes codec to choose)")
	}
	if opt.Compressors != nil {
		if opt.Compressor != nil || len(opt.Compressors) > 1 {
			return nil, errs.New(errs.InvalidArgument, p, "a v2 array has one compressor at most (Compressor or one of Compressors)")
		}
		if len(opt.Compressors) == 0 {
			opt.NoCompressor = true
		} else {
			opt.Compressor = opt.Compressors[0]
		}
	}
	switch {
	case opt.NoCompressor || len(opt.Shape) == 0:
		// none: zarr-python never compresses 0-d arrays
	case opt.Compressor != nil:
		doc.Compressor = opt.Compressor
	default:
		doc.Compressor = map[string]any{"id": "zstd", "level": 0}
	}
	if len(opt.Filters) > 0 {
		fl := make([]any, len(opt.Filters))
		for i, f := range opt.Filters {
			fl[i] = f
		}
		doc.Filters = fl
	}
	if opt.DimensionSeparator != "." {
		doc.DimensionSeparator = opt.DimensionSeparator
	}
	data, err := doc.Marshal()
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, p, err, "cannot write metadata")
	}
	return data, nil
}

func int64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, n := range v {
		out[i] = int64(n)
	}
	return out
}

// v2Attributes are the attributes a new v2 array stores: the given ones,
// with DimensionNames as xarray's "_ARRAY_DIMENSIONS".
func v2Attributes(p string, opt ArrayOptions) (map[string]any, error) {
	if opt.DimensionNames == nil {
		return opt.Attributes, nil
	}
	if len(opt.DimensionNames) != len(opt.Shape) {
		return nil, errs.New(errs.InvalidMetadata, p+": dimension_names", "%d names for %d dimensions", len(opt.DimensionNames), len(opt.Shape))
	}
	attrs := make(map[string]any, len(opt.Attributes)+1)
	for k, v := range opt.Attributes {
		attrs[k] = v
	}
	names := make([]any, len(opt.DimensionNames))
	for i, n := range opt.DimensionNames {
		if n == "" {
			return nil, errs.New(errs.InvalidMetadata, p+": dimension_names", "v2 (xarray's %s) names every dimension; name %d is empty", xarrayDims, i)
		}
		names[i] = n
	}
	attrs[xarrayDims] = names
	return attrs, nil
}
