package zarr_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// storedDest is a zarr.StoredDest as the bridge's works, in Go: it reads
// raw chunks of one store itself and places them; a chunk whose size is
// not the chunk's goes back to the engine.
type storedDest struct {
	out            *nd.Array
	store          zarr.Store
	placed, placeN int // chunks placed from stored bytes; chunks placed by the engine
	offered        int // PlaceStored calls
}

func (d *storedDest) Place(out []nd.Range, chunk *nd.Array, in []nd.Range) {
	d.placeN++
	nd.Copy(d.out, out, chunk, in)
}

func (d *storedDest) CanPlaceStored(s zarr.Store) bool { return s == d.store }

func (d *storedDest) PlaceStored(ctx context.Context, s zarr.Store, key, decoder string, size int, shape []int, out, in []nd.Range, alone func() bool) (store.Versioned, bool, error) {
	d.offered++
	b, ok, err := s.Get(ctx, key)
	if err != nil || !ok {
		return store.Versioned{Found: ok}, false, err
	}
	if !alone() || decoder != "" || len(b) != size {
		return store.Versioned{Found: true, Data: b}, false, nil
	}
	chunk, err := nd.FromBytes(d.out.DType(), shape, b)
	if err != nil {
		return store.Versioned{}, false, err
	}
	nd.Copy(d.out, out, chunk, in)
	d.placed++
	return store.Versioned{Found: true}, true, nil
}

func readInto(ctx context.Context, t *testing.T, a *zarr.Array, s zarr.Store, sel zarr.Selection) (*nd.Array, *storedDest, error) {
	t.Helper()
	d := &storedDest{store: s}
	shape, err := a.ReadInto(ctx, sel, func(full []int, fill *dtype.Fill) (zarr.Dest, error) {
		d.out = nd.New(a.DType(), full)
		if fill != nil {
			d.out.Fill(*fill)
		}
		return d, nil
	})
	if err != nil {
		return nil, d, err
	}
	res, err := d.out.Reshape(shape)
	return res, d, err
}

// ReadInto with a destination that places stored chunks itself returns
// what Read returns: raw chunks go to the destination (strided, windows,
// partial edge chunks, integer indices, missing chunks with a fill value),
// compressed ones and a wrongly sized raw chunk to the engine, which
// reports the latter as Read does; with a chunk cache, nothing goes to
// the destination.
func TestReadIntoPlacesStoredChunksAsReadReads(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	vals := make([]float32, 37*29)
	for i := range vals {
		vals[i] = float32(i) * 0.5
	}
	data := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	for _, c := range []struct {
		path string
		opt  zarr.ArrayOptions
		raw  bool
	}{
		{"raw2", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{37, 29}, Chunks: []int{8, 7}, DType: "<f4", NoCompressor: true, FillValue: 9.5}, true},
		{"raw3", zarr.ArrayOptions{ZarrFormat: 3, Shape: []int{37, 29}, Chunks: []int{8, 7}, DType: "float32", Codecs: []map[string]any{{"name": "bytes", "configuration": map[string]any{"endian": "little"}}}}, true},
		{"zlib", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{37, 29}, Chunks: []int{8, 7}, DType: "<f4", Compressor: map[string]any{"id": "zlib", "level": 1}}, false},
		{"big", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{37, 29}, Chunks: []int{8, 7}, DType: ">f4", NoCompressor: true}, false},
		{"fortran", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{37, 29}, Chunks: []int{8, 7}, DType: "<f4", NoCompressor: true, Order: "F"}, false},
	} {
		a, err := zarr.CreateArray(ctx, s, c.path, c.opt)
		if err != nil {
			t.Fatal(c.path, err)
		}
		src, err := nd.FromBytes(a.DType(), []int{37, 29}, append([]byte(nil), data...))
		if err != nil {
			t.Fatal(err)
		}
		// Leave some chunks out: a row band (they read as the fill value).
		if err := a.Write(ctx, mustSel(t, "0:16, :"), mustNDSlice(t, src, 0, 16)); err != nil {
			t.Fatal(err)
		}
		if err := a.Write(ctx, mustSel(t, "24:37, :"), mustNDSlice(t, src, 24, 37)); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"", "3:30, 2:27", "::4, ::3", "5, 1:20:2", "-1, :", "16:24, 5"} {
			sel := mustSel(t, text)
			want, err := a.Read(ctx, sel)
			if err != nil {
				t.Fatal(c.path, text, err)
			}
			got, d, err := readInto(ctx, t, a, s, sel)
			if err != nil {
				t.Fatal(c.path, text, err)
			}
			if !got.Equal(want) {
				t.Fatalf("%s[%s]: ReadInto differs from Read", c.path, text)
			}
			if c.raw && (d.offered == 0 || (text != "16:24, 5" && d.placed == 0) || d.placeN != 0) {
				t.Fatalf("%s[%s]: %d chunks offered, %d placed from stored bytes, %d by the engine", c.path, text, d.offered, d.placed, d.placeN)
			}
			if !c.raw && d.offered != 0 {
				t.Fatalf("%s[%s]: %d chunks offered to the destination; its chain is not plain", c.path, text, d.offered)
			}
		}
	}
	// A raw chunk of the wrong size: the engine's CODEC error.
	if err := s.Set(ctx, "raw2/1.1", []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	a, err := zarr.OpenArray(ctx, s, "raw2")
	if err != nil {
		t.Fatal(err)
	}
	_, readErr := a.Read(ctx, mustSel(t, "8:16, 7:14"))
	wantCode(t, readErr, zarr.CodeCodec)
	_, d, err := readInto(ctx, t, a, s, mustSel(t, "8:16, 7:14"))
	wantCode(t, err, zarr.CodeCodec)
	if d.offered != 1 {
		t.Fatalf("%d chunks offered, want 1", d.offered)
	}
	// With a chunk cache the engine decodes (and keeps) every chunk.
	cached, err := zarr.OpenArray(ctx, s, "raw3", zarr.WithCache(zarr.NewCachePool(1<<20)))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := cached.Read(ctx, mustSel(t, "3:30, 2:27"))
	got, d, err := readInto(ctx, t, cached, s, mustSel(t, "3:30, 2:27"))
	if err != nil || !got.Equal(want) || d.offered != 0 {
		t.Fatalf("cached: err %v, equal %v, %d offered", err, err == nil && got.Equal(want), d.offered)
	}
}

func mustSel(t *testing.T, text string) zarr.Selection {
	t.Helper()
	sel, err := zarr.ParseSelection(text)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// mustNDSlice is rows lo:hi of a 2-D array.
func mustNDSlice(t *testing.T, a *nd.Array, lo, hi int) *nd.Array {
	t.Helper()
	cols := a.Shape()[1]
	es := a.DType().Size
	out, err := nd.FromBytes(a.DType(), []int{hi - lo, cols}, append([]byte(nil), a.Raw()[lo*cols*es:hi*cols*es]...))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
