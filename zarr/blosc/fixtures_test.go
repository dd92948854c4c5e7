package blosc

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixtures written by c-blosc 1.21 through python-blosc, see
// tests/blosc/gen_fixtures.py.
const fixtureDir = "../../tests/blosc/fixtures"

type fixture struct {
	Dataset   string
	Cname     string
	Clevel    int
	Shuffle   int
	Typesize  int
	Blocksize int // as requested; 0 = automatic
	Chunk     []byte
	Data      []byte
}

func (f *fixture) name() string {
	return fmt.Sprintf("%s-%s-c%d-s%d-t%d-b%d", f.Dataset, f.Cname, f.Clevel, f.Shuffle, f.Typesize, f.Blocksize)
}

func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtureDir, "index.json"))
	if err != nil {
		t.Fatalf("fixtures missing (run /usr/bin/python3 tests/blosc/gen_fixtures.py): %v", err)
	}
	var idx struct {
		Fixtures [][]any `json:"fixtures"`
	}
	if err := jsonx.UnmarshalStrict(raw, &idx); err != nil {
		t.Fatal(err)
	}
	fz, err := os.Open(filepath.Join(fixtureDir, "chunks.bin.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer fz.Close()
	zr, err := gzip.NewReader(fz)
	if err != nil {
		t.Fatal(err)
	}
	blob, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	data := map[string][]byte{}
	var out []fixture
	for _, e := range idx.Fixtures {
		num := func(i int) int { return int(e[i].(float64)) }
		f := fixture{Dataset: e[0].(string), Cname: e[1].(string), Clevel: num(2), Shuffle: num(3),
			Typesize: num(4), Blocksize: num(5)}
		off, n := num(6), num(7)
		f.Chunk = blob[off : off+n : off+n]
		d, ok := data[f.Dataset]
		if !ok {
			d, err = os.ReadFile(filepath.Join(fixtureDir, "data", f.Dataset+".bin"))
			if err != nil {
				t.Fatal(err)
			}
			data[f.Dataset] = d
		}
		f.Data = d
		out = append(out, f)
	}
	return out
}

func TestCBloscFixtures(t *testing.T) {
	fixtures := loadFixtures(t)
	if len(fixtures) < 2000 {
		t.Fatalf("only %d fixtures", len(fixtures))
	}
	stats := map[string]int{}
	for _, f := range fixtures {
		h, err := parseHeader(f.Chunk)
		if err != nil {
			t.Errorf("%s: header: %v", f.name(), err)
			continue
		}
		n, err := DecodedSize(f.Chunk)
		if err != nil || n != len(f.Data) {
			t.Errorf("%s: DecodedSize = %d, %v; want %d", f.name(), n, err, len(f.Data))
		}
		got, err := Decode(nil, f.Chunk)
		if err != nil {
			t.Errorf("%s: Decode: %v", f.name(), err)
			continue
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s: decoded bytes differ", f.name())
			continue
		}
		// into a caller's buffer: no allocation, same backing array
		buf := make([]byte, 3, len(f.Data)+5)
		got2, err := Decode(buf, f.Chunk)
		if err != nil || !bytes.Equal(got2, f.Data) || (len(got2) > 0 && &got2[:1][0] != &buf[:1][0]) {
			t.Errorf("%s: Decode into caller buffer failed (err %v)", f.name(), err)
		}
		// trailing garbage after cbytes is ignored
		if got3, err := Decode(nil, append(bytes.Clone(f.Chunk), 1, 2, 3)); err != nil || !bytes.Equal(got3, f.Data) {
			t.Errorf("%s: trailing bytes: %v", f.name(), err)
		}

		// Our writer makes the same blocksize and flag choices as c-blosc.
		wts := f.Typesize
		code, _ := cnameCode(f.Cname)
		wantBS := computeBlocksize(f.Cname, f.Clevel, wts, len(f.Data), f.Blocksize)
		if h.blocksize != wantBS {
			t.Errorf("%s: c-blosc chose blocksize %d, computeBlocksize says %d", f.name(), h.blocksize, wantBS)
		}
		wantFlags := byte(code << 5)
		if f.Shuffle == 1 {
			wantFlags |= flagShuffle
		} else if f.Shuffle == 2 {
			wantFlags |= flagBitshuffle
		}
		if !splitBlock(code, wts, wantBS) {
			wantFlags |= flagDontSplit
		}
		if h.flags&^flagMemcpyed != wantFlags {
			t.Errorf("%s: c-blosc flags 0x%02x, ours would be 0x%02x (+memcpy)", f.name(), h.flags, wantFlags)
		}

		switch {
		case h.memcpyed():
			stats["memcpyed"]++
		case h.flags&flagDontSplit == 0:
			stats["split"]++
		default:
			stats["unsplit"]++
		}
		if !h.memcpyed() && h.nbytes > 0 {
			l := h.layout()
			if l.leftover > 0 && l.nblocks > 1 {
				stats["with short last block"]++
			}
			raw := 0
			for j := 0; j < l.nblocks; j++ {
				_, nsplits, neblock := h.blockGeom(l, j)
				off := int(le.Uint32(f.Chunk[headerSize+4*j:]))
				for k := 0; k < nsplits; k++ {
					cs := int(le.Uint32(f.Chunk[off:]))
					if cs == neblock {
						raw++
					}
					off += 4 + cs
				}
			}
			if raw > 0 {
				stats["with raw streams"]++
			}
		}
		stats[f.Cname]++
	}
	t.Logf("%d c-blosc fixtures decoded byte for byte; %v", len(fixtures), stats)
}

// c-blosc's own compatibility chunks (blosc 1.3 .. 1.18), each the int32
// sequence 0..999999.
func TestCBloscCompat(t *testing.T) {
	dir := filepath.Join(peers.TestData(), "c-blosc-compat")
	files, _ := filepath.Glob(filepath.Join(dir, "*.cdata"))
	if len(files) == 0 {
		t.Fatalf("no compat chunks in %s", dir)
	}
	want := make([]byte, 4*1000000)
	for i := 0; i < 1000000; i++ {
		binary.LittleEndian.PutUint32(want[4*i:], uint32(i))
	}
	for _, fn := range files {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(nil, src)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(fn), err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: wrong output", filepath.Base(fn))
		}
	}
	t.Logf("%d compat chunks decoded", len(files))
}

// TestBlosc2Unsupported: only a header Blosc2 could have written is
// ErrUnsupported; garbled headers are ErrCorrupt (a CODEC error upstream).
func TestBlosc2Unsupported(t *testing.T) {
	chunk, err := Encode(make([]byte, 1000), Options{Cname: "lz4", Clevel: 5, Shuffle: 1, Typesize: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []byte{3, 4, 5} {
		c := bytes.Clone(chunk)
		c[0] = v
		_, err := Decode(nil, c)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "Blosc2") {
			t.Errorf("version %d: err = %v", v, err)
		}
		if _, err := DecodedSize(c); !errors.Is(err, ErrUnsupported) {
			t.Errorf("version %d: DecodedSize err = %v", v, err)
		}
	}
	// an extended (32-byte) Blosc2 header, as c-blosc2 writes
	ext := append(hdr(5, 0x05|1<<5, 4, 1000, 1000, 48), make([]byte, 32)...)
	if _, err := Decode(nil, ext); !errors.Is(err, ErrUnsupported) {
		t.Errorf("extended Blosc2 header: %v", err)
	}
	garbled := map[string][]byte{
		"version 6":                    func() []byte { c := bytes.Clone(chunk); c[0] = 6; return c }(),
		"version 255":                  func() []byte { c := bytes.Clone(chunk); c[0] = 255; return c }(),
		"Blosc2 cbytes past the end":   hdr(4, 0x00, 4, 100, 100, 1000),
		"Blosc2 negative nbytes":       hdr(5, 0x00, 4, -5, 100, 16),
		"Blosc2 typesize 0":            hdr(5, 0x00, 0, 100, 100, 16),
		"Blosc2 extended header cut":   hdr(5, 0x05, 4, 100, 100, 16),
		"Blosc2 reserved compressor 5": hdr(5, 0xa0, 4, 100, 100, 16),
		"text":                         []byte("this is not a blosc chunk at all"),
	}
	for name, c := range garbled {
		_, err := Decode(nil, c)
		if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
	// compressor codes 5..7 in a Blosc1 chunk: no Blosc1 writer uses them
	for code := byte(5); code < 8; code++ {
		c := bytes.Clone(chunk)
		c[2] = c[2]&0x1f | code<<5
		if _, err := Decode(nil, c); !errors.Is(err, ErrCorrupt) {
			t.Errorf("code %d: err = %v", code, err)
		}
	}
}

// The parallel block decoder gives the same bytes and the same errors.
func TestParallelDecode(t *testing.T) {
	defer func(w int) { decodeWorkers = w }(decodeWorkers)
	var chunks [][]byte
	for _, f := range loadFixtures(t) {
		if f.Chunk[2]&flagMemcpyed == 0 && len(f.Chunk) > 200 {
			chunks = append(chunks, f.Chunk)
		}
	}
	// and corrupted copies: a byte flipped in the middle
	for i, c := range chunks[:len(chunks)/2] {
		m := bytes.Clone(c)
		m[len(m)/2+i%7] ^= 0x5a
		chunks = append(chunks, m)
	}
	for _, c := range chunks {
		decodeWorkers = 1
		want, werr := Decode(nil, c)
		for _, w := range []int{2, 3, 8} {
			decodeWorkers = w
			got, err := Decode(nil, c)
			if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) || !bytes.Equal(got, want) {
				t.Fatalf("workers %d: %v / serial %v", w, err, werr)
			}
		}
	}
}
