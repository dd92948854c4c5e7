package zarr_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

// twoVersions writes one sharded array twice into memory, with values
// valueA(i) and valueB(i); B's first row of inner chunks holds only the
// fill value (so is not stored), and its other inner chunks lie at other
// offsets than A's. It returns the zarr.json and the two shard files.
func twoVersions(t *testing.T) (meta, shardA, shardB []byte) {
	t.Helper()
	ctx := context.Background()
	s := store.NewMemory()
	arr, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{
		Shape: []int{64, 64}, Chunks: []int{8, 8}, ShardShape: []int{64, 64}, DType: "int32",
	})
	if err != nil {
		t.Fatal(err)
	}
	write := func(value func(int) int32) []byte {
		b := make([]byte, 64*64*4)
		for i := range 64 * 64 {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(value(i)))
		}
		nd, _ := zarr.NDArrayFromBytes(arr.DType(), []int{64, 64}, b)
		if err := arr.Write(ctx, nil, nd); err != nil {
			t.Fatal(err)
		}
		data, _, _ := s.Get(ctx, "a/c/0/0")
		return append([]byte(nil), data...)
	}
	shardA = write(valueA)
	shardB = write(valueB)
	meta, _, _ = s.Get(ctx, "a/zarr.json")
	if bytes.Equal(shardA, shardB) {
		t.Fatal("the two versions are the same bytes")
	}
	return meta, shardA, shardB
}

func valueA(i int) int32 { return int32(i) }
func valueB(i int) int32 {
	if i < 8*64 {
		return 0
	}
	return 1_000_000 + int32(uint32(i)*2654435761%(1<<20))
}

// oneVersion checks a read of "3:45, 10:50" is all version A or all B.
func oneVersion(got *zarr.NDArray) (string, bool) {
	b := got.Bytes()
	version := ""
	k := 0
	for i := 3; i < 45; i++ {
		for j := 10; j < 50; j++ {
			v := int32(binary.LittleEndian.Uint32(b[4*k:]))
			k++
			this := ""
			switch v {
			case valueA(i*64 + j):
				this = "A"
			case valueB(i*64 + j):
				this = "B"
			default:
				return "garbage", false
			}
			if version == "" {
				version = this
			} else if version != this {
				return "mixed", false
			}
		}
	}
	return version, true
}

// alternatingServer serves the array with its shard switching between two
// versions (distinct ETags) at random between requests, as a file being
// replaced does. Conditional and Range requests are honoured
// (http.ServeContent).
func alternatingServer(t *testing.T, meta, a, b []byte) *httptest.Server {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(3, 4))
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/a/zarr.json":
			w.Header().Set("ETag", `"meta"`)
			http.ServeContent(w, req, "zarr.json", time.Time{}, bytes.NewReader(meta))
		case "/a/c/0/0":
			mu.Lock()
			data, tag := a, `"A"`
			if r.IntN(2) == 1 {
				data, tag = b, `"B"`
			}
			mu.Unlock()
			w.Header().Set("ETag", tag)
			http.ServeContent(w, req, "0", time.Time{}, bytes.NewReader(data))
		default:
			http.NotFound(w, req)
		}
	}))
}

// plainStore hides a store's versions: the engine cannot tell versions
// apart (the control that shows the check catches mixed reads).
type plainStore struct{ s *zhttp.Store }

func (p plainStore) Get(ctx context.Context, k string) ([]byte, bool, error) { return p.s.Get(ctx, k) }
func (p plainStore) GetRange(ctx context.Context, k string, r store.ByteRange) ([]byte, bool, error) {
	return p.s.GetRange(ctx, k, r)
}

// TestShardReadsOneVersionOverHTTP: 100 reads of a window of a shard that
// a server replaces between requests return version A or version B, never a
// mix, or a CONFLICT error after the retries.
func TestShardReadsOneVersionOverHTTP(t *testing.T) {
	meta, a, b := twoVersions(t)
	srv := alternatingServer(t, meta, a, b)
	defer srv.Close()
	ctx := context.Background()
	hs, err := zhttp.NewStore(srv.URL, zhttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sel, _ := zarr.ParseSelection("3:45, 10:50")
	count := func(s zarr.Store) (good, conflicts, wrong int) {
		arr, err := zarr.OpenArray(ctx, s, "a")
		if err != nil {
			t.Fatal(err)
		}
		for range 100 {
			got, err := arr.Read(ctx, sel)
			switch {
			case zarr.ErrorCodeOf(err) == zarr.CodeConflict:
				conflicts++
			case err != nil && s != zarr.Store(hs):
				wrong++ // a mixed shard may not even decode
			case err != nil:
				t.Fatal(err)
			default:
				if _, ok := oneVersion(got); ok {
					good++
				} else {
					wrong++
				}
			}
		}
		return
	}
	good, conflicts, wrong := count(hs)
	t.Logf("versioned: %d reads of one version, %d CONFLICT errors, %d wrong", good, conflicts, wrong)
	if wrong != 0 || good < 50 {
		t.Errorf("%d wrong reads, %d good (want 0 wrong, most good)", wrong, good)
	}
	_, _, wrong = count(plainStore{hs})
	t.Logf("without versions: %d wrong reads of 100", wrong)
	if wrong == 0 {
		t.Errorf("the control read no mixed shard: the test cannot tell")
	}
}

// TestShardReadsOneVersionFromARewrittenFile: the same with a directory
// store while another goroutine renames the two versions over the shard
// file in a loop (as writers do), and while it rewrites the file in place
// (then the file is at times empty or short, and reading it is an error).
func TestShardReadsOneVersionFromARewrittenFile(t *testing.T) {
	meta, a, b := twoVersions(t)
	for _, how := range []string{"rename", "in place"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			shard := filepath.Join(dir, "a", "c", "0", "0")
			os.MkdirAll(filepath.Dir(shard), 0o755)
			os.WriteFile(filepath.Join(dir, "a", "zarr.json"), meta, 0o644)
			os.WriteFile(shard, a, 0o644)
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var rewrites atomic.Int64
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ctx.Err() == nil; i++ {
					data := a
					if i%2 == 1 {
						data = b
					}
					if how == "rename" {
						tmp := fmt.Sprintf("%s.tmp%d", shard, i%3)
						os.WriteFile(tmp, data, 0o644)
						os.Rename(tmp, shard)
					} else {
						os.WriteFile(shard, data, 0o644) // truncates, then writes
						time.Sleep(time.Millisecond)
					}
					rewrites.Add(1)
				}
			}()
			s, _ := store.NewDirectory(dir)
			arr, err := zarr.OpenArray(context.Background(), s, "a")
			if err != nil {
				t.Fatal(err)
			}
			sel, _ := zarr.ParseSelection("3:45, 10:50")
			good, typed, wrong := 0, 0, 0
			// 100 reads; on a loaded machine an in-place rewrite can leave
			// every one of them a typed error, so go on (up to 2000) until one
			// has read a whole version: the test must see good reads too.
			for n := 0; n < 100 || (good == 0 && n < 2000); n++ {
				time.Sleep(200 * time.Microsecond) // (so the reads span many rewrites)
				got, err := arr.Read(context.Background(), sel)
				switch {
				case zarr.ErrorCodeOf(err) == zarr.CodeConflict || (how == "in place" && zarr.ErrorCodeOf(err) != ""):
					// (rewritten in place, the file is empty or short
					// for a while: reading it then is a STORE or CODEC error)
					typed++
				case err != nil:
					wrong++
					t.Log(err)
				default:
					if _, ok := oneVersion(got); ok {
						good++
					} else {
						wrong++
					}
				}
			}
			stop()
			wg.Wait()
			t.Logf("%s: %d reads of one version, %d typed errors, %d wrong, during %d rewrites", how, good, typed, wrong, rewrites.Load())
			if wrong != 0 || good == 0 {
				t.Errorf("%d wrong reads, %d good", wrong, good)
			}
		})
	}
}

// TestConcurrentWritesIntoOneChunk: 50 goroutines write disjoint rows of
// one chunk at once; every row must survive. v2, v3 and v3 sharded, in
// memory and in a directory, 20 trials each; and two stores on one
// directory (no lock shared in this process: the lock file and the
// conditional rename keep the writes, as between processes).
func TestConcurrentWritesIntoOneChunk(t *testing.T) {
	layouts := map[string]zarr.ArrayOptions{
		"v2":         {ZarrFormat: 2, Shape: []int{50, 4}, Chunks: []int{50, 4}, DType: "<i4"},
		"v3":         {Shape: []int{50, 4}, Chunks: []int{50, 4}, DType: "int32"},
		"v3 sharded": {Shape: []int{50, 4}, Chunks: []int{10, 4}, ShardShape: []int{50, 4}, DType: "int32"},
	}
	trials := 20
	if testing.Short() {
		trials = 3
	}
	for _, name := range []string{"v2", "v3", "v3 sharded"} {
		for _, where := range []string{"memory", "directory", "two directory stores"} {
			t.Run(name+"/"+where, func(t *testing.T) {
				ctx := context.Background()
				lost := 0
				for trial := range trials {
					var stores [2]zarr.Store
					switch where {
					case "memory":
						m := store.NewMemory()
						stores = [2]zarr.Store{m, m}
					default:
						dir := t.TempDir()
						d1, _ := store.NewDirectory(dir)
						d2 := d1
						if where == "two directory stores" {
							d2, _ = store.NewDirectory(dir)
						}
						stores = [2]zarr.Store{d1, d2}
					}
					arr, err := zarr.CreateArray(ctx, stores[0], "a", layouts[name])
					if err != nil {
						t.Fatal(err)
					}
					arrs := [2]*zarr.Array{arr}
					if arrs[1], err = zarr.OpenArray(ctx, stores[1], "a"); err != nil {
						t.Fatal(err)
					}
					var wg sync.WaitGroup
					errc := make(chan error, 50)
					for row := range 50 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							v := int32(trial*1000 + row + 1)
							b := make([]byte, 16)
							for j := range 4 {
								binary.LittleEndian.PutUint32(b[4*j:], uint32(v))
							}
							nd, _ := zarr.NDArrayFromBytes(arr.DType(), []int{1, 4}, b)
							sel, _ := zarr.ParseSelection(fmt.Sprintf("%d:%d, :", row, row+1))
							if err := arrs[row%2].Write(ctx, sel, nd); err != nil {
								errc <- err
							}
						}()
					}
					wg.Wait()
					close(errc)
					for err := range errc {
						t.Fatal(err)
					}
					fresh, err := zarr.OpenArray(ctx, stores[0], "a", zarr.WithCache(nil))
					if err != nil {
						t.Fatal(err)
					}
					got, err := fresh.Read(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					b := got.Bytes()
					for row := range 50 {
						if int32(binary.LittleEndian.Uint32(b[16*row:])) != int32(trial*1000+row+1) {
							lost++
						}
					}
				}
				if lost != 0 {
					t.Errorf("%d of %d writes lost", lost, 50*trials)
				}
			})
		}
	}
}

// countingServer serves a directory store's files over HTTP with ETags
// (the file's generation), counting requests and 304 answers.
type countingServer struct {
	*httptest.Server
	requests, notModified atomic.Int64
}

func newCountingServer(t *testing.T, dir string) *countingServer {
	c := &countingServer{}
	d, _ := store.NewDirectory(dir)
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		c.requests.Add(1)
		key := strings.TrimPrefix(req.URL.Path, "/")
		v, err := d.ReadVersion(req.Context(), key, store.WholeValue(), store.Conditions{})
		if err != nil || !v.Found {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("ETag", `"`+string(v.Generation)+`"`)
		rec := &statusRecorder{ResponseWriter: w}
		http.ServeContent(rec, req, "", time.Time{}, bytes.NewReader(v.Data))
		if rec.status == http.StatusNotModified {
			c.notModified.Add(1)
		}
	}))
	t.Cleanup(c.Close)
	return c
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// TestCacheRecheck: with a cache, a second read of the same window makes no
// request under RecheckNever; under RecheckAlways it makes conditional
// requests answered 304 and returns the same values; once a chunk changes
// on the server, a RecheckAlways read returns the new values.
func TestCacheRecheck(t *testing.T) {
	for _, sharded := range []bool{false, true} {
		t.Run(fmt.Sprintf("sharded=%v", sharded), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			ds, _ := store.NewDirectory(dir)
			opt := zarr.ArrayOptions{Shape: []int{40, 40}, Chunks: []int{10, 10}, DType: "float32"}
			if sharded {
				opt.ShardShape = []int{20, 20}
			}
			w, err := zarr.CreateArray(ctx, ds, "a", opt)
			if err != nil {
				t.Fatal(err)
			}
			values := func(base float32) *zarr.NDArray {
				b := make([]byte, 40*40*4)
				for i := range 40 * 40 {
					binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(base+float32(i)))
				}
				nd, _ := zarr.NDArrayFromBytes(w.DType(), []int{40, 40}, b)
				return nd
			}
			if err := w.Write(ctx, nil, values(0)); err != nil {
				t.Fatal(err)
			}
			srv := newCountingServer(t, dir)
			hs, _ := zhttp.NewStore(srv.URL, zhttp.Options{})
			pool := zarr.NewCachePool(1 << 20)
			sel, _ := zarr.ParseSelection("5:25, 3:33")
			read := func(r zarr.Recheck) (*zarr.NDArray, int64, int64) {
				arr, err := zarr.OpenArray(ctx, hs, "a", zarr.WithCache(pool), zarr.WithRecheck(r))
				if err != nil {
					t.Fatal(err)
				}
				srv.requests.Store(0)
				srv.notModified.Store(0)
				got, err := arr.Read(ctx, sel)
				if err != nil {
					t.Fatal(err)
				}
				return got, srv.requests.Load(), srv.notModified.Load()
			}
			first, n, _ := read(zarr.RecheckNever)
			if n == 0 {
				t.Fatal("the first read made no request")
			}
			again, n, _ := read(zarr.RecheckNever)
			if n != 0 || !again.Equal(first) {
				t.Errorf("recheck never: %d requests (want 0), same values: %v", n, again.Equal(first))
			}
			again, n, n304 := read(zarr.RecheckAlways)
			if n == 0 || n304 != n || !again.Equal(first) {
				t.Errorf("recheck always: %d requests, %d answered 304 (want all), same values: %v", n, n304, again.Equal(first))
			}
			// The server's data changes.
			time.Sleep(2 * time.Millisecond)
			if err := w.Write(ctx, nil, values(0.5)); err != nil {
				t.Fatal(err)
			}
			want, _ := w.Read(ctx, sel)
			got, _, _ := read(zarr.RecheckAlways)
			if !got.Equal(want) || got.Equal(first) {
				t.Errorf("after a change, recheck always did not return the new values")
			}
			st := pool.Stats()
			if st.Hits == 0 || st.Revalidated == 0 || st.Bytes == 0 {
				t.Errorf("pool stats %+v", st)
			}
		})
	}
}

// TestConcurrentReadsShareOneFetch: 20 reads of the same chunks at once
// make one request per chunk.
func TestConcurrentReadsShareOneFetch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ds, _ := store.NewDirectory(dir)
	w, err := zarr.CreateArray(ctx, ds, "a", zarr.ArrayOptions{Shape: []int{64, 64}, Chunks: []int{32, 32}, DType: "int32"})
	if err != nil {
		t.Fatal(err)
	}
	nd, _ := zarr.NDArrayFromBytes(w.DType(), []int{64, 64}, int32s(64*64, func(i int) int32 { return int32(i) }))
	if err := w.Write(ctx, nil, nd); err != nil {
		t.Fatal(err)
	}
	srv := newCountingServer(t, dir)
	slow := http.DefaultTransport
	hs, _ := zhttp.NewStore(srv.URL, zhttp.Options{Client: &http.Client{Transport: delayed{slow, 20 * time.Millisecond}}})
	arr, err := zarr.OpenArray(ctx, hs, "a", zarr.WithCache(nil))
	if err != nil {
		t.Fatal(err)
	}
	srv.requests.Store(0)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := arr.Read(ctx, nil)
			if err != nil || !got.Equal(nd) {
				t.Errorf("read: %v", err)
			}
		}()
	}
	wg.Wait()
	if n := srv.requests.Load(); n != 4 {
		t.Errorf("20 concurrent reads of 4 chunks made %d requests, want 4", n)
	}
}

type delayed struct {
	rt http.RoundTripper
	d  time.Duration
}

func (d delayed) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(d.d)
	return d.rt.RoundTrip(r)
}

// plainSlowStore is a store without versions whose reads take a while, so
// reads and writes of one chunk overlap.
type plainSlowStore struct{ m *store.Memory }

func (p plainSlowStore) Get(ctx context.Context, k string) ([]byte, bool, error) {
	data, ok, err := p.m.Get(ctx, k)
	time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond) // the answer travels
	return data, ok, err
}
func (p plainSlowStore) Set(ctx context.Context, k string, v []byte) error {
	return p.m.Set(ctx, k, v)
}
func (p plainSlowStore) Delete(ctx context.Context, k string) error { return p.m.Delete(ctx, k) }

// TestWritesWithReadersOnAStoreWithoutVersions: 50 writers of one chunk
// while readers keep reading it, on a store that cannot version (so only
// the per-chunk lock keeps the writes): none is lost. A write must not
// take its chunk from a read that began before the previous write.
func TestWritesWithReadersOnAStoreWithoutVersions(t *testing.T) {
	ctx := context.Background()
	for trial := range 10 {
		s := plainSlowStore{store.NewMemory()}
		arr, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{Shape: []int{50, 4}, Chunks: []int{50, 4}, DType: "int32"})
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var readers sync.WaitGroup
		for range 4 {
			readers.Add(1)
			go func() {
				defer readers.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := arr.Read(ctx, nil); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		var writers sync.WaitGroup
		for row := range 50 {
			writers.Add(1)
			go func() {
				defer writers.Done()
				nd, _ := zarr.NDArrayFromBytes(arr.DType(), []int{1, 4}, int32s(4, func(int) int32 { return int32(row + 1) }))
				sel, _ := zarr.ParseSelection(fmt.Sprintf("%d, :", row))
				if err := arr.Write(ctx, sel, nd); err != nil {
					t.Error(err)
				}
			}()
		}
		writers.Wait()
		close(stop)
		readers.Wait()
		got, err := arr.Read(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		lost := 0
		for row := range 50 {
			if int32(binary.LittleEndian.Uint32(got.Bytes()[16*row:])) != int32(row+1) {
				lost++
			}
		}
		if lost > 0 {
			t.Fatalf("trial %d: %d of 50 writes lost", trial, lost)
		}
	}
}

// Shard indexes are kept between reads (without a chunk cache): a second
// read of the same window over HTTP asks only for its inner chunks; after
// the shards are rewritten the kept indexes fail their condition and the
// read starts over with fresh ones, so it returns the new values.
func TestShardIndexesKeptBetweenReads(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ds, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := zarr.CreateArray(ctx, ds, "a", zarr.ArrayOptions{Shape: []int{40, 40}, Chunks: []int{5, 5}, ShardShape: []int{20, 20}, DType: "<i4", ZarrFormat: 3})
	if err != nil {
		t.Fatal(err)
	}
	values := func(base int32) *zarr.NDArray {
		b := make([]byte, 40*40*4)
		for i := range 40 * 40 {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(base+int32(i)))
		}
		nd, _ := zarr.NDArrayFromBytes(w.DType(), []int{40, 40}, b)
		return nd
	}
	if err := w.Write(ctx, nil, values(0)); err != nil {
		t.Fatal(err)
	}
	srv := newCountingServer(t, dir)
	hs, _ := zhttp.NewStore(srv.URL, zhttp.Options{})
	arr, err := zarr.OpenArray(ctx, hs, "a")
	if err != nil {
		t.Fatal(err)
	}
	// (one inner chunk in each of the 4 shards: 4 index and 4 chunk requests)
	sel, _ := zarr.ParseSelection("18:22, 18:22")
	read := func() (*zarr.NDArray, int64) {
		srv.requests.Store(0)
		got, err := arr.Read(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		return got, srv.requests.Load()
	}
	first, n1 := read()
	again, n2 := read()
	if n1 != 8 || n2 != 4 || !again.Equal(first) {
		t.Fatalf("requests %d then %d (want 8 then 4), same values %v", n1, n2, again.Equal(first))
	}
	time.Sleep(2 * time.Millisecond)
	if err := w.Write(ctx, nil, values(1000)); err != nil {
		t.Fatal(err)
	}
	want, _ := w.Read(ctx, sel)
	got, _ := read()
	if !got.Equal(want) || got.Equal(first) {
		t.Fatal("after the shards were rewritten the read did not return the new values")
	}
}
