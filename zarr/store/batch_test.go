package store

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// batchObject serves a Batcher's requests from data, logging each as
// [off, n] (n < 0: to the end).
type batchObject struct {
	data    []byte
	mu      sync.Mutex
	log     [][2]int64
	short   int // answers this many bytes fewer
	fail    error
	block   chan struct{} // when set, requests wait for ctx or for it
	stopped chan struct{} // closed when a request's ctx ends first
}

func (o *batchObject) fetch(ctx context.Context, key, _ string, off, n int64) (Fetched, error) {
	o.mu.Lock()
	o.log = append(o.log, [2]int64{off, n})
	o.mu.Unlock()
	if o.block != nil {
		select {
		case <-o.block:
		case <-ctx.Done():
			close(o.stopped)
			return Fetched{}, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
		}
	}
	if o.fail != nil {
		return Fetched{}, o.fail
	}
	end := int64(len(o.data))
	if n >= 0 {
		end = min(end, off+n)
	}
	return Fetched{Data: o.data[off : end-int64(o.short)]}, nil
}

func TestBatcher(t *testing.T) {
	ctx := context.Background()
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	read := func(b *Batcher, ranges [][2]int64) []RangeResult {
		var wg sync.WaitGroup
		out := make([]RangeResult, len(ranges))
		for i, r := range ranges {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i].Fetched, out[i].Err = b.Read(ctx, "k"+string(rune('a'+i)), "obj", r[0], r[1])
			}()
		}
		wg.Wait()
		return out
	}
	want := func(r [2]int64) []byte {
		if r[1] < 0 {
			return data[r[0]:]
		}
		return data[r[0] : r[0]+r[1]]
	}
	cases := []struct {
		name     string
		opt      BatchOptions
		ranges   [][2]int64
		requests [][2]int64 // in any order
	}{
		{"neighbours merge", BatchOptions{Gap: 10}, [][2]int64{{100, 50}, {0, 10}, {155, 5}, {500, 10}}, [][2]int64{{0, 10}, {100, 60}, {500, 10}}},
		{"overlapping and repeated", BatchOptions{}, [][2]int64{{10, 20}, {15, 20}, {15, 20}}, [][2]int64{{10, 25}}},
		{"a whole read serves the rest", BatchOptions{MaxRequest: 100}, [][2]int64{{300, 5}, {0, -1}, {900, 50}}, [][2]int64{{0, -1}}},
		{"a read to the end serves those after it", BatchOptions{MaxRequest: 100}, [][2]int64{{600, 5}, {500, -1}, {10, 5}}, [][2]int64{{10, 5}, {500, -1}}},
		{"no merging", BatchOptions{Gap: -1}, [][2]int64{{0, 10}, {10, 10}, {5, 2}}, [][2]int64{{0, 10}, {5, 2}, {10, 10}}},
		{"largest request", BatchOptions{MaxRequest: 30}, [][2]int64{{0, 10}, {10, 10}, {20, 10}, {30, 10}}, [][2]int64{{0, 30}, {30, 10}}},
		{"no window", BatchOptions{Window: -1}, [][2]int64{{0, 10}, {10, 10}, {20, 10}}, [][2]int64{{0, 10}, {10, 10}, {20, 10}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &batchObject{data: data}
			if tc.opt.Window == 0 {
				tc.opt.Window = 20 * time.Millisecond
			}
			res := read(NewBatcher(o.fetch, tc.opt), tc.ranges)
			for i, r := range res {
				if r.Err != nil || !bytes.Equal(r.Data, want(tc.ranges[i])) {
					t.Errorf("read %v: %d bytes, %v", tc.ranges[i], len(r.Data), r.Err)
				}
			}
			got := map[[2]int64]bool{}
			for _, r := range o.log {
				got[r] = true
			}
			if len(o.log) != len(tc.requests) {
				t.Errorf("requests %v, want %v", o.log, tc.requests)
			}
			for _, r := range tc.requests {
				if !got[r] {
					t.Errorf("requests %v, want %v", o.log, tc.requests)
				}
			}
			// every read owns its bytes
			for i := range res {
				for j := range res {
					if i != j && len(res[i].Data) > 0 && len(res[j].Data) > 0 && &res[i].Data[len(res[i].Data)-1] == &res[j].Data[len(res[j].Data)-1] {
						t.Errorf("reads %d and %d share bytes", i, j)
					}
				}
			}
		})
	}

	t.Run("a short answer and a failed request name each read", func(t *testing.T) {
		for _, o := range []*batchObject{{data: data, short: 25}, {data: data, fail: errors.New("connection reset")}} {
			res := read(NewBatcher(o.fetch, BatchOptions{}), [][2]int64{{0, 10}, {20, 10}})
			for i, r := range res {
				key := "k" + string(rune('a'+i))
				var e *errs.Error
				if !errors.As(r.Err, &e) || e.Code != errs.Store || e.Where != key {
					t.Errorf("read %d: want a STORE error naming %s, got %v", i, key, r.Err)
				}
			}
		}
	})

	t.Run("the request stops when every read has given up", func(t *testing.T) {
		o := &batchObject{data: data, block: make(chan struct{}), stopped: make(chan struct{})}
		b := NewBatcher(o.fetch, BatchOptions{})
		c1, cancel1 := context.WithCancel(ctx)
		c2, cancel2 := context.WithCancel(ctx)
		var aborted atomic.Int32
		var wg sync.WaitGroup
		for _, c := range []context.Context{c1, c2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := b.Read(c, "k", "obj", 0, 10); errs.CodeOf(err) == errs.Aborted {
					aborted.Add(1)
				}
			}()
		}
		time.Sleep(20 * time.Millisecond) // the request is in flight
		cancel1()
		select {
		case <-o.stopped:
			t.Fatal("the request stopped while a read still waited for it")
		case <-time.After(20 * time.Millisecond):
		}
		cancel2()
		select {
		case <-o.stopped:
		case <-time.After(5 * time.Second):
			t.Fatal("the request went on after every read gave up")
		}
		wg.Wait()
		if aborted.Load() != 2 || len(o.log) != 1 {
			t.Errorf("%d reads aborted (want 2), %d requests (want 1)", aborted.Load(), len(o.log))
		}
	})
}
