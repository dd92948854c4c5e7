// Package store defines the small key/value contract the engine reads and
// writes through, and the stores that need nothing but Go: in memory and a
// directory on the file system. Keys are relative paths ("a/b/.zarray", no
// leading slash). Capabilities beyond Get are optional interfaces; the
// engine checks for them and falls back (a ranged read becomes a whole
// read, a missing List makes group listing rely on metadata).
package store

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Store reads keys. An absent key is ok == false with a nil error.
type Store interface {
	Get(ctx context.Context, key string) (data []byte, ok bool, err error)
}

// ByteRange selects bytes of a value: Length bytes from Offset, or, when
// Suffix > 0, the last Suffix bytes. Length < 0 means to the end.
type ByteRange struct {
	Offset, Length, Suffix int64
}

func (r ByteRange) String() string {
	if r.Suffix > 0 {
		return fmt.Sprintf("last %d bytes", r.Suffix)
	}
	if r.Length < 0 {
		return fmt.Sprintf("bytes %d-", r.Offset)
	}
	return fmt.Sprintf("bytes %d-%d", r.Offset, r.Offset+r.Length-1)
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

// GetRange reads a range through s, falling back to a whole read when s
// cannot read ranges.
func GetRange(ctx context.Context, s Store, key string, r ByteRange) ([]byte, bool, error) {
	if rr, ok := s.(RangeReader); ok {
		return rr.GetRange(ctx, key, r)
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
	n := int64(len(data))
	if r.Suffix > 0 {
		if r.Suffix > n {
			return nil, fmt.Errorf("%s of a %d-byte value", r, n)
		}
		return data[n-r.Suffix:], nil
	}
	end := n
	if r.Length >= 0 {
		end = r.Offset + r.Length
	}
	if r.Offset < 0 || r.Offset > n || end > n || end < r.Offset {
		return nil, fmt.Errorf("%s of a %d-byte value", r, n)
	}
	return data[r.Offset:end], nil
}

// Memory is an in-memory store, safe for concurrent use.
type Memory struct {
	mu sync.RWMutex
	m  map[string][]byte
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{m: map[string][]byte{}} }

func (s *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[key]
	return v, ok, nil
}

func (s *Memory) GetRange(ctx context.Context, key string, r ByteRange) ([]byte, bool, error) {
	v, ok, _ := s.Get(ctx, key)
	if !ok {
		return nil, false, nil
	}
	sub, err := Slice(v, r)
	if err != nil {
		return nil, false, errs.Wrap(errs.Store, key, err, "bad range")
	}
	return sub, true, nil
}

func (s *Memory) Set(_ context.Context, key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append([]byte(nil), value...)
	return nil
}

func (s *Memory) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
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
