//go:build js && wasm

package jsbridge

import (
	"context"
	"errors"
	"runtime/debug"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

var (
	jsPromise    = js.Global().Get("Promise")
	jsObject     = js.Global().Get("Object")
	jsArray      = js.Global().Get("Array")
	jsUint8Array = js.Global().Get("Uint8Array")
	jsError      = js.Global().Get("Error")
)

// async runs work in its own goroutine and returns a JS Promise for its
// result. The js.Func given to the Promise constructor returns at once: a
// callback must never block, or the event loop (which delivers the store
// promises the work is waiting for) would stop.
func async(work func() (js.Value, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject := args[0], args[1]
		executor.Release() // the Promise constructor calls it exactly once, synchronously
		go func() {
			v, err := safely(work)
			if err != nil {
				reject.Invoke(errorValue(err))
				return
			}
			resolve.Invoke(v)
		}()
		return nil
	})
	return jsPromise.New(executor)
}

// safely calls work and turns a panic into an error, so a bug in one call
// rejects that call's promise instead of ending the Go program (after
// which every later call would fail).
func safely(work func() (js.Value, error)) (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &errs.Error{Code: "INTERNAL", Msg: fmtx.Sprintf("internal error (a bug in zarr-wasm): %v\n%s", r, debug.Stack())}
		}
	}()
	return work()
}

// errorValue is the rejection value the JS wrapper turns into a ZarrError:
// {code, message, where, suggest}.
func errorValue(err error) js.Value {
	o := jsObject.New()
	var ze *errs.Error
	code := "STORE"
	if errors.As(err, &ze) {
		code = string(ze.Code)
		o.Set("where", ze.Where)
		if ze.Suggest != "" {
			o.Set("suggest", ze.Suggest)
		}
	} else if errors.Is(err, context.Canceled) {
		code = string(errs.Aborted)
	}
	if errors.Is(err, errs.OtherBuild) {
		o.Set("otherBuild", true) // the npm wrapper repeats the call in the full build
	}
	o.Set("code", code)
	o.Set("message", err.Error())
	o.Set("__zarrWasmError", true)
	return o
}

// settled is the outcome of a JS promise.
type settled struct {
	value js.Value
	err   error
}

// await waits for a JS value that may be a promise (any thenable) and
// returns what it resolves to; a plain value is returned as it is. It must
// be called from a goroutine of our own, never from inside a js.Func
// callback. When ctx ends first, await returns ctx's error at once; the
// callbacks stay alive until the promise settles and then release
// themselves.
func await(ctx context.Context, v js.Value) (js.Value, error) {
	if v.Type() != js.TypeObject || v.Get("then").Type() != js.TypeFunction {
		return v, nil
	}
	ch := make(chan settled, 1)
	var onOK, onErr js.Func
	release := func() { onOK.Release(); onErr.Release() }
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{value: arg0(args)}
		release()
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{err: jsErr(arg0(args))}
		release()
		return nil
	})
	v.Call("then", onOK, onErr)
	select {
	case r := <-ch:
		return r.value, r.err
	case <-ctx.Done():
		return js.Undefined(), ctx.Err()
	}
}

func arg0(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// jsErrorValue is an error thrown or rejected by JavaScript code.
type jsErrorValue struct {
	name, msg string
	value     js.Value
}

func (e *jsErrorValue) Error() string {
	if e.name != "" && e.name != "Error" {
		return e.name + ": " + e.msg
	}
	return e.msg
}

// jsErr converts a JS rejection reason into a Go error. A ZarrError, or an
// HTTPError (which FetchStore gives the code of an object store's error:
// ACCESS_DENIED, NOT_FOUND, STORE), keeps its code.
func jsErr(v js.Value) error {
	if v.Type() == js.TypeObject {
		name := ""
		if n := v.Get("name"); n.Type() == js.TypeString {
			name = n.String()
		}
		msg := ""
		if m := v.Get("message"); m.Type() == js.TypeString {
			msg = m.String()
		} else {
			msg = js.Global().Get("String").Invoke(v).String()
		}
		if c := v.Get("code"); c.Type() == js.TypeString && (name == "ZarrError" || name == "HTTPError") {
			return &errs.Error{Code: errs.Code(c.String()), Msg: msg}
		}
		return &jsErrorValue{name: name, msg: msg, value: v}
	}
	if v.Type() == js.TypeString {
		return &jsErrorValue{msg: v.String(), value: v}
	}
	return &jsErrorValue{msg: js.Global().Get("String").Invoke(v).String(), value: v}
}

// call invokes a JS method and converts a synchronous throw into an error.
func call(obj js.Value, method string, args ...any) (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = jsErr(je.Value)
				return
			}
			err = fmtx.Errorf("%s: %v", method, r)
		}
	}()
	return obj.Call(method, args...), nil
}
