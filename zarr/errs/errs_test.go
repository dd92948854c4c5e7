package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestNearest(t *testing.T) {
	codecs := []string{"numcodecs.blosc", "numcodecs.zlib", "numcodecs.delta", "numcodecs.crc32", "zstd", "blosc", "bytes"}
	for _, c := range []struct{ name, want string }{
		{"numcodecs.pcodec", ""}, // a real codec this list lacks, not a typo of blosc
		{"numcodecs.zfpy", ""},
		{"numcodecs.zlb", "numcodecs.zlib"},
		{"numcodecs.detla", "numcodecs.delta"},
		{"numcodecs.crc23", "numcodecs.crc32"},
		{"zstdd", "zstd"},
		{"bloc", "blosc"},
		{"byte", "bytes"},
		{"gzip", ""},
		{"sharding", ""},
	} {
		if got := Nearest(c.name, codecs); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestWrapKeepsCode(t *testing.T) {
	io := errors.New("connection reset")
	if e := Wrap(Store, "a/0", io, "read failed"); e.Code != Store || e.Error() != `STORE: "a/0": read failed: connection reset` {
		t.Errorf("untyped cause: %v (%s)", e, e.Code)
	}
	// a typed cause keeps its code and suggestion; what the wrapper says
	// again (code, where) is not repeated
	inner := New(NotFound, "a/0", "no such chunk")
	inner.Suggest = "a/1"
	e := Wrap(Store, "a/0", inner, "read failed")
	if e.Code != NotFound || e.Suggest != "a/1" || CodeOf(e) != NotFound {
		t.Errorf("typed cause: code %s, suggest %q", e.Code, e.Suggest)
	}
	if got := e.Error(); got != `NOT_FOUND: "a/0": read failed: no such chunk (did you mean "a/1"?)` {
		t.Errorf("message %q", got)
	}
	// through another wrapper, and with a different where
	e = Wrap(InvalidMetadata, "group", fmt.Errorf("listing: %w", New(Conflict, "g/x", "changed")), "list failed")
	if e.Code != Conflict || !errors.Is(e, &Error{Code: Conflict}) {
		t.Errorf("wrapped typed cause: code %s", e.Code)
	}
	if got := e.Error(); got != `CONFLICT: "group": list failed: listing: CONFLICT: "g/x": changed` {
		t.Errorf("message %q", got)
	}
	e = Wrap(Store, "z", New(Aborted, "k", "stopped"), "")
	if got := e.Error(); got != `ABORTED: "z": "k": stopped` {
		t.Errorf("message %q", got)
	}
}

func TestUnknown(t *testing.T) {
	accepted := []string{"kvstore", "path", "driver"}
	if err := CheckNames("member of a spec", []string{"path", "driver"}, accepted); err != nil {
		t.Fatalf("known names refused: %v", err)
	}
	err := CheckNames("member of a spec", []string{"path", "kvstor"}, accepted)
	var e *Error
	if !errors.As(err, &e) || e.Code != InvalidArgument || e.Where != "kvstor" || e.Suggest != "kvstore" {
		t.Fatalf("misspelled member: %#v", err)
	}
	if got := err.Error(); got != `INVALID_ARGUMENT: "kvstor": unknown member of a spec (did you mean "kvstore"?)` {
		t.Errorf("message %q", got)
	}
	// nothing near: the accepted names are listed
	if got := Unknown("flag", "--verbose", []string{"--all"}).Error(); got != `INVALID_ARGUMENT: "--verbose": unknown flag; it takes "--all"` {
		t.Errorf("message %q", got)
	}
}
