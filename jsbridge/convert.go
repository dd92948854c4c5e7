//go:build js && wasm

package jsbridge

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

var (
	jsBigInt = js.Global().Get("BigInt")
	jsNumber = js.Global().Get("Number")
)

// typedArray makes a TypedArray of the named kind and copies the
// little-endian bytes into it: one copy, straight into its buffer (a
// Uint8Array of the bytes, and the kind's view over its buffer: four
// crossings into JS instead of eight; every read plan makes three).
func typedArray(name string, data []byte) js.Value {
	if name == "Uint8Array" {
		return bytesToJS(data)
	}
	ctor, size := typedArrayCtor(name)
	u := bytesToJS(data[:len(data)-len(data)%size])
	return ctor.New(u.Get("buffer"))
}

// typedArrayCtors are the TypedArray constructors typedArray has used,
// with their element sizes (looked up once each; the engine's JS side
// runs on one thread).
var typedArrayCtors []typedCtor

type typedCtor struct {
	name string
	ctor js.Value
	size int
}

func typedArrayCtor(name string) (js.Value, int) {
	for _, c := range typedArrayCtors {
		if c.name == name {
			return c.ctor, c.size
		}
	}
	ctor := js.Global().Get(name)
	c := typedCtor{name, ctor, ctor.Get("BYTES_PER_ELEMENT").Int()}
	typedArrayCtors = append(typedArrayCtors, c)
	return c.ctor, c.size
}

// resultToJS builds {data, shape, stride}.
func resultToJS(a *zarr.NDArray) (js.Value, error) {
	data, err := dataToJS(a)
	if err != nil {
		return js.Value{}, err
	}
	o := shapedResult(a.Shape())
	o.Set("data", data)
	return o, nil
}

// shapedResult is a result object with shape and its C-order stride;
// the caller adds the data (or, for a result placed in JS, its id).
func shapedResult(shape []int) js.Value {
	stride := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		stride[i] = s
		s *= shape[i]
	}
	o := jsObject.New()
	o.Set("shape", intsToJS(shape))
	o.Set("stride", intsToJS(stride))
	return o
}

// dataToJS converts the elements of a to the JS values a read returns
// (docs/javascript.md, "What a read returns").
func dataToJS(a *zarr.NDArray) (js.Value, error) {
	dt := a.DType()
	n := a.Len()
	if name, _ := typedArrayName(dt); name != "" {
		if isFloat32Like(dt) {
			if err := budget.Check("result", int64(4*widenedItems(dt, n))); err != nil {
				return js.Value{}, err
			}
			return typedArray(name, toFloat32(dt, a.Bytes(), n)), nil
		}
		return typedArray(name, a.Bytes()), nil
	}
	if dt.Optional && dt.Variable() {
		// strings or Uint8Arrays, null where a value is missing
		objs, err := a.Objects()
		if err != nil {
			return js.Value{}, err
		}
		out := jsArray.New(len(objs))
		for i, o := range objs {
			out.SetIndex(i, valueToJS(o))
		}
		return out, nil
	}
	switch dt.Kind {
	case dtype.Bytes, dtype.Unicode, dtype.String:
		ss, err := a.Strings()
		if err != nil {
			return js.Value{}, err
		}
		return stringsToJS(ss), nil
	case dtype.Void:
		list := make([][]byte, n)
		b := a.Bytes()
		for i := range list {
			list[i] = b[i*dt.Size : (i+1)*dt.Size]
		}
		return bytesListToJS(list), nil
	case dtype.Object, dtype.VarBytes:
		objs, err := a.Objects()
		if err != nil {
			return js.Value{}, err
		}
		if ss, ok := allStrings(objs); ok {
			return stringsToJS(ss), nil
		}
		if bl, ok := allBytes(objs, dt.Kind == dtype.VarBytes); ok {
			return bytesListToJS(bl), nil
		}
		out := jsArray.New(len(objs))
		for i, o := range objs {
			if o == nil && dt.Kind == dtype.VarBytes {
				out.SetIndex(i, jsUint8Array.New(0))
				continue
			}
			out.SetIndex(i, valueToJS(o))
		}
		return out, nil
	case dtype.Struct:
		o := jsObject.New()
		for _, f := range dt.Fields {
			fa, err := a.Field(f.Name)
			if err != nil {
				return js.Value{}, err
			}
			v, err := dataToJS(fa)
			if err != nil {
				return js.Value{}, err
			}
			o.Set(f.Name, v)
		}
		return o, nil
	}
	return js.Value{}, errs.New(errs.Unsupported, dt.String(), "no JavaScript form for this data type")
}

// allStrings returns the values as strings if every one is a string.
func allStrings(objs []any) ([]string, bool) {
	ss := make([]string, len(objs))
	for i, o := range objs {
		s, ok := o.(string)
		if !ok {
			return nil, false
		}
		ss[i] = s
	}
	return ss, len(objs) > 0
}

// allBytes returns the values as byte strings if every one is []byte (nil
// counts as empty for variable-length bytes).
func allBytes(objs []any, nilIsEmpty bool) ([][]byte, bool) {
	bl := make([][]byte, len(objs))
	for i, o := range objs {
		switch b := o.(type) {
		case []byte:
			bl[i] = b
		case nil:
			if !nilIsEmpty {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return bl, len(objs) > 0
}

func bytesToJS(b []byte) js.Value {
	u := jsUint8Array.New(len(b))
	if len(b) > 0 {
		js.CopyBytesToJS(u, b)
	}
	return u
}

func intsToJS(v []int) js.Value {
	out := jsArray.New(len(v))
	for i, x := range v {
		out.SetIndex(i, x)
	}
	return out
}

// bigIntJS returns a BigInt for an integer given in decimal.
func bigIntJS(dec string) js.Value { return jsBigInt.Invoke(dec) }

// scalarToJS converts one element (in-memory bytes) to a JS value: number,
// bigint for 64-bit integers and datetimes, [re, im] for complex, string,
// Uint8Array for void, an object for structs.
func scalarToJS(dt *dtype.DataType, b []byte) js.Value {
	switch dt.Kind {
	case dtype.Bool:
		return js.ValueOf(b[0] != 0)
	case dtype.Int, dtype.Datetime, dtype.Timedelta:
		if dt.Size == 8 {
			return bigIntJS(strconv.FormatInt(dt.LoadInt64(b), 10))
		}
		return js.ValueOf(dt.LoadInt64(b))
	case dtype.Uint:
		if dt.Size == 8 {
			return bigIntJS(strconv.FormatUint(dt.LoadUint64(b), 10))
		}
		return js.ValueOf(dt.LoadUint64(b))
	case dtype.Float:
		if isFloat32Like(dt) {
			f := toFloat32(dt, b, 1)
			return js.ValueOf(float64(math.Float32frombits(binary.LittleEndian.Uint32(f))))
		}
		return js.ValueOf(dt.LoadFloat64(b))
	case dtype.Complex:
		half := dt.ComplexPart()
		return jsArray.New(half.LoadFloat64(b[:half.Size]), half.LoadFloat64(b[half.Size:dt.Size]))
	case dtype.Bytes:
		return js.ValueOf(dtype.Latin1String(b))
	case dtype.Unicode:
		return js.ValueOf(dtype.UnicodeString(b))
	case dtype.Void:
		return bytesToJS(b)
	case dtype.Struct:
		o := jsObject.New()
		for _, f := range dt.Fields {
			if f.Shape == nil {
				o.Set(f.Name, scalarToJS(f.Type, b[f.Offset:f.Offset+f.Type.Size]))
				continue
			}
			arr := jsArray.New(f.Count())
			for k := 0; k < f.Count(); k++ {
				off := f.Offset + k*f.Type.Size
				arr.SetIndex(k, scalarToJS(f.Type, b[off:off+f.Type.Size]))
			}
			o.Set(f.Name, arr)
		}
		return o
	}
	return js.Undefined()
}

// fillToJS converts an array's fill value.
func fillToJS(dt *dtype.DataType, f dtype.Fill) js.Value {
	if f.Null {
		return js.Null()
	}
	if dt.Variable() {
		return valueToJS(f.Value)
	}
	if len(f.Bytes) < dt.Size {
		return js.Null()
	}
	return scalarToJS(dt, f.Bytes)
}

// maxSafe is Number.MAX_SAFE_INTEGER: integers beyond it become BigInt.
const maxSafe = 1<<53 - 1

// valueToJS converts decoded JSON values, attributes and object elements.
func valueToJS(v any) js.Value {
	switch x := v.(type) {
	case nil:
		return js.Null()
	case bool:
		return js.ValueOf(x)
	case string:
		return js.ValueOf(x)
	case []byte:
		return bytesToJS(x)
	case float64:
		return js.ValueOf(x)
	case float32:
		return js.ValueOf(float64(x))
	case int:
		return intToJS(int64(x))
	case int64:
		return intToJS(x)
	case int32:
		return js.ValueOf(int(x))
	case uint64:
		if x > maxSafe {
			return bigIntJS(strconv.FormatUint(x, 10))
		}
		return js.ValueOf(float64(x))
	case jsonx.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return intToJS(i)
		}
		if d := strings.TrimLeft(string(x), "+-"); len(x)-len(d) <= 1 && d != "" && strings.Trim(d, "0123456789") == "" {
			return bigIntJS(string(x)) // (an integer beyond int64: BigInt reads the digits exactly)
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return js.ValueOf(string(x))
		}
		return js.ValueOf(f)
	case []any:
		out := jsArray.New(len(x))
		for i, e := range x {
			out.SetIndex(i, valueToJS(e))
		}
		return out
	case []string:
		return stringsToJS(x)
	case map[string]any:
		o := jsObject.New()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.Set(k, valueToJS(x[k]))
		}
		return o
	case map[string]jsonx.RawMessage:
		o := jsObject.New()
		for k, raw := range x {
			var val any
			if jsonx.Unmarshal(raw, &val) == nil {
				o.Set(k, valueToJS(val))
			}
		}
		return o
	case jsonx.RawMessage:
		var val any
		if jsonx.Unmarshal(x, &val) != nil {
			return js.Null()
		}
		return valueToJS(val)
	}
	return js.ValueOf(fmtx.Sprint(v))
}

func intToJS(i int64) js.Value {
	if i > maxSafe || i < -maxSafe {
		return bigIntJS(strconv.FormatInt(i, 10))
	}
	return js.ValueOf(float64(i))
}

// valueFromJS converts a JS value (elements of object arrays) to Go:
// integers as jsonx.Number, other numbers as float64 (NaN and infinities
// included), Uint8Array as []byte, arrays and plain objects recursively.
// BigInts never reach it: syscall/js cannot tell their type, so the JS
// wrapper turns them into strings or JSON text first.
func valueFromJS(v js.Value) (any, error) {
	switch v.Type() {
	case js.TypeUndefined, js.TypeNull:
		return nil, nil
	case js.TypeBoolean:
		return v.Bool(), nil
	case js.TypeString:
		return v.String(), nil
	case js.TypeNumber:
		f := v.Float()
		if f == math.Trunc(f) && math.Abs(f) <= maxSafe {
			return jsonx.Number(strconv.FormatInt(int64(f), 10)), nil
		}
		return f, nil
	case js.TypeObject:
		if v.InstanceOf(jsUint8Array) {
			data := make([]byte, v.Get("byteLength").Int())
			js.CopyBytesToGo(data, v)
			return data, nil
		}
		if jsArray.Call("isArray", v).Bool() || jsArrayBuffer.Call("isView", v).Bool() {
			n := v.Length()
			out := make([]any, n)
			for i := 0; i < n; i++ {
				e, err := valueFromJS(v.Index(i))
				if err != nil {
					return nil, err
				}
				out[i] = e
			}
			return out, nil
		}
		keys := jsObject.Call("keys", v)
		out := make(map[string]any, keys.Length())
		for i := 0; i < keys.Length(); i++ {
			k := keys.Index(i).String()
			e, err := valueFromJS(v.Get(k))
			if err != nil {
				return nil, err
			}
			if v.Get(k).IsUndefined() {
				continue
			}
			out[k] = e
		}
		return out, nil
	}
	return nil, errs.New(errs.InvalidMetadata, "", "cannot convert a JavaScript %s to JSON", v.Type())
}
