package blosc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/pierrec/lz4/v4"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
)

// allocBound is the most Decode may allocate for an input of n bytes: the
// per-codec expansion limits of the stream walk (zstd being the loosest)
// plus slack for the header and scratch buffers.
func allocBound(n int) int { return 2 * (32768*n + 1<<20) }

func checkDecode(t *testing.T, src []byte) {
	t.Helper()
	n, errSize := DecodedSize(src)
	out, err := Decode(nil, src)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("error wraps neither ErrCorrupt nor ErrUnsupported: %v", err)
		}
		if errSize != nil && err.Error() != errSize.Error() {
			t.Fatalf("DecodedSize and Decode disagree: %v / %v", errSize, err)
		}
		return
	}
	if errSize != nil || n != len(out) {
		t.Fatalf("Decode ok with %d bytes but DecodedSize = %d, %v", len(out), n, errSize)
	}
	if n > allocBound(len(src)) {
		t.Fatalf("%d-byte chunk decoded to %d bytes", len(src), n)
	}
	// Decoding into a caller buffer gives the same bytes.
	buf := make([]byte, 0, n)
	out2, err := Decode(buf, src)
	if err != nil || !bytes.Equal(out, out2) {
		t.Fatalf("decode into buffer: %v", err)
	}
}

func hdr(version, flags, typesize byte, nbytes, blocksize, cbytes int32) []byte {
	b := make([]byte, 16)
	b[0], b[1], b[2], b[3] = version, 1, flags, typesize
	le.PutUint32(b[4:], uint32(nbytes))
	le.PutUint32(b[8:], uint32(blocksize))
	le.PutUint32(b[12:], uint32(cbytes))
	return b
}

// hostileSeeds are hand-made lying headers.
func hostileSeeds() [][]byte {
	var s [][]byte
	const big = 1<<31 - 1
	s = append(s,
		nil,
		[]byte{2},
		hdr(2, 0x00, 4, big, 1, 16),     // 2^31 blocks in a 16-byte chunk
		hdr(2, 0x00, 4, big, big, 16),   // one huge block, no room for bstarts
		hdr(2, 0x02, 4, big, 1, 16),     // memcpyed, nbytes beyond payload
		hdr(2, 0x02, 4, 100, 100, 16),   // memcpyed, short payload
		hdr(2, 0x02, 4, -1, 100, 16),    // negative nbytes
		hdr(2, 0x00, 0, 100, 100, 16),   // typesize 0
		hdr(2, 0x08, 4, 100, 100, 16),   // reserved flag
		hdr(2, 0x00, 4, 100, 0, 16),     // blocksize 0
		hdr(2, 0x00, 4, 100, 100, 1000), // cbytes beyond the input
		hdr(2, 0x00, 4, 100, 100, 8),    // cbytes below the header
		hdr(3, 0x00, 4, 100, 100, 16),   // Blosc2
		hdr(0, 0x00, 4, 100, 100, 16),   // version 0
		hdr(2, 0xa0, 4, 100, 100, 16),   // compressor code 5
		hdr(2, 0x00, 4, 0, 0, 16),       // empty
		append(hdr(2, 0x00, 4, 1<<30, 1<<30, 28), 20, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4), // 1 GiB from 4 blosclz bytes
	)
	// one block, one zstd stream that claims a lot
	z := append(hdr(2, 0x90, 4, 1<<30, 1<<30, 36), 20, 0, 0, 0, 12, 0, 0, 0)
	z = append(z, 0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00)
	s = append(s, z)
	// bstarts pointing outside, backwards, into the header
	for _, off := range []uint32{0, 4, 19, 20, 1000, 1 << 31} {
		c := append(hdr(2, 0x10, 1, 200, 200, 30), 0, 0, 0, 0, 5, 0, 0, 0, 0, 0)
		le.PutUint32(c[16:], off)
		s = append(s, c)
	}
	// stream sizes: negative, zero, beyond the end, exactly raw
	for _, cs := range []int32{-1, 0, 6, 1 << 30, 200} {
		c := append(hdr(2, 0x10, 1, 200, 200, 0), 20, 0, 0, 0, 0, 0, 0, 0)
		le.PutUint32(c[20:], uint32(cs))
		c = append(c, bytes.Repeat([]byte{7}, 200)...)
		le.PutUint32(c[12:], uint32(len(c)))
		s = append(s, c)
	}
	return s
}

func TestHostileHeaders(t *testing.T) {
	for i, src := range hostileSeeds() {
		t.Run(strconv.Itoa(i), func(t *testing.T) { checkDecode(t, src) })
	}
	// the 1 GiB claims must fail without allocating anything like it
	for _, src := range hostileSeeds() {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, _ = Decode(nil, src)
		_, _ = DecodedSize(src)
		runtime.ReadMemStats(&m1)
		if d := m1.TotalAlloc - m0.TotalAlloc; d > 1<<20 {
			t.Errorf("% x...: allocated %d bytes", src[:min(len(src), 16)], d)
		}
	}
}

// Every truncation and every single-byte corruption of real chunks either
// fails cleanly or decodes to the header's size.
func TestCorruptions(t *testing.T) {
	var chunks [][]byte
	for _, ds := range testDatasets() {
		if len(ds.data) > 10000 || len(ds.data) < 128 {
			continue
		}
		for _, cname := range allCnames {
			for _, sh := range []int{0, 1, 2} {
				c, err := Encode(ds.data, Options{Cname: cname, Clevel: 5, Shuffle: sh, Typesize: 4, Blocksize: 1024})
				if err != nil {
					t.Fatal(err)
				}
				chunks = append(chunks, c)
			}
		}
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	for _, c := range chunks {
		for n := 0; n < len(c); n += step {
			if _, err := Decode(nil, c[:n]); err == nil {
				t.Fatalf("truncated to %d of %d bytes: no error", n, len(c))
			}
		}
		for i := 0; i < len(c); i += step {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				m := bytes.Clone(c)
				m[i] ^= x
				checkDecode(t, m)
			}
		}
	}
}

// FuzzDecode feeds arbitrary bytes to DecodedSize and Decode. The seed
// corpus in testdata/fuzz/FuzzDecode holds c-blosc fixtures, Go-written
// chunks and lying headers (written by TestWriteFuzzSeeds).
func FuzzDecode(f *testing.F) {
	for _, s := range hostileSeeds() {
		f.Add(s)
	}
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		defer fuzzmem.Input(t)()
		checkDecode(t, src)
	})
}

// TestWriteFuzzSeeds regenerates the committed seed corpus when
// BLOSC_WRITE_FUZZ_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("BLOSC_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set BLOSC_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzDecode")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range hostileSeeds() {
		write(fmt.Sprintf("hostile-%02d", i), s)
	}
	// small c-blosc fixtures: one per codec x shuffle x typesize, compressed ones only
	seen := map[string]bool{}
	for _, fx := range loadFixtures(t) {
		if len(fx.Chunk) > 3000 || fx.Chunk[2]&flagMemcpyed != 0 {
			continue
		}
		key := fmt.Sprintf("%s-s%d-t%d", fx.Cname, fx.Shuffle, fx.Typesize)
		if seen[key] {
			continue
		}
		seen[key] = true
		write("cblosc-"+key, fx.Chunk)
	}
	// Go-written chunks with several blocks and split streams
	data := smoothFloat32(700, 9)
	for _, cname := range allCnames {
		for _, sh := range []int{0, 1, 2} {
			c, err := Encode(data, Options{Cname: cname, Clevel: 5, Shuffle: sh, Typesize: 4, Blocksize: 1024})
			if err != nil {
				t.Fatal(err)
			}
			write(fmt.Sprintf("go-%s-s%d", cname, sh), c)
		}
	}
}

// FuzzLZ4 checks the own LZ4 block decoder against pierrec/lz4's.
func FuzzLZ4(f *testing.F) {
	data := smoothFloat32(300, 5)
	for _, n := range []int{16, 100, 1200} {
		buf := make([]byte, lz4.CompressBlockBound(n))
		var c lz4.Compressor
		m, _ := c.CompressBlock(data[:n], buf)
		f.Add(buf[:m], uint16(n))
	}
	f.Add([]byte{0x10, 'a', 1, 0, 0x50, 'b', 'c', 'd', 'e', 'f'}, uint16(11))
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, src []byte, n uint16) {
		defer fuzzmem.Input(t)()
		if len(src) == 0 {
			return // blosc streams are never empty; pierrec accepts it
		}
		d1 := make([]byte, n)
		e1 := lz4Decode(d1, src)
		d2 := make([]byte, n)
		m, e2 := lz4.UncompressBlock(src, d2)
		ok2 := e2 == nil && m == int(n)
		if (e1 == nil) != ok2 {
			t.Fatalf("own: %v, pierrec: n=%d err=%v (want %d)", e1, m, e2, n)
		}
		if e1 == nil && !bytes.Equal(d1, d2) {
			t.Fatalf("outputs differ")
		}
	})
}
