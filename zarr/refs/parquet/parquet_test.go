package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// The record files under tests/refs/data/pq were written by two other
// implementations (hyparquet-writer: data pages v2, zstd/snappy/none,
// dictionary, delta and byte-stream-split encodings; parquet-go: data
// pages v1 and v2, snappy/gzip/zstd/none, several row groups) from the same
// references, so the same file of every variant must decode to the same
// rows (hyp_old's last files are cut short, and it lacks some files and
// columns).

func pqDir() string { return filepath.Join("..", "..", "..", "tests", "refs", "data", "pq") }

type rows struct {
	path   []string // "\x00null" for null
	offset []int64
	size   []int64
	raw    []string
}

const null = "\x00null"

func decode(t testing.TB, file string) (rows, []string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var r rows
	n := f.NumRows()
	strs := func(name string) []string {
		if !f.HasColumn(name) {
			out := make([]string, n)
			for i := range out {
				out[i] = null
			}
			return out
		}
		c, err := f.Column(name)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(c.Bytes) != n {
			t.Fatalf("%s: %s has %d values for %d rows", file, name, len(c.Bytes), n)
		}
		out := make([]string, n)
		for i, b := range c.Bytes {
			out[i] = string(b)
			if c.Null(i) {
				out[i] = null
			}
		}
		return out
	}
	ints := func(name string) []int64 {
		if !f.HasColumn(name) {
			return make([]int64, n)
		}
		c, err := f.Column(name)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(c.Ints) != n || c.Valid != nil {
			t.Fatalf("%s: %s has %d values for %d rows (nulls: %v)", file, name, len(c.Ints), n, c.Valid != nil)
		}
		return c.Ints
	}
	r.path, r.raw, r.offset, r.size = strs("path"), strs("raw"), ints("offset"), ints("size")
	return r, f.Columns()
}

func TestWritersAgree(t *testing.T) {
	variants, err := os.ReadDir(pqDir())
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]map[string]rows{}
	files := 0
	for _, v := range variants {
		if !v.IsDir() {
			continue
		}
		root := filepath.Join(pqDir(), v.Name())
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parq") {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			r, _ := decode(t, p)
			if byFile[rel] == nil {
				byFile[rel] = map[string]rows{}
			}
			byFile[rel][v.Name()] = r
			files++
			return nil
		})
	}
	if files < 100 {
		t.Fatalf("only %d record files", files)
	}
	for rel, vs := range byFile {
		ref, ok := vs["pqgo_v1_snappy"]
		if !ok {
			t.Fatalf("%s: no pqgo_v1_snappy", rel)
		}
		if len(vs) < 7 {
			t.Errorf("%s: only in %d variants", rel, len(vs))
		}
		for name, r := range vs {
			n := len(r.path)
			if name != "hyp_old" && n != len(ref.path) {
				t.Errorf("%s %s: %d rows, want %d", name, rel, n, len(ref.path))
				continue
			}
			for i := 0; i < n; i++ {
				if r.path[i] != ref.path[i] || r.raw[i] != ref.raw[i] ||
					(r.path[i] != null && (r.offset[i] != ref.offset[i] || r.size[i] != ref.size[i])) {
					t.Errorf("%s %s row %d: %q %d %d %q, parquet-go v1: %q %d %d %q", name, rel, i,
						r.path[i], r.offset[i], r.size[i], short(r.raw[i]), ref.path[i], ref.offset[i], ref.size[i], short(ref.raw[i]))
				}
			}
		}
	}
	t.Logf("%d record files (%d distinct records) agree across the variants", files, len(byFile))
}

func short(s string) string {
	if len(s) > 8 {
		return s[:8] + "..."
	}
	return s
}

func fixtureFiles(t testing.TB) []string {
	var out []string
	filepath.WalkDir(pqDir(), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parq") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// readAll decodes every column, checking errors are typed.
func readAll(data []byte, lim Limits) error {
	f, err := OpenLimits(data, lim)
	if err != nil {
		return err
	}
	for _, name := range f.Columns() {
		c, err := f.Column(name)
		if err != nil {
			if errs.CodeOf(err) == "" {
				return fmt.Errorf("untyped error %T: %v", err, err)
			}
			continue
		}
		n := max(len(c.Ints), len(c.Bytes))
		if n != f.NumRows() || (c.Valid != nil && len(c.Valid) != n) {
			return fmt.Errorf("column %s: %d values, %d rows", name, n, f.NumRows())
		}
	}
	return nil
}

// TestDamaged cuts and flips bytes of real files: errors, never panics or
// wrong lengths.
func TestDamaged(t *testing.T) {
	files := fixtureFiles(t)
	for i, p := range files {
		if i%7 != 0 {
			continue
		}
		data, _ := os.ReadFile(p)
		for n := 0; n < len(data); n += 1 + len(data)/97 {
			err := readAll(data[:n], Limits{})
			if err == nil {
				t.Errorf("%s cut to %d bytes: no error", p, n)
			} else if errs.CodeOf(err) == "" {
				t.Errorf("%s cut to %d bytes: %v", p, n, err)
			}
		}
		for k := 4; k < len(data)-4; k += 1 + len(data)/211 {
			d := bytes.Clone(data)
			d[k] ^= 0x5a
			if err := readAll(d, Limits{PageSize: 1 << 20}); err != nil && errs.CodeOf(err) == "" {
				t.Errorf("%s flipped at %d: %v", p, k, err)
			}
		}
	}
}

func TestNotParquet(t *testing.T) {
	for _, d := range [][]byte{nil, []byte("PAR1"), []byte("PAR1\x00\x00\x00\x00PAR1"), []byte("PAR1xxxxxxxxxxxxPARE"), bytes.Repeat([]byte("x"), 40)} {
		_, err := Open(d)
		var e *errs.Error
		if !errors.As(err, &e) || (e.Code != errs.InvalidMetadata && e.Code != errs.Unsupported) {
			t.Errorf("%q: %v", d, err)
		}
	}
	data, _ := os.ReadFile(fixtureFiles(t)[0])
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Column("nope"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("missing column: %v", err)
	}
	if _, err := OpenLimits(data, Limits{Rows: f.NumRows() - 1}); errs.CodeOf(err) != errs.InvalidMetadata {
		t.Errorf("too many rows: %v", err)
	}
}

func TestRLEHybrid(t *testing.T) {
	// RLE run of 5 threes (width 2), then a bit-packed group of 8: 0..7 (width 3)
	out := make([]uint32, 5)
	if n, err := rleHybrid([]byte{10, 3}, 2, out); err != nil || n != 2 || fmt.Sprint(out) != "[3 3 3 3 3]" {
		t.Fatal(out, n, err)
	}
	// 0..7 at width 3, LSB first: 0b10001000 0b11000110 0b11111010
	out = make([]uint32, 8)
	if _, err := rleHybrid([]byte{3, 0x88, 0xc6, 0xfa}, 3, out); err != nil || fmt.Sprint(out) != "[0 1 2 3 4 5 6 7]" {
		t.Fatal(out, err)
	}
	for _, c := range [][]byte{{}, {10}, {0}, {1}, {3, 0x88}, {0x80}} {
		if _, err := rleHybrid(c, 3, make([]uint32, 4)); err == nil {
			t.Errorf("%x: no error", c)
		}
	}
	// DELTA_BINARY_PACKED of 1..5: block 128, 4 miniblocks, 5 values,
	// first 1, min delta 1, bit widths 0
	v, n, err := deltaBinary([]byte{0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0}, 10)
	if err != nil || n != 10 || fmt.Sprint(v) != "[1 2 3 4 5]" {
		t.Fatal(v, n, err)
	}
	if _, _, err := deltaBinary([]byte{0x80, 0x01, 4, 50, 2}, 10); err == nil {
		t.Error("more values than expected: no error")
	}
	if _, _, err := deltaBinary([]byte{3, 4, 5, 2}, 10); err == nil {
		t.Error("bad block size: no error")
	}
}
