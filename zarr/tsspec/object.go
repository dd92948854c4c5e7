// Package tsspec reads TensorStore JSON specs (and TensorStore URLs) for
// the zarr2 ("zarr") and zarr3 drivers, as TensorStore's documentation
// defines them: the kvstore, the open mode, metadata constraints, schema
// constraints (domain, chunk layout, codec, fill value), the index
// transform, and the options of chunked drivers. It computes what
// TensorStore computes from them without touching a store: the metadata of
// a new array (defaults, the automatic chunk shape), whether stored
// metadata satisfies the constraints, and the Schema and Spec JSON of an
// opened array. Package zarr opens the arrays (zarr.OpenSpec).
package tsspec

import (
	"sort"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// object reads the members of one JSON object and reports those nobody
// asked for, so a misspelt member is an error that suggests the right name.
type object struct {
	where   string // "spec", "spec.metadata", ... for messages
	members map[string]jsonx.RawMessage
	used    map[string]bool
}

func newObject(where string, raw jsonx.RawMessage) (*object, error) {
	var m map[string]jsonx.RawMessage
	if err := jsonx.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, invalid(where, "must be a JSON object, got %s", short(raw))
	}
	return &object{where: where, members: m, used: map[string]bool{}}, nil
}

// get returns a member (marking it read); ok is false when it is absent.
func (o *object) get(name string) (jsonx.RawMessage, bool) {
	o.used[name] = true
	raw, ok := o.members[name]
	return raw, ok
}

// has reports whether a member is present without reading it.
func (o *object) has(name string) bool {
	_, ok := o.members[name]
	return ok
}

func (o *object) path(name string) string { return o.where + "." + name }

// finish fails on the first member no reader asked for, naming it and the
// nearest known member.
func (o *object) finish() error {
	var unknown []string
	for k := range o.members {
		if !o.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	known := make([]string, 0, len(o.used))
	for k := range o.used {
		known = append(known, k)
	}
	sort.Strings(known)
	return unknownMember(o.path(unknown[0]), unknown[0], known, "unknown member")
}

func (o *object) string(name string) (string, bool, error) {
	raw, ok := o.get(name)
	if !ok {
		return "", false, nil
	}
	var s string
	if err := jsonx.UnmarshalStrict(raw, &s); err != nil {
		return "", false, invalid(o.path(name), "must be a string, got %s", short(raw))
	}
	return s, true, nil
}

func (o *object) bool(name string) (bool, bool, error) {
	raw, ok := o.get(name)
	if !ok {
		return false, false, nil
	}
	var b bool
	if err := jsonx.UnmarshalStrict(raw, &b); err != nil {
		return false, false, invalid(o.path(name), "must be true or false, got %s", short(raw))
	}
	return b, true, nil
}

func (o *object) int(name string, lo, hi int64) (int64, bool, error) {
	raw, ok := o.get(name)
	if !ok {
		return 0, false, nil
	}
	n, err := parseInt(o.path(name), raw, lo, hi)
	return n, true, err
}

func parseInt(where string, raw jsonx.RawMessage, lo, hi int64) (int64, error) {
	var n int64
	if err := jsonx.UnmarshalStrict(raw, &n); err != nil {
		return 0, invalid(where, "must be an integer, got %s", short(raw))
	}
	if n < lo || n > hi {
		return 0, invalid(where, "%d is out of range [%d, %d]", n, lo, hi)
	}
	return n, nil
}

// parseInts reads a list of integers in [lo, hi], at most maxRank long.
func parseInts(where string, raw jsonx.RawMessage, lo, hi int64) ([]int64, error) {
	var items []jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(raw, &items); err != nil || items == nil {
		return nil, invalid(where, "must be a list of integers, got %s", short(raw))
	}
	if len(items) > MaxRank {
		return nil, invalid(where, "has %d entries; the rank is at most %d", len(items), MaxRank)
	}
	out := make([]int64, len(items))
	for i, it := range items {
		n, err := parseInt(where, it, lo, hi)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// MaxRank is TensorStore's limit on the number of dimensions.
const MaxRank = 32

// maxIndex bounds every index and extent (TensorStore's kMaxFiniteIndex).
const maxIndex = 1<<62 - 2

func invalid(where, format string, args ...any) *errs.Error {
	return errs.New(errs.InvalidMetadata, where, format, args...)
}

// unknownMember is the error for a member a spec object does not have:
// INVALID_ARGUMENT (as for an unknown option of any call), naming the
// member and the nearest known one.
func unknownMember(where, name string, known []string, format string, args ...any) *errs.Error {
	return errs.New(errs.InvalidArgument, where, format, args...).WithSuggestion(name, known)
}

func unsupported(where, format string, args ...any) *errs.Error {
	return errs.New(errs.Unsupported, where, format, args...)
}

func short(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// canonical returns the JSON text of v with sorted keys, for comparing
// constraints with stored values.
func canonical(raw jsonx.RawMessage) string {
	var v any
	if err := jsonx.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, err := jsonx.Marshal(v, "")
	if err != nil {
		return string(raw)
	}
	return string(b)
}
