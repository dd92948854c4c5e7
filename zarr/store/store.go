// Package store defines the small key/value contract the engine reads and
// writes through, and the stores that need nothing but Go: in memory and a
// directory on the file system. Keys are relative paths ("a/b/.zarray", no
// leading slash). Capabilities beyond Get are optional interfaces; the
// engine checks for them (Has, AsWriter, AsLister: an adapter or wrapper
// whose methods exist but may not work says so with Capable) and falls
// back (a ranged read becomes a whole read, a missing List makes group
// listing rely on metadata).
//
// Versions: a store that can tell which version of a value it read
// implements VersionedReader (Memory: a counter; Directory: the file's
// identity; the HTTP store: ETag or Last-Modified), and one that can write
// on condition ConditionalWriter. The engine ties the reads of one shard to
// one version and a read-modify-write to the version it read; with a store
// that implements neither it works as before but cannot notice changes.
// A wrapper that embeds a store and overrides Get or GetRange must override
// ReadVersion too, or the engine's reads go past it.
package store

import (
	"context"
	"iter"
	"maps"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Store reads keys. An absent key is ok == false with a nil error.
type Store interface {
	Get(ctx context.Context, key string) (data []byte, ok bool, err error)
}

// ByteRange selects bytes of a stored value. Make one with WholeValue,
// Span, From or Last; the zero ByteRange is the whole value, so an unset
// range never means "no bytes".
type ByteRange struct {
	kind   rangeKind
	offset int64
	length int64
}

type rangeKind uint8

const (
	wholeValue rangeKind = iota
	span
	fromOffset
	lastBytes
)

// WholeValue is the whole value (the zero ByteRange).
func WholeValue() ByteRange { return ByteRange{} }

// Span is length bytes from offset.
func Span(offset, length int64) ByteRange {
	return ByteRange{kind: span, offset: offset, length: length}
}

// From is every byte from offset to the end.
func From(offset int64) ByteRange { return ByteRange{kind: fromOffset, offset: offset} }

// Last is the last n bytes.
func Last(n int64) ByteRange { return ByteRange{kind: lastBytes, length: n} }

// IsWhole reports whether r is the whole value.
func (r ByteRange) IsWhole() bool { return r.kind == wholeValue }

// Suffix returns n for Last(n).
func (r ByteRange) Suffix() (n int64, ok bool) { return r.length, r.kind == lastBytes }

// Bounds returns the offset and length of a range that is not a suffix;
// length is -1 for "to the end" (From, WholeValue).
func (r ByteRange) Bounds() (offset, length int64) {
	switch r.kind {
	case span:
		return r.offset, r.length
	case fromOffset:
		return r.offset, -1
	}
	return 0, -1
}

// Resolve returns where r lies in a value of size bytes, or an error when it
// does not fit.
func (r ByteRange) Resolve(size int64) (offset, length int64, err error) {
	if n, ok := r.Suffix(); ok {
		if n < 0 || n > size {
			return 0, 0, fmtx.Errorf("%s of a %d-byte value", r, size)
		}
		return size - n, n, nil
	}
	off, n := r.Bounds()
	if n < 0 {
		n = size - off
	}
	if off < 0 || n < 0 || off > size || n > size-off {
		return 0, 0, fmtx.Errorf("%s of a %d-byte value", r, size)
	}
	return off, n, nil
}

func (r ByteRange) String() string {
	switch r.kind {
	case wholeValue:
		return "the whole value"
	case lastBytes:
		return fmtx.Sprintf("last %d bytes", r.length)
	case fromOffset:
		return fmtx.Sprintf("bytes %d-", r.offset)
	}
	return fmtx.Sprintf("bytes %d-%d", r.offset, r.offset+r.length-1)
}

// RangeReader reads part of a value.
type RangeReader interface {
	GetRange(ctx context.Context, key string, r ByteRange) (data []byte, ok bool, err error)
}

// Writer changes keys.
type Writer interface {
	Set(ctx context.Context, key string, value []byte) error
	Delete(ctx context.Context, key string) error
}

// Lister lists the entries directly under a prefix ("" or ending in "/"):
// keys as names, sub-prefixes as names ending in "/".
type Lister interface {
	List(ctx context.Context, prefix string) ([]string, error)
}

// Capability names an optional part of the store contract.
type Capability int

const (
	CanReadRange Capability = iota + 1 // RangeReader
	CanWrite                           // Writer
	CanList                            // Lister
	CanVersion                         // VersionedReader
	CanWriteIf                         // ConditionalWriter
	// CanTellDenied: ReadVersion marks absent keys the server refused
	// (Versioned.Denied; an object store's 403). Only stores that say so
	// through Capable have it.
	CanTellDenied
)

// Capable is implemented by stores whose methods exist whether or not they
// work: adapters (a JS object with or without set()) and wrappers (over a
// store that may not list). Can tells which do; the As* functions and Has
// ask it.
type Capable interface {
	Can(c Capability) bool
}

// Identifier is implemented by stores whose Go values differ for one
// underlying store (an adapter made per call around one JS object):
// Identity returns a comparable value that is equal for all of them, so
// the engine's chunk cache and write locks treat them as one store.
type Identifier interface {
	Identity() any
}

// Has reports whether s offers capability c.
func Has(s Store, c Capability) bool {
	var ok bool
	switch c {
	case CanReadRange:
		_, ok = s.(RangeReader)
	case CanWrite:
		_, ok = s.(Writer)
	case CanList:
		_, ok = s.(Lister)
	case CanVersion:
		_, ok = s.(VersionedReader)
	case CanWriteIf:
		_, ok = s.(ConditionalWriter)
	case CanTellDenied:
		_, ok = s.(VersionedReader)
		if _, capable := s.(Capable); !capable {
			return false
		}
	}
	if cs, capable := s.(Capable); ok && capable {
		return cs.Can(c)
	}
	return ok
}

// AsWriter returns s as a Writer when it can write.
func AsWriter(s Store) (Writer, bool) {
	if !Has(s, CanWrite) {
		return nil, false
	}
	return s.(Writer), true
}

// AsLister returns s as a Lister when it can list.
func AsLister(s Store) (Lister, bool) {
	if !Has(s, CanList) {
		return nil, false
	}
	return s.(Lister), true
}

// GetRange reads a range through s, falling back to a whole read when s
// cannot read ranges.
func GetRange(ctx context.Context, s Store, key string, r ByteRange) ([]byte, bool, error) {
	if Has(s, CanReadRange) {
		return s.(RangeReader).GetRange(ctx, key, r)
	}
	data, ok, err := s.Get(ctx, key)
	if err != nil || !ok {
		return nil, ok, err
	}
	sub, err := Slice(data, r)
	if err != nil {
		return nil, false, errs.Wrap(errs.Store, key, err, "bad range")
	}
	return sub, true, nil
}

// Slice applies a range to a whole value.
func Slice(data []byte, r ByteRange) ([]byte, error) {
	off, n, err := r.Resolve(int64(len(data)))
	if err != nil {
		return nil, err
	}
	return data[off : off+n], nil
}

// Memory is an in-memory store, safe for concurrent use. Each value has a
// generation from a counter, so reads can be versioned and writes
// conditional.
type Memory struct {
	mu   sync.RWMutex
	m    map[string]memValue
	next uint64
}

type memValue struct {
	data []byte
	gen  Generation
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{m: map[string]memValue{}} }

func (s *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[key]
	return v.data, ok, nil
}

func (s *Memory) GetRange(ctx context.Context, key string, r ByteRange) ([]byte, bool, error) {
	v, err := s.ReadVersion(ctx, key, r, Conditions{})
	return v.Data, v.Found, err
}

func (s *Memory) ReadVersion(_ context.Context, key string, r ByteRange, c Conditions) (Versioned, error) {
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	gen := v.gen
	if !ok {
		gen = Absent
	}
	if pre, done, err := Precheck(key, gen, c); done {
		return pre, err
	}
	sub, err := Slice(v.data, r)
	if err != nil {
		return Versioned{}, errs.Wrap(errs.Store, key, err, "bad range")
	}
	return Versioned{Data: sub, Found: true, Generation: gen}, nil
}

func (s *Memory) Set(ctx context.Context, key string, value []byte) error {
	_, err := s.SetIf(ctx, key, value, "")
	return err
}

func (s *Memory) Delete(ctx context.Context, key string) error {
	return s.DeleteIf(ctx, key, "")
}

func (s *Memory) SetIf(_ context.Context, key string, value []byte, ifMatch Generation) (Generation, error) {
	value = append([]byte(nil), value...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(key, ifMatch); err != nil {
		return "", err
	}
	s.next++
	gen := Generation(strconv.FormatUint(s.next, 10))
	s.m[key] = memValue{value, gen}
	return gen, nil
}

func (s *Memory) DeleteIf(_ context.Context, key string, ifMatch Generation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(key, ifMatch); err != nil {
		return err
	}
	delete(s.m, key)
	return nil
}

// check tests a write's condition; the caller holds the lock.
func (s *Memory) check(key string, ifMatch Generation) error {
	if ifMatch == "" {
		return nil
	}
	gen := Absent
	if v, ok := s.m[key]; ok {
		gen = v.gen
	}
	if gen != ifMatch {
		return Conflict(key, "changed since it was read (version %s, expected %s)", string(gen), string(ifMatch))
	}
	return nil
}

func (s *Memory) List(_ context.Context, prefix string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return ListKeys(maps.Keys(s.m), prefix), nil
}

// ListKeys answers List for a store that knows all its keys: the names
// directly under prefix, with sub-prefixes ending in "/", sorted.
func ListKeys(keys iter.Seq[string], prefix string) []string {
	seen := map[string]bool{}
	for k := range keys {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		rest := k[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seen[rest[:i+1]] = true
		} else if rest != "" {
			seen[rest] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Keys returns every key, sorted (for tests and tools).
func (s *Memory) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.m))
	for k := range s.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
