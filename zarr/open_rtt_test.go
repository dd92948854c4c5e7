package zarr_test

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// waveStore answers reads in waves, as a remote store with a long round
// trip would: a read waits until `width` reads are waiting (or a second
// has passed) and they are answered together. A read answered after
// the second's wait was alone in its wave: it was asked for after
// another read's answer, one round trip later.
type waveStore struct {
	*store.Memory
	width int

	mu      sync.Mutex
	waiting []chan struct{}
	keys    []string
	late    []string // keys answered by the timeout, not a full wave
}

func (w *waveStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	ch := make(chan struct{})
	w.mu.Lock()
	w.keys = append(w.keys, key)
	w.waiting = append(w.waiting, ch)
	if len(w.waiting) == w.width {
		for _, c := range w.waiting {
			close(c)
		}
		w.waiting = nil
	}
	w.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(time.Second):
		w.mu.Lock()
		w.late = append(w.late, key)
		for i, c := range w.waiting {
			if c == ch {
				w.waiting = append(w.waiting[:i], w.waiting[i+1:]...)
				break
			}
		}
		w.mu.Unlock()
	}
	return w.Memory.Get(ctx, key)
}

// Opening an array asks for all of its metadata in one round trip: a v2
// array's .zattrs together with the format probes, not after them.
func TestOpenOneRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		format int
		kind   string
		keys   []string // the reads of one open
	}{
		{2, "array", []string{"a/.zarray", "a/.zattrs", "a/zarr.json"}},
		{3, "array", []string{"a/.zarray", "a/.zattrs", "a/zarr.json"}},
		{2, "", []string{"a/.zarray", "a/.zattrs", "a/.zgroup", "a/zarr.json"}},
	} {
		mem := store.NewMemory()
		if _, err := zarr.CreateArray(ctx, mem, "a", zarr.ArrayOptions{Shape: []int{4}, DType: "uint8", ZarrFormat: tc.format, Attributes: map[string]any{"k": "v"}}); err != nil {
			t.Fatal(err)
		}
		w := &waveStore{Memory: mem, width: len(tc.keys)}
		var (
			n   zarr.Node
			err error
		)
		if tc.kind == "array" {
			n, err = zarr.OpenArray(ctx, w, "a")
		} else {
			n, err = zarr.Open(ctx, w, "a")
		}
		if err != nil {
			t.Fatalf("v%d %q: %v", tc.format, tc.kind, err)
		}
		a := n.(*zarr.Array)
		if a.Attrs()["k"] != "v" {
			t.Errorf("v%d %q: attributes %v", tc.format, tc.kind, a.Attrs())
		}
		sort.Strings(w.keys)
		if strings.Join(w.keys, " ") != strings.Join(tc.keys, " ") {
			t.Errorf("v%d %q: read %v, want %v", tc.format, tc.kind, w.keys, tc.keys)
		}
		if len(w.late) > 0 {
			t.Errorf("v%d %q: %v read in a later round trip", tc.format, tc.kind, w.late)
		}
	}
}

// OpenArray on a v2 group still says what is there.
func TestOpenArrayOnGroup(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	if _, err := zarr.CreateGroup(ctx, mem, "g", zarr.GroupOptions{ZarrFormat: 2}); err != nil {
		t.Fatal(err)
	}
	_, err := zarr.OpenArray(ctx, mem, "g")
	if err == nil || !strings.Contains(err.Error(), "is a group, not an array") {
		t.Fatalf("got %v", err)
	}
}
