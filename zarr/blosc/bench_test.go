package blosc

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// Benchmarks on 4 MiB of smooth float32 data (sum of sines plus a little
// noise). With BLOSC_BENCH_DIR set (tests/blosc/bench.sh does this), the
// data is read from $BLOSC_BENCH_DIR/data.f32 and BenchmarkDecode decodes
// the chunks c-blosc wrote there (cblosc-<config>.blosc, from
// tests/blosc/bench_cblosc.py), so Go, Go-in-wasm and c-blosc decode the
// very same bytes. Without it, the data is generated and Go encodes it.

type benchConfig struct {
	name string
	opt  Options
}

var benchConfigs = []benchConfig{
	{"lz4-shuffle", Options{Cname: "lz4", Clevel: 5, Shuffle: 1, Typesize: 4}},
	{"blosclz-shuffle", Options{Cname: "blosclz", Clevel: 5, Shuffle: 1, Typesize: 4}},
	{"zstd-shuffle", Options{Cname: "zstd", Clevel: 5, Shuffle: 1, Typesize: 4}},
	{"zlib-shuffle", Options{Cname: "zlib", Clevel: 5, Shuffle: 1, Typesize: 4}},
	{"lz4-bitshuffle", Options{Cname: "lz4", Clevel: 5, Shuffle: 2, Typesize: 4}},
}

const benchFloats = 1 << 20 // 4 MiB

func benchData(b testing.TB) []byte {
	if dir := os.Getenv("BLOSC_BENCH_DIR"); dir != "" {
		d, err := os.ReadFile(filepath.Join(dir, "data.f32"))
		if err == nil {
			return d
		}
		b.Logf("no %s/data.f32 (%v); generating", dir, err)
	}
	return smoothFloat32(benchFloats, 42)
}

// TestWriteBenchData writes the benchmark input for bench_cblosc.py.
func TestWriteBenchData(t *testing.T) {
	dir := os.Getenv("BLOSC_BENCH_DIR")
	if dir == "" {
		t.Skip("set BLOSC_BENCH_DIR to write the benchmark data")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.f32"), smoothFloat32(benchFloats, 42), 0o644); err != nil {
		t.Fatal(err)
	}
}

func benchChunk(b *testing.B, data []byte, c benchConfig) []byte {
	if dir := os.Getenv("BLOSC_BENCH_DIR"); dir != "" {
		chunk, err := os.ReadFile(filepath.Join(dir, "cblosc-"+c.name+".blosc"))
		if err == nil {
			return chunk
		}
	}
	chunk, err := Encode(data, c.opt)
	if err != nil {
		b.Fatal(err)
	}
	return chunk
}

// BenchmarkDecode decodes on one goroutine (compare with c-blosc on one
// thread); BenchmarkDecodeParallel lets Decode use up to GOMAXPROCS
// goroutines for the 8 blocks of these 4 MiB chunks (compare with c-blosc's
// default of one thread per core). Under wasm both are single-threaded.
func BenchmarkDecode(b *testing.B) {
	defer func(w int) { decodeWorkers = w }(decodeWorkers)
	decodeWorkers = 1
	benchDecode(b)
}

func BenchmarkDecodeParallel(b *testing.B) {
	defer func(w int) { decodeWorkers = w }(decodeWorkers)
	decodeWorkers = 0
	benchDecode(b)
}

func benchDecode(b *testing.B) {
	data := benchData(b)
	for _, c := range benchConfigs {
		b.Run(c.name, func(b *testing.B) {
			chunk := benchChunk(b, data, c)
			dst := make([]byte, len(data))
			out, err := Decode(dst, chunk)
			if err != nil || !bytes.Equal(out, data) {
				b.Fatalf("decode: %v", err)
			}
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Decode(dst, chunk); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/float64(len(chunk)), "ratio")
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	data := benchData(b)
	for _, c := range benchConfigs {
		b.Run(c.name, func(b *testing.B) {
			chunk, err := Encode(data, c.opt)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Encode(data, c.opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/float64(len(chunk)), "ratio")
		})
	}
}

// Internals.

func BenchmarkUnshuffle(b *testing.B) {
	src := smoothFloat32(1<<17, 1) // 512 KiB, one c-blosc block
	dst := make([]byte, len(src))
	for _, ts := range []int{2, 4, 8, 3} {
		b.Run("ts"+string(rune('0'+ts)), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for i := 0; i < b.N; i++ {
				unshuffle(ts, dst, src)
			}
		})
	}
}

func BenchmarkBitunshuffle(b *testing.B) {
	src := smoothFloat32(1<<17, 1)
	dst := make([]byte, len(src))
	tmp := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		bitunshuffle(4, dst, src, tmp)
	}
}

// lz4 streams of a shuffled float32 block: own decoder vs pierrec's.
func BenchmarkLZ4Stream(b *testing.B) {
	raw := smoothFloat32(1<<17, 1)
	sh := make([]byte, len(raw))
	shuffle(4, sh, raw)
	n := len(sh) / 4
	var streams [][]byte
	for k := 0; k < 4; k++ {
		buf := make([]byte, lz4.CompressBlockBound(n))
		var c lz4.Compressor
		m, err := c.CompressBlock(sh[k*n:(k+1)*n], buf)
		if err != nil || m == 0 {
			b.Fatal(err)
		}
		streams = append(streams, buf[:m])
	}
	dst := make([]byte, n)
	b.Run("own", func(b *testing.B) {
		b.SetBytes(int64(len(sh)))
		for i := 0; i < b.N; i++ {
			for _, s := range streams {
				if err := lz4Decode(dst, s); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("pierrec", func(b *testing.B) {
		b.SetBytes(int64(len(sh)))
		for i := 0; i < b.N; i++ {
			for _, s := range streams {
				if _, err := lz4.UncompressBlock(s, dst); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
