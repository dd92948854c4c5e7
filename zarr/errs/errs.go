// Package errs defines the typed error every zarr-wasm layer returns: a code
// callers can branch on (and that the JS bridge maps to ZarrError.code), the
// key, path or field that failed, and a "did you mean" suggestion.
package errs

import (
	"errors"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// Code classifies an error. The names are the JavaScript ZarrError codes.
//
// These two blocks are the one list of codes: npm/lib/errors.js's codes,
// npm/index.d.ts's ZarrErrorCode and package zarr's Code constants are
// generated from them, with their comments (go generate, or make codes;
// make test checks they are current).
//
//go:generate go run ../../internal/errcodes
type Code string

// The codes the engine gives.
const (
	// NotFound: no node, key or field of that name (the nearest existing
	// one is suggested).
	NotFound Code = "NOT_FOUND"
	// InvalidMetadata: a metadata document, spec or option breaks the
	// format's rules.
	InvalidMetadata Code = "INVALID_METADATA"
	// Unsupported: valid, but not something zarr-wasm reads or writes yet.
	Unsupported Code = "UNSUPPORTED"
	// Codec: a chunk's stored bytes could not be decoded (or encoded) by
	// its codecs.
	Codec Code = "CODEC"
	// Selection: the selection does not fit the array (out of bounds, a
	// bad step, the wrong number of dimensions).
	Selection Code = "SELECTION"
	// InvalidArgument: an argument or option of a call is wrong: an
	// unknown option (the nearest accepted name is suggested), a value of
	// the wrong type or out of range, two names of one option that
	// disagree.
	InvalidArgument Code = "INVALID_ARGUMENT"
	// Store: the store failed to read, write or list.
	Store Code = "STORE"
	// Aborted: the call was cancelled (its AbortSignal, or context).
	Aborted Code = "ABORTED"
	// ReadOnly: the store, or the node, cannot be written.
	ReadOnly Code = "READ_ONLY"
	// Exists: a node is already there (creating without overwrite).
	Exists Code = "EXISTS"
	// TooLarge: a request would need more memory than the engine's budget
	// (zarr/budget); nothing was allocated, the engine stays usable.
	TooLarge Code = "TOO_LARGE"
	// Conflict: a value changed while it was read (a shard rewritten
	// between its index and its chunks), or kept changing under a write,
	// and retrying did not get past it.
	Conflict Code = "CONFLICT"
	// AccessDenied: the server refused the request (HTTP 403 for every
	// metadata key of a node, a signature or credentials it does not
	// accept): a private bucket, wrong or expired credentials.
	AccessDenied Code = "ACCESS_DENIED"
)

// The codes only the JavaScript package gives (never the engine).
const (
	// EngineExited: the WebAssembly engine stopped (a panic, out of
	// memory) while the call ran; the next call starts a fresh engine, and
	// nodes must be opened again.
	EngineExited Code = "ENGINE_EXITED"
	// Internal: the package itself is broken or incomplete (a file
	// missing, builds that do not match, a decode worker that did not
	// start).
	Internal Code = "INTERNAL"
)

// OtherBuild marks an error that only means "the full build of the engine
// can do this" (see package codec): the npm package then repeats the call
// in the full build.
var OtherBuild = errors.New("not in this build of the engine")

// Error is the error type of the whole engine.
type Error struct {
	Code    Code
	Where   string // the key, path or field that failed (may be empty)
	Msg     string
	Suggest string // a near name, when one exists
	Err     error  // the underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	e.write(&b, "", "", "")
	return b.String()
}

// write appends the message, leaving out what the error it is the cause of
// (code, where and suggestion given) already says.
func (e *Error) write(b *strings.Builder, code Code, where, suggest string) {
	if e.Code != code {
		b.WriteString(string(e.Code))
		b.WriteString(": ")
	}
	if e.Where != "" && e.Where != where {
		b.WriteString(fmtx.Sprintf("%q: ", e.Where))
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		if e.Msg != "" {
			b.WriteString(": ")
		}
		if inner, ok := e.Err.(*Error); ok {
			inner.write(b, e.Code, e.Where, e.Suggest)
		} else {
			b.WriteString(e.Err.Error())
		}
	}
	if e.Suggest != "" && e.Suggest != suggest {
		b.WriteString(fmtx.Sprintf(" (did you mean %q?)", e.Suggest))
	}
}

func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is(err, &Error{Code: X}) match on the code alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Where == "" && t.Msg == "" && t.Code == e.Code
}

// New returns an error with a formatted message.
func New(code Code, where, format string, args ...any) *Error {
	return &Error{Code: code, Where: where, Msg: fmtx.Sprintf(format, args...)}
}

// Wrap returns an error around cause naming where and what failed. A cause
// that already carries a code (an *Error, or an error wrapping one) keeps
// it, and its suggestion: the layer nearest the failure classified it
// best. code is for causes without one (a context's error, an I/O error).
// To give a failure another code on purpose, make a new error (New).
func Wrap(code Code, where string, cause error, format string, args ...any) *Error {
	e := &Error{Code: code, Where: where, Msg: fmtx.Sprintf(format, args...), Err: cause}
	var inner *Error
	if errors.As(cause, &inner) && inner.Code != "" {
		e.Code, e.Suggest = inner.Code, inner.Suggest
	}
	return e
}

// CodeOf returns the code of err, or "" if err is not (and does not wrap) an *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Nearest returns the candidate closest to name by edit distance, or "" if none
// is close enough to be a plausible typo. A namespace both share
// ("numcodecs.", "zarrs.") is not part of the comparison: "numcodecs.pcodec"
// is not a typo of "numcodecs.blosc". The edits allowed grow with the length
// of what is compared: one for up to two characters, at most three.
func Nearest(name string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if c == name {
			continue
		}
		a, b := strings.ToLower(name), strings.ToLower(c)
		if i := strings.LastIndexByte(a, '.'); i >= 0 && strings.HasPrefix(b, a[:i+1]) {
			a, b = a[i+1:], b[i+1:]
		}
		d := levenshtein.ComputeDistance(a, b)
		if d > min(len(a)/3+1, 3) {
			continue
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// WithSuggestion sets Suggest to the nearest candidate and returns e.
func (e *Error) WithSuggestion(name string, candidates []string) *Error {
	e.Suggest = Nearest(name, candidates)
	return e
}

// Unknown is the error for a name a call does not take (an option, a
// spec member, a flag): code InvalidArgument, where the name, the nearest
// accepted name as the suggestion, or else every accepted name in the
// message. what says what was expected ("option of create").
func Unknown(what, name string, accepted []string) *Error {
	e := New(InvalidArgument, name, "unknown %s", what).WithSuggestion(name, accepted)
	if e.Suggest == "" && len(accepted) > 0 {
		e.Msg += "; it takes " + quotedList(accepted)
	}
	return e
}

// CheckNames returns Unknown's error for the first of names (in order)
// that is not in accepted, or nil.
func CheckNames(what string, names, accepted []string) error {
	for _, n := range names {
		known := false
		for _, a := range accepted {
			if n == a {
				known = true
				break
			}
		}
		if !known {
			return Unknown(what, n, accepted)
		}
	}
	return nil
}

func quotedList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(fmtx.Sprintf("%q", n))
	}
	return b.String()
}
