// Package bigmeta writes the large metadata documents the metadata
// benchmarks read (Go: zarr's and zarr/refs' BenchmarkLarge*; Node:
// tests/bench/metadata.mjs): a consolidated .zmetadata of arrays with
// CF-style attributes, and a kerchunk reference set. Deterministic, so the
// Go and JavaScript runs read the same bytes.
package bigmeta

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ZMetadata writes a v2 consolidated .zmetadata with groups of arrays
// until it holds at least size bytes; it returns the number of arrays.
func ZMetadata(w io.Writer, size int) (int, error) {
	bw := &counter{w: bufio.NewWriterSize(w, 1<<20)}
	fmt.Fprint(bw, "{\n    \"metadata\": {\n        \".zattrs\": {\"title\": \"benchmark\", \"Conventions\": \"CF-1.8\"},\n        \".zgroup\": {\"zarr_format\": 2}")
	n := 0
	for g := 0; bw.n < size; g++ {
		fmt.Fprintf(bw, ",\n        \"group_%d/.zgroup\": {\"zarr_format\": 2},\n        \"group_%d/.zattrs\": {\"source\": \"model run %d\"}", g, g, g)
		for a := 0; a < 100 && bw.n < size; a++ {
			p := fmt.Sprintf("group_%d/var_%d", g, a)
			fmt.Fprintf(bw, ",\n        \"%s/.zarray\": {\"chunks\": [1, 256, 512], \"compressor\": {\"blocksize\": 0, \"clevel\": 5, \"cname\": \"lz4\", \"id\": \"blosc\", \"shuffle\": 1}, \"dtype\": \"<f4\", \"fill_value\": \"NaN\", \"filters\": null, \"order\": \"C\", \"shape\": [8760, 721, 1440], \"zarr_format\": 2}", p)
			fmt.Fprintf(bw, ",\n        \"%s/.zattrs\": {\"_ARRAY_DIMENSIONS\": [\"time\", \"latitude\", \"longitude\"], \"long_name\": \"variable %d of group %d, a field with a long descriptive name\", \"units\": \"K\", \"valid_range\": [-1e+30, 1e+30], \"missing_value\": NaN, \"scale_factor\": 0.01, \"history\": \"created by the benchmark generator; \\u00e9t\\u00e9 \\\"quoted\\\"\"}", p, a, g)
			n++
		}
	}
	fmt.Fprint(bw, "\n    },\n    \"zarr_consolidated_format\": 1\n}\n")
	return n, bw.w.(*bufio.Writer).Flush()
}

// Kerchunk writes a version 1 reference set of n chunk references (an
// array "data" of shape (n/100, 100*64) float32 in 1 x 64 chunks, spread
// over 50 files, with templates) and returns its size.
func Kerchunk(w io.Writer, n int) (int, error) {
	bw := &counter{w: bufio.NewWriterSize(w, 1<<20)}
	rows := (n + 99) / 100
	fmt.Fprintf(bw, "{\"version\": 1, \"templates\": {\"u\": \"s3://bench-bucket/run/file\"}, \"refs\": {\n")
	fmt.Fprintf(bw, "\".zgroup\": \"{\\\"zarr_format\\\": 2}\",\n")
	fmt.Fprintf(bw, "\"data/.zarray\": \"{\\\"chunks\\\": [1, 64], \\\"compressor\\\": null, \\\"dtype\\\": \\\"<f4\\\", \\\"fill_value\\\": 0.0, \\\"filters\\\": null, \\\"order\\\": \\\"C\\\", \\\"shape\\\": [%d, 6400], \\\"zarr_format\\\": 2}\",\n", rows)
	fmt.Fprintf(bw, "\"data/.zattrs\": \"{\\\"_ARRAY_DIMENSIONS\\\": [\\\"y\\\", \\\"x\\\"]}\"")
	for i := 0; i < n; i++ {
		file := i % 50
		off := int64(i/50)*256 + 8192
		fmt.Fprintf(bw, ",\n\"data/%d.%d\": [\"{{u}}_%03d.nc\", %d, 256]", i/100, i%100, file, off)
	}
	fmt.Fprint(bw, "\n}}\n")
	return bw.n, bw.w.(*bufio.Writer).Flush()
}

// WriteFiles writes zmetadata/.zmetadata (at least zmetaSize bytes) and
// refs.json (nrefs references) under dir.
func WriteFiles(dir string, zmetaSize, nrefs int) error {
	if err := os.MkdirAll(filepath.Join(dir, "zmetadata"), 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "zmetadata", ".zmetadata"))
	if err != nil {
		return err
	}
	if _, err := ZMetadata(f, zmetaSize); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "zmetadata", ".zgroup"), []byte(`{"zarr_format": 2}`), 0o644); err != nil {
		return err
	}
	f, err = os.Create(filepath.Join(dir, "refs.json"))
	if err != nil {
		return err
	}
	if _, err := Kerchunk(f, nrefs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type counter struct {
	w io.Writer
	n int
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
