package blosc

import (
	"bytes"
	"fmt"
	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var (
	allCnames   = []string{"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"}
	allShuffles = []int{-1, 0, 1, 2}
	encTypesize = []int{1, 2, 3, 4, 8, 24, 300}
	encBlocks   = []int{0, 256, 4096, 65536}
)

type encCase struct {
	ds  dataset
	opt Options
}

func (c encCase) name() string {
	o := c.opt
	return fmt.Sprintf("%s-%s-c%d-s%d-t%d-b%d", c.ds.name, o.Cname, o.Clevel, o.Shuffle, o.Typesize, o.Blocksize)
}

// encodeMatrix is every option combination on every test dataset, at
// clevel 5, plus a clevel sweep.
func encodeMatrix() []encCase {
	var cs []encCase
	for _, ds := range testDatasets() {
		for _, cname := range allCnames {
			for _, sh := range allShuffles {
				for _, ts := range encTypesize {
					for _, bs := range encBlocks {
						cs = append(cs, encCase{ds, Options{Cname: cname, Clevel: 5, Shuffle: sh, Typesize: ts, Blocksize: bs}})
					}
				}
			}
			for _, cl := range []int{0, 1, 2, 3, 4, 6, 7, 8, 9} {
				for _, sh := range []int{-1, 2} {
					cs = append(cs, encCase{ds, Options{Cname: cname, Clevel: cl, Shuffle: sh, Typesize: 4}})
				}
			}
		}
	}
	return cs
}

func TestRoundTrip(t *testing.T) {
	for _, c := range encodeMatrix() {
		chunk, err := Encode(c.ds.data, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name(), err)
		}
		got, err := Decode(nil, chunk)
		if err != nil {
			t.Fatalf("%s: decode: %v", c.name(), err)
		}
		if !bytes.Equal(got, c.ds.data) {
			t.Fatalf("%s: round trip differs", c.name())
		}
		if len(chunk) > len(c.ds.data)+headerSize {
			t.Fatalf("%s: chunk %d bytes for %d input", c.name(), len(chunk), len(c.ds.data))
		}
	}
}

func pythonBlosc(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no subprocesses under wasm")
	}
	return peers.RequirePython(t, "blosc")
}

// TestEncodeCBloscDecode encodes the whole option matrix in Go and has
// c-blosc (python-blosc) decode every chunk.
func TestEncodeCBloscDecode(t *testing.T) {
	py := pythonBlosc(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	var blob []byte
	var manifest [][]any
	written := map[string]bool{}
	compressed := 0
	for _, c := range encodeMatrix() {
		if !written[c.ds.name] {
			if err := os.WriteFile(filepath.Join(dir, "data", c.ds.name+".bin"), c.ds.data, 0o644); err != nil {
				t.Fatal(err)
			}
			written[c.ds.name] = true
		}
		chunk, err := Encode(c.ds.data, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name(), err)
		}
		if chunk[2]&flagMemcpyed == 0 {
			compressed++
		}
		manifest = append(manifest, []any{c.name(), c.ds.name, len(blob), len(chunk)})
		blob = append(blob, chunk...)
	}
	if err := os.WriteFile(filepath.Join(dir, "chunks.bin"), blob, 0o644); err != nil {
		t.Fatal(err)
	}
	mj, _ := jsonx.MarshalStrict(map[string]any{"cases": manifest})
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), mj, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "../../tests/blosc/decode_check.py", dir).CombinedOutput()
	text := strings.TrimSpace(string(out))
	if err != nil {
		lines := strings.Split(text, "\n")
		if len(lines) > 40 {
			lines = append(lines[:30], "...", lines[len(lines)-1])
		}
		t.Fatalf("c-blosc decode check failed: %v\n%s", err, strings.Join(lines, "\n"))
	}
	t.Logf("%s; %d of them not memcpyed", text, compressed)
}

func TestEncodeOptions(t *testing.T) {
	data := smoothFloat32(1000, 1)
	bad := []Options{
		{Cname: "lzma", Clevel: 5},
		{Cname: "lz4", Clevel: 10},
		{Cname: "lz4", Clevel: -1},
		{Cname: "lz4", Clevel: 5, Shuffle: 3},
		{Cname: "lz4", Clevel: 5, Typesize: -4},
		{Cname: "lz4", Clevel: 5, Blocksize: -1},
	}
	for _, o := range bad {
		if _, err := Encode(data, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	// typesize > 255 is written as 1
	c, err := Encode(data, Options{Cname: "lz4", Clevel: 5, Shuffle: 1, Typesize: 1000})
	if err != nil || c[3] != 1 {
		t.Errorf("typesize 1000: header typesize %d, %v", c[3], err)
	}
	// auto shuffle: bitshuffle for typesize 1, byte shuffle otherwise
	c, _ = Encode(data, Options{Cname: "zstd", Clevel: 5, Shuffle: -1, Typesize: 1})
	if c[2] != 0x94 {
		t.Errorf("auto shuffle ts 1: flags 0x%02x, want 0x94", c[2])
	}
	c, _ = Encode(data, Options{Cname: "zstd", Clevel: 5, Shuffle: -1, Typesize: 4})
	if c[2] != 0x91 {
		t.Errorf("auto shuffle ts 4: flags 0x%02x, want 0x91", c[2])
	}
	// empty input: the header c-blosc writes
	c, _ = Encode(nil, Options{Cname: "blosclz", Clevel: 5, Shuffle: 1, Typesize: 4})
	want := []byte{2, 1, 0x13, 4, 0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0}
	if !bytes.Equal(c, want) {
		t.Errorf("empty: % x, want % x", c, want)
	}
	// incompressible data is stored raw
	r := testDatasets()[3].data
	c, _ = Encode(r, Options{Cname: "lz4", Clevel: 9, Shuffle: 0, Typesize: 1})
	if c[2]&flagMemcpyed == 0 || len(c) != len(r)+16 {
		t.Errorf("random: flags 0x%02x len %d", c[2], len(c))
	}
}
