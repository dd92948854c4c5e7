// Command pqgo writes Parquet reference directories (fsspec's
// LazyReferenceMapper layout) from tests/refs/data/pq/refs.json with
// parquet-go, a second implementation other than ours, for what
// hyparquet-writer cannot write: data pages v1 (what fastparquet and
// pyarrow write by default) and GZIP pages. It is its own module so the
// library never depends on parquet-go. Run from tests/refs/pqgo:
//
//	go run .
//
// Variants (record_size 16, files padded, paths relative to the variant
// directory, written as "../p1.bin"):
//
//	pqgo_v1_snappy  data pages v1, SNAPPY, path dictionary-encoded, optional path and raw
//	pqgo_v1_gzip    data pages v1, GZIP, path PLAIN, row groups of 6 rows
//	pqgo_v1_zstd    data pages v1, ZSTD, path dictionary-encoded, small pages
//	pqgo_v2_none    data pages v2, UNCOMPRESSED, path dictionary-encoded
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

const recordSize = 16

type dictRow struct {
	Path   *string `parquet:"path,optional,dict"`
	Offset int64   `parquet:"offset"`
	Size   int64   `parquet:"size"`
	Raw    []byte  `parquet:"raw,optional"`
}

type plainRow struct {
	Path   *string `parquet:"path,optional"`
	Offset int64   `parquet:"offset"`
	Size   int64   `parquet:"size"`
	Raw    []byte  `parquet:"raw,optional"`
}

type variant struct {
	name    string
	groups  int // rows per row group (0: one row group)
	dict    bool
	version int
	codec   compress.Codec
	opts    []parquet.WriterOption
}

func main() {
	root := filepath.Join("..", "data", "pq")
	src, err := os.ReadFile(filepath.Join(root, "refs.json"))
	check(err)
	var refs map[string]any
	check(json.Unmarshal(src, &refs))

	isMeta := func(k string) bool { return strings.HasPrefix(k, ".z") || strings.Contains(k, "/.z") }
	metadata := map[string]any{}
	grids := map[string][]int{}
	for k, v := range refs {
		if !isMeta(k) {
			continue
		}
		var m any
		check(json.Unmarshal([]byte(v.(string)), &m))
		metadata[k] = m
		if strings.HasSuffix(k, ".zarray") {
			mm := m.(map[string]any)
			shape, chunks := mm["shape"].([]any), mm["chunks"].([]any)
			g := []int{}
			for i := range shape {
				s, c := int(shape[i].(float64)), int(chunks[i].(float64))
				g = append(g, (s+c-1)/c)
			}
			if len(g) == 0 {
				g = []int{1}
			}
			grids[strings.TrimSuffix(strings.TrimSuffix(k, ".zarray"), "/")] = g
		}
	}
	rows := map[string]map[int]plainRow{}
	for k, v := range refs {
		if isMeta(k) {
			continue
		}
		i := strings.LastIndexByte(k, '/')
		field, chunk := k[:i], k[i+1:]
		g := grids[field]
		n := 0
		for d, p := range strings.Split(chunk, ".") {
			c, err := strconv.Atoi(p)
			check(err)
			n = n*g[d] + c
		}
		var r plainRow
		switch x := v.(type) {
		case string:
			if strings.HasPrefix(x, "base64:") {
				r.Raw, err = base64.StdEncoding.DecodeString(x[7:])
				check(err)
			} else {
				r.Raw = []byte(x)
			}
		case []any:
			p := "../" + x[0].(string)
			r.Path = &p
			if len(x) == 3 {
				r.Offset, r.Size = int64(x[1].(float64)), int64(x[2].(float64))
			}
		}
		if rows[field] == nil {
			rows[field] = map[int]plainRow{}
		}
		rows[field][n] = r
	}

	variants := []variant{
		{name: "pqgo_v1_snappy", dict: true, version: 1, codec: &snappy.Codec{}},
		{name: "pqgo_v1_gzip", groups: 6, dict: false, version: 1, codec: &gzip.Codec{Level: 6}},
		{name: "pqgo_v1_zstd", dict: true, version: 1, codec: &zstd.Codec{Level: zstd.SpeedDefault}, opts: []parquet.WriterOption{parquet.PageBufferSize(64)}},
		{name: "pqgo_v2_none", dict: true, version: 2, codec: &uncompressed.Codec{}},
	}
	fields := make([]string, 0, len(grids))
	for f := range grids {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	files := 0
	for _, v := range variants {
		dir := filepath.Join(root, v.name)
		check(os.RemoveAll(dir))
		check(os.MkdirAll(dir, 0o755))
		zm, err := json.MarshalIndent(map[string]any{"metadata": metadata, "record_size": recordSize}, "", " ")
		check(err)
		check(os.WriteFile(filepath.Join(dir, ".zmetadata"), append(zm, '\n'), 0o644))
		for _, field := range fields {
			total := 1
			for _, n := range grids[field] {
				total *= n
			}
			for f := 0; f*recordSize < total; f++ {
				var recs []plainRow
				for n := f * recordSize; n < (f+1)*recordSize; n++ {
					recs = append(recs, rows[field][n]) // zero row: neither path nor raw
				}
				fdir := filepath.Join(dir, filepath.FromSlash(field))
				check(os.MkdirAll(fdir, 0o755))
				out, err := os.Create(filepath.Join(fdir, fmt.Sprintf("refs.%d.parq", f)))
				check(err)
				opts := append([]parquet.WriterOption{
					parquet.Compression(v.codec),
					parquet.DataPageVersion(v.version),
					parquet.CreatedBy("parquet-go (zarr-wasm tests/refs/pqgo)", "", ""),
				}, v.opts...)
				if v.dict {
					w := parquet.NewGenericWriter[dictRow](out, opts...)
					drs := make([]dictRow, len(recs))
					for i, r := range recs {
						drs[i] = dictRow(r)
					}
					_, err = w.Write(drs)
					check(err)
					check(w.Close())
				} else {
					// Rows built value by value: parquet-go 0.32's generic
					// writer, given rows in several row groups, writes the
					// null optional []byte values that follow a non-null one
					// in a later row group as empty values (its own reader,
					// hyparquet and ours all read them so).
					schema := parquet.SchemaOf(plainRow{})
					w := parquet.NewWriter(out, append(opts, schema)...)
					col := func(name string) int {
						leaf, ok := schema.Lookup(name)
						if !ok {
							panic(name)
						}
						return leaf.ColumnIndex
					}
					step := len(recs)
					if v.groups > 0 {
						step = v.groups
					}
					for i := 0; i < len(recs); i += step {
						var prs []parquet.Row
						for _, r := range recs[i:min(i+step, len(recs))] {
							row := make(parquet.Row, 4)
							row[col("offset")] = parquet.Int64Value(r.Offset).Level(0, 0, col("offset"))
							row[col("size")] = parquet.Int64Value(r.Size).Level(0, 0, col("size"))
							if r.Path != nil {
								row[col("path")] = parquet.ByteArrayValue([]byte(*r.Path)).Level(0, 1, col("path"))
							} else {
								row[col("path")] = parquet.NullValue().Level(0, 0, col("path"))
							}
							if r.Raw != nil {
								row[col("raw")] = parquet.ByteArrayValue(r.Raw).Level(0, 1, col("raw"))
							} else {
								row[col("raw")] = parquet.NullValue().Level(0, 0, col("raw"))
							}
							prs = append(prs, row)
						}
						_, err = w.WriteRows(prs)
						check(err)
						check(w.Flush())
					}
					check(w.Close())
				}
				check(out.Close())
				files++
			}
		}
	}
	fmt.Printf("%d variants, %d Parquet files\n", len(variants), files)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
