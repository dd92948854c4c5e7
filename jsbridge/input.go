//go:build js && wasm

package jsbridge

import (
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// typeInfo describes to the JS wrapper how values of dt look in JS, so it
// can coerce what a caller passes to set() before handing it over:
// {js: "Float32Array" | ... | "string" | "bytes" | "object" | "struct",
// items: 2 for complex, fields: [{name, shape, type}] for structs}.
func typeInfo(dt *dtype.DataType) js.Value {
	o := jsObject.New()
	name, items := typedArrayName(dt)
	switch {
	case name != "":
		o.Set("js", name)
		o.Set("items", items)
	case dt.Optional && dt.Variable():
		o.Set("js", "object") // strings (or Uint8Arrays) and nulls
	case dt.Kind == dtype.Bytes || dt.Kind == dtype.Unicode || dt.Kind == dtype.String:
		o.Set("js", "string")
	case dt.Kind == dtype.Void || dt.Kind == dtype.VarBytes:
		o.Set("js", "bytes")
	case dt.Kind == dtype.Object:
		o.Set("js", "object")
	case dt.Kind == dtype.Struct:
		o.Set("js", "struct")
		fields := jsArray.New(len(dt.Fields))
		for i, f := range dt.Fields {
			fo := jsObject.New()
			fo.Set("name", f.Name)
			shape := f.Shape
			if shape == nil {
				shape = []int{}
			}
			fo.Set("shape", intsToJS(shape))
			fo.Set("type", typeInfo(f.Type))
			fields.SetIndex(i, fo)
		}
		o.Set("fields", fields)
	default:
		o.Set("js", "unknown")
	}
	if dt.Size > 0 {
		o.Set("size", dt.Size)
	}
	return o
}

// valueToND converts the descriptor the JS wrapper builds for set():
// {kind: "typed", bytes: Uint8Array, shape}, {kind: "strings", values,
// shape}, {kind: "objects", values, shape} or {kind: "struct", fields:
// {name: descriptor}, shape}. A null shape means the selection's shape.
func valueToND(dt *dtype.DataType, v js.Value, selShape []int) (*zarr.NDArray, error) {
	shape := selShape
	if s := v.Get("shape"); s.Type() == js.TypeObject {
		shape = intsFromJS(s)
	}
	n := nd.Size(shape)
	data, objs, err := elementsFromJS(dt, v, n)
	if err != nil {
		return nil, err
	}
	if objs != nil {
		return zarr.NDArrayFromObjects(dt, shape, objs)
	}
	a, err := zarr.NDArrayFromBytes(dt, shape, data)
	if err != nil {
		return nil, errs.New(errs.InvalidArgument, "", "value: %v", err)
	}
	return a, nil
}

// elementsFromJS returns the element bytes (fixed-size types) or values
// (variable-size types) of n elements.
func elementsFromJS(dt *dtype.DataType, v js.Value, n int) ([]byte, []any, error) {
	kind := v.Get("kind").String()
	switch kind {
	case "typed":
		u := v.Get("bytes")
		raw, err := budget.Bytes("value", u.Get("byteLength").Int())
		if err != nil {
			return nil, nil, err
		}
		js.CopyBytesToGo(raw, u)
		if isFloat32Like(dt) {
			if len(raw) != 4*widenedItems(dt, n) {
				return nil, nil, countError(len(raw)/4, widenedItems(dt, n))
			}
			return fromFloat32(dt, raw, n), nil, nil
		}
		if len(raw) != dt.Size*n {
			return nil, nil, countError(len(raw)/max(dt.Size, 1), n)
		}
		if dt.Kind == dtype.Bool {
			for i, c := range raw {
				if c != 0 {
					raw[i] = 1
				}
			}
		}
		return raw, nil, nil
	case "stringBatch", "bytesBatch":
		var items []any
		var ss []string
		if kind == "stringBatch" {
			var err error
			if ss, err = stringsFromBatch(v, n); err != nil {
				return nil, nil, err
			}
			if dt.Variable() {
				items = make([]any, n)
				for i, s := range ss {
					items[i] = s
				}
			}
		} else {
			bl, err := bytesFromBatch(v, n)
			if err != nil {
				return nil, nil, err
			}
			if dt.Kind == dtype.Void {
				out := make([]byte, dt.Size*n)
				for i, b := range bl {
					if len(b) != dt.Size {
						return nil, nil, errs.New(errs.InvalidArgument, "", "element %d has %d bytes, the type holds %d", i, len(b), dt.Size)
					}
					copy(out[i*dt.Size:], b)
				}
				return out, nil, nil
			}
			if !dt.Variable() {
				return nil, nil, errs.New(errs.InvalidArgument, "", "Uint8Array values cannot be stored as %s", dt)
			}
			items = make([]any, n)
			for i, b := range bl {
				items[i] = b
			}
		}
		if dt.Variable() {
			if dt.Kind == dtype.VarBytes && kind == "stringBatch" {
				return nil, nil, errs.New(errs.InvalidArgument, "", "a bytes array takes Uint8Array values, not strings")
			}
			if dt.Kind == dtype.String && kind == "bytesBatch" {
				return nil, nil, errs.New(errs.InvalidArgument, "", "a string array takes strings, not Uint8Array values")
			}
			return nil, items, nil
		}
		out := make([]byte, dt.Size*n)
		for i, s := range ss {
			if err := putString(dt, out[i*dt.Size:(i+1)*dt.Size], s, i); err != nil {
				return nil, nil, err
			}
		}
		return out, nil, nil
	case "strings", "objects":
		vals := v.Get("values")
		if vals.Length() != n {
			return nil, nil, countError(vals.Length(), n)
		}
		if dt.Variable() {
			objs := make([]any, n)
			for i := range objs {
				e := vals.Index(i)
				if e.Type() == js.TypeObject && e.Get("__json").Type() == js.TypeString {
					val, err := jsonx.Value([]byte(e.Get("__json").String()))
					if err != nil {
						return nil, nil, errs.Wrap(errs.InvalidArgument, "", err, "element %d", i)
					}
					objs[i] = val
					continue
				}
				val, err := valueFromJS(e)
				if err != nil {
					return nil, nil, err
				}
				if val == nil && dt.Optional {
					continue // missing
				}
				if dt.Kind == dtype.String {
					if _, ok := val.(string); !ok {
						return nil, nil, errs.New(errs.InvalidArgument, "", "element %d is not a string", i)
					}
				}
				if dt.Kind == dtype.VarBytes {
					if _, ok := val.([]byte); !ok {
						return nil, nil, errs.New(errs.InvalidArgument, "", "element %d is not a Uint8Array", i)
					}
				}
				objs[i] = val
			}
			return nil, objs, nil
		}
		out := make([]byte, dt.Size*n)
		for i := 0; i < n; i++ {
			e := vals.Index(i)
			b := out[i*dt.Size : (i+1)*dt.Size]
			switch {
			case dt.Kind == dtype.Void && e.InstanceOf(jsUint8Array):
				if e.Get("byteLength").Int() != dt.Size {
					return nil, nil, errs.New(errs.InvalidArgument, "", "element %d has %d bytes, the type holds %d", i, e.Get("byteLength").Int(), dt.Size)
				}
				js.CopyBytesToGo(b, e)
			case e.Type() == js.TypeString && (dt.Kind == dtype.Bytes || dt.Kind == dtype.Unicode):
				if err := putString(dt, b, e.String(), i); err != nil {
					return nil, nil, err
				}
			default:
				return nil, nil, errs.New(errs.InvalidArgument, "", "element %d cannot be stored as %s", i, dt)
			}
		}
		return out, nil, nil
	case "struct":
		if dt.Kind != dtype.Struct {
			return nil, nil, errs.New(errs.InvalidArgument, "", "an object of fields was given for a %s array", dt)
		}
		fields := v.Get("fields")
		out := make([]byte, dt.Size*n)
		for _, f := range dt.Fields {
			fv := fields.Get(f.Name)
			if fv.Type() != js.TypeObject {
				return nil, nil, errs.New(errs.InvalidArgument, f.Name, "the value has no field %q", f.Name)
			}
			cnt := f.Count()
			fb, _, err := elementsFromJS(f.Type, fv, n*cnt)
			if err != nil {
				return nil, nil, err
			}
			fs := f.Type.Size
			for i := 0; i < n; i++ {
				for k := 0; k < cnt; k++ {
					copy(out[i*dt.Size+f.Offset+k*fs:], fb[(i*cnt+k)*fs:(i*cnt+k+1)*fs])
				}
			}
		}
		return out, nil, nil
	}
	return nil, nil, errs.New(errs.InvalidArgument, "", "unknown value kind %q", kind)
}

// putString stores s as one S (Latin-1) or U (UCS4) element.
func putString(dt *dtype.DataType, b []byte, s string, i int) error {
	if dt.Kind == dtype.Unicode {
		if err := dtype.PutUnicode(b, s); err != nil {
			return errs.Wrap(errs.InvalidArgument, "", err, "element %d", i)
		}
		return nil
	}
	if dt.Kind != dtype.Bytes {
		return errs.New(errs.InvalidArgument, "", "element %d: a string cannot be stored as %s", i, dt)
	}
	k := 0
	for _, r := range s {
		if r > 255 {
			return errs.New(errs.InvalidArgument, "", "element %d: %q is not Latin-1 (an S type holds bytes)", i, s)
		}
		if k >= dt.Size {
			return errs.New(errs.InvalidArgument, "", "element %d: %q is longer than %s", i, s, dt)
		}
		b[k] = byte(r)
		k++
	}
	for ; k < len(b); k++ {
		b[k] = 0
	}
	return nil
}

func countError(got, want int) error {
	return errs.New(errs.Selection, "", "the value has %d elements, the selection %d", got, want)
}

func intsFromJS(v js.Value) []int {
	out := make([]int, v.Length())
	for i := range out {
		out[i] = v.Index(i).Int()
	}
	return out
}
