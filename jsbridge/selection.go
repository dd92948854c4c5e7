//go:build js && wasm

package jsbridge

import (
	"math"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// selectionFromJS reads a selection: null/undefined (everything), a
// NumPy-style string ("0:10, :, 3"), or an array with one entry per
// dimension: a number, null (the whole dimension), "..." or a slice object
// {start, stop, step} (null for open ends).
func selectionFromJS(v js.Value) (zarr.Selection, error) {
	switch v.Type() {
	case js.TypeUndefined, js.TypeNull:
		return nil, nil
	case js.TypeString:
		return zarr.ParseSelection(v.String())
	case js.TypeNumber:
		i, err := intFromJS(v, "selection")
		if err != nil {
			return nil, err
		}
		return zarr.Selection{zarr.Index(i)}, nil
	case js.TypeObject:
		if !jsArray.Call("isArray", v).Bool() {
			if isSlice(v) {
				it, err := sliceFromJS(v)
				return zarr.Selection{it}, err
			}
			return nil, errs.New(errs.Selection, "", "a selection is null, a string, or an array of numbers, nulls and zarr.slice() values")
		}
		sel := make(zarr.Selection, v.Length())
		for i := range sel {
			e := v.Index(i)
			switch {
			case e.IsNull() || e.IsUndefined():
				sel[i] = zarr.All()
			case e.Type() == js.TypeNumber:
				n, err := intFromJS(e, "selection item")
				if err != nil {
					return nil, err
				}
				sel[i] = zarr.Index(n)
			case e.Type() == js.TypeString && (e.String() == "..." || e.String() == "…"):
				sel[i] = zarr.Ellipsis()
			case e.Type() == js.TypeString && e.String() == ":":
				sel[i] = zarr.All()
			case e.Type() == js.TypeObject && isSlice(e):
				it, err := sliceFromJS(e)
				if err != nil {
					return nil, err
				}
				sel[i] = it
			default:
				return nil, errs.New(errs.Selection, "", "selection item %d must be a number, null, \"...\" or zarr.slice(); got %s", i, js.Global().Get("String").Invoke(e).String())
			}
		}
		return sel, nil
	}
	return nil, errs.New(errs.Selection, "", "bad selection of type %s", v.Type())
}

func isSlice(v js.Value) bool {
	return v.Get("start").Type() != js.TypeUndefined || v.Get("stop").Type() != js.TypeUndefined ||
		v.Get("step").Type() != js.TypeUndefined || v.Get("kind").Type() == js.TypeString
}

func sliceFromJS(v js.Value) (zarr.SelItem, error) {
	bound := func(name string) (*int, error) {
		b := v.Get(name)
		if b.IsNull() || b.IsUndefined() {
			return nil, nil
		}
		n, err := intFromJS(b, "slice "+name)
		if err != nil {
			return nil, err
		}
		return &n, nil
	}
	start, err := bound("start")
	if err != nil {
		return zarr.SelItem{}, err
	}
	stop, err := bound("stop")
	if err != nil {
		return zarr.SelItem{}, err
	}
	step, err := bound("step")
	if err != nil {
		return zarr.SelItem{}, err
	}
	st := 1
	if step != nil {
		st = *step
		if st == 0 {
			return zarr.SelItem{}, errs.New(errs.Selection, "", "slice step cannot be zero")
		}
	}
	return zarr.Slice(start, stop, st), nil
}

func intFromJS(v js.Value, what string) (int, error) {
	if v.Type() != js.TypeNumber {
		return 0, errs.New(errs.Selection, "", "%s must be an integer", what)
	}
	f := v.Float()
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
		return 0, errs.New(errs.Selection, "", "%s must be an integer, got %v", what, f)
	}
	return int(f), nil
}
