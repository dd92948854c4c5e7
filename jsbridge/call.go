//go:build js && wasm

package jsbridge

import (
	"context"
	"errors"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Every async bridge call goes through one wrapper (runAsync), every sync
// one through another (runSync): the
// table entry of a call (handleAsync) says what each of its arguments is
// (an array's handle, a store key, the AbortSignal, ...); the wrapper reads
// and checks them in that order, looks the handles up, makes the call's
// context, and hands the handler a bridgeCall with the typed values. The
// handler does the work; the wrapper ends the context and reports an
// error of a call its signal aborted as ABORTED. One function reads every
// kind of argument (a method per kind cost ~1 KB of the core .wasm each).

// The kinds of arguments, one letter each: a call's table entry is the
// string of its arguments' kinds, by position (inArray + inSelection +
// inSignal), and says where the wrapper puts each in bridgeCall.
const (
	inAny         = "_" // read by the handler (c.a[i])
	inNode        = "n" // the handle of an array or group → node
	inArray       = "a" // the handle of an array → arr
	inOptArray    = "A" // the handle of an array → arr, or not a number → nil
	inGroup       = "g" // the handle of a group → group
	inStore       = "s" // a JS store (or an object carrying a Go store's handle) → store
	inGoStore     = "S" // the handle of a Go store (a zip file's, a reference set) → store
	inRefs        = "r" // the handle of a reference set → handle (full build: readRefs)
	inKey         = "k" // an absolute store key → key (a Go key)
	inRange       = "R" // {offset, length} | {suffixLength} of key → br
	inSelection   = "x" // a selection → sel
	inCoords      = "c" // chunk coordinates of arr, one per dimension → idx
	inChunk       = "C" // the coordinates of a chunk of arr's stored grid → idx
	inChunkBytes  = "b" // the stored bytes of arr's chunk idx, to decode → data
	inOpenOptions = "o" // open's {cacheBytes, recheck} → opts
	inSignal      = "!" // the AbortSignal → ctx (made after the other arguments are checked)
)

// readRefs looks up a reference set's handle (set by the full build).
var readRefs func(v js.Value) (any, error)

// asyncCall is a bridge function that runs in its own goroutine and
// settles the Promise it returns: the kinds of its arguments, by position,
// and its handler.
type asyncCall struct {
	args string
	f    func(c *bridgeCall) (js.Value, error)
}

// bridgeCall is one async call as its handler sees it: the arguments
// (missing ones are undefined) and the values the wrapper read from them.
type bridgeCall struct {
	a      []js.Value
	node   zarr.Node
	arr    *zarr.Array
	group  *zarr.Group
	store  store.Store
	handle any
	key    string
	br     store.ByteRange
	sel    zarr.Selection
	idx    []int
	data   []byte
	opts   []zarr.OpenOption

	// ctx is the call's context: cancelled when its AbortSignal aborts
	// (context.Background() for calls without a signal).
	ctx  context.Context
	done func()
}

// runAsync is the wrapper of every async call: it reads the arguments (the
// first bad one fails the call with its error; the signal last, so bad
// arguments fail with their error even when the signal has aborted), runs
// the handler, ends the call's context (the signal's listener removed),
// and reports the errors of a call its signal aborted as ABORTED, whatever
// layer noticed the cancellation first (abortAware).
func runAsync(f asyncCall, a []js.Value) (js.Value, error) {
	c := &bridgeCall{a: a, ctx: context.Background()}
	defer func() {
		if c.done != nil {
			c.done()
		}
	}()
	signal := -1
	for i := range len(f.args) {
		if k := f.args[i : i+1]; k == inSignal {
			signal = i
		} else if err := readArg(c, k, a[i]); err != nil {
			return js.Value{}, err
		}
	}
	if signal >= 0 {
		if err := callSignal(c, signal); err != nil {
			return js.Value{}, err
		}
	}
	v, err := f.f(c)
	if err != nil {
		return js.Value{}, abortAware(c.ctx, err)
	}
	return v, nil
}

// syncCall is a bridge function that answers at once (no Promise): the
// kinds of its arguments (no signal) and its handler.
type syncCall struct {
	args string
	f    func(c *bridgeCall) (any, error)
}

// runSync is the wrapper of every sync call: it reads the arguments (the
// first bad one answers with its error), runs the handler, and answers an
// error as an error object (errorValue).
func runSync(f syncCall, a []js.Value) any {
	for len(a) < len(f.args) {
		a = append(a, js.Undefined())
	}
	c := &bridgeCall{a: a}
	for i := range len(f.args) {
		if err := readArg(c, f.args[i:i+1], a[i]); err != nil {
			return errorValue(err)
		}
	}
	v, err := f.f(c)
	if err != nil {
		return errorValue(err)
	}
	return v
}

// readArg reads argument v of kind k into c.
func readArg(c *bridgeCall, k string, v js.Value) error {
	var err error
	switch k {
	case inNode, inGroup:
		c.node, err = lookup(v)
		if err == nil && k == inGroup {
			g, ok := c.node.(*zarr.Group)
			if !ok {
				return errs.New(errs.NotFound, c.node.Path(), "is an array, not a group")
			}
			c.group = g
		}
	case inArray:
		c.arr, err = lookupArray(v)
	case inOptArray:
		if v.Type() == js.TypeNumber {
			c.arr, err = lookupArray(v)
		}
	case inStore:
		c.store, err = newStore(v)
	case inGoStore:
		c.store, err = lookupGoStore(v)
	case inRefs:
		c.handle, err = readRefs(v)
	case inKey:
		c.key, err = goKey(v)
	case inRange:
		c.br, err = rangeFromJS(c.key, v)
	case inSelection:
		c.sel, err = selectionFromJS(v)
	case inCoords:
		c.idx, err = coordsFromJS(c.arr, v)
	case inChunk:
		c.idx, err = chunkCoords(c.arr, v)
	case inChunkBytes:
		key := c.arr.ChunkKey(c.idx)
		var ok bool
		c.data, ok, err = bytesFromJS(key, v)
		if err == nil && !ok {
			err = errs.New(errs.Codec, key, "no bytes to decode")
		}
	case inOpenOptions:
		c.opts, err = openOptions(v)
	}
	return err
}

// callSignal makes the call's context from the AbortSignal a[i] (none when
// it is not an object): what the wrapper does for an inSignal argument,
// and what a handler that checks more before its context (set) calls
// itself. An already aborted signal fails the call with ABORTED.
func callSignal(c *bridgeCall, i int) error {
	ctx, done, err := callContext(c.a[i])
	if err != nil {
		return err
	}
	c.ctx, c.done = ctx, done
	return nil
}

// callContext makes the context of one call. A JS AbortSignal cancels it,
// and is passed on to every store call.
func callContext(signal js.Value) (context.Context, func(), error) {
	ctx, cancel := context.WithCancel(context.Background())
	if signal.Type() != js.TypeObject {
		return ctx, cancel, nil
	}
	if signal.Get("aborted").Truthy() {
		cancel()
		return nil, nil, abortError(signal)
	}
	ctx = withSignal(ctx, signal)
	onAbort := js.FuncOf(func(js.Value, []js.Value) any {
		cancel()
		return nil
	})
	signal.Call("addEventListener", "abort", onAbort)
	done := func() {
		signal.Call("removeEventListener", "abort", onAbort)
		onAbort.Release()
		cancel()
	}
	ctx = context.WithValue(ctx, abortSignalKey{}, signal)
	return ctx, done, nil
}

type abortSignalKey struct{}

func abortError(signal js.Value) error {
	msg := "the operation was aborted"
	if r := signal.Get("reason"); r.Type() == js.TypeObject && r.Get("message").Type() == js.TypeString {
		msg += ": " + r.Get("message").String()
	}
	return errs.New(errs.Aborted, "", "%s", msg)
}

// abortAware reports errors of an aborted call as ABORTED (with the
// signal's reason), whatever layer noticed the cancellation first.
func abortAware(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	where := ""
	var ze *errs.Error
	if errors.As(err, &ze) {
		where = ze.Where
	}
	if sig, ok := ctx.Value(abortSignalKey{}).(js.Value); ok {
		e := abortError(sig).(*errs.Error)
		e.Where = where
		return e
	}
	if errs.CodeOf(err) == errs.Aborted {
		return err
	}
	return errs.Wrap(errs.Aborted, where, err, "aborted")
}
