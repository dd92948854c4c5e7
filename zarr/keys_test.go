package zarr_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/grid"
)

// keyExample is one chunk key the extension registry states
// (tests/registry/examples/keys.tsv).
type keyExample struct {
	name     string
	encoding any
	coords   []int
	key      string
}

func loadKeyExamples(t *testing.T) []keyExample {
	f, err := os.Open(filepath.Join(peers.RepoRoot(), "tests", "registry", "examples", "keys.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []keyExample
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 {
			t.Fatalf("keys.tsv: bad line %q", sc.Text())
		}
		e := keyExample{name: cols[0], key: cols[3]}
		if err := json.Unmarshal([]byte(cols[1]), &e.encoding); err != nil {
			t.Fatal(err)
		}
		for _, c := range strings.Split(cols[2], ",") {
			if c == "" {
				continue
			}
			n, _ := strconv.Atoi(c)
			e.coords = append(e.coords, n)
		}
		out = append(out, e)
	}
	return out
}

// TestRegistryKeyExamples: for every chunk key the registry's pull requests
// state, an array with that chunk_key_encoding writes the chunk at those
// coordinates under that key, and reads a chunk stored under it.
func TestRegistryKeyExamples(t *testing.T) {
	ctx := context.Background()
	for _, e := range loadKeyExamples(t) {
		shape := make([]int, len(e.coords))
		chunks := make([]int, len(e.coords))
		sel := make(zarr.Selection, len(e.coords))
		for i, c := range e.coords {
			shape[i], chunks[i] = c+1, 1
			sel[i] = zarr.Index(c)
		}
		s := zarr.NewMemoryStore()
		arr, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{Shape: shape, Chunks: chunks, DType: "uint8",
			NoCompressor: true, ChunkKeyEncoding: e.encoding})
		if err != nil {
			t.Errorf("%s %v: %v", e.name, e.coords, err)
			continue
		}
		v, _ := zarr.NDArrayFromBytes(arr.DType(), []int{}, []byte{42})
		if err := arr.Write(ctx, sel, v); err != nil {
			t.Errorf("%s %v: write: %v", e.name, e.coords, err)
			continue
		}
		var stored []string
		for _, k := range s.Keys() {
			if k = strings.TrimPrefix(k, "a/"); k != "zarr.json" {
				stored = append(stored, k)
			}
		}
		if len(stored) != 1 || stored[0] != e.key {
			t.Errorf("%s %v: wrote %v, the registry says %q", e.name, e.coords, stored, e.key)
		}
		// a chunk another writer stored under the stated key reads back
		r := zarr.NewMemoryStore()
		doc, _, _ := s.Get(ctx, "a/zarr.json")
		_ = r.Set(ctx, "a/zarr.json", doc)
		_ = r.Set(ctx, "a/"+e.key, []byte{7})
		ra, err := zarr.OpenArray(ctx, r, "a")
		if err != nil {
			t.Fatal(err)
		}
		got, err := ra.Read(ctx, sel)
		if err != nil || got.Bytes()[0] != 7 {
			t.Errorf("%s %v: read %v %v, want the byte stored under %q", e.name, e.coords, got, err, e.key)
		}
	}
}

// Bad chunk_key_encoding configurations are typed errors naming the member.
func TestBadKeyEncodings(t *testing.T) {
	ctx := context.Background()
	cases := map[string]string{
		`{"name":"fanout","configuration":{"max_children":99}}`:                      "max_children",
		`{"name":"fanout","configuration":{"max_childen":1000}}`:                     "max_children",
		`{"name":"prefix","configuration":{"prefix":"/x","base_encoding":"v2"}}`:     "begin with /",
		`{"name":"prefix","configuration":{"prefix":"a/../b","base_encoding":"v2"}}`: "..",
		`{"name":"prefix","configuration":{"prefix":"x/"}}`:                          "base_encoding",
		`{"name":"suffix","configuration":{"suffix":".t","base_encoding":"fanot"}}`:  "fanout",
		`{"name":"template","configuration":{"template":"{*}"}}`:                     "separator",
		`{"name":"template","configuration":{"template":"{0}/{0}"}}`:                 "second time",
		`{"name":"template","configuration":{"template":"{5}"}}`:                     "no dimension",
		`{"name":"template","configuration":{"template":"x/{0}"}}`:                   "names 1 dimensions",
		`{"name":"template","configuration":{"template":"{0}/{1}/zarr.json"}}`:       "zarr.json",
		`{"name":"template","configuration":{"template":"{0:4}/{1}"}}`:               "width",
		`{"name":"defualt"}`: "default",
	}
	for enc, want := range cases {
		doc := `{"zarr_format":3,"node_type":"array","shape":[4,4],"data_type":"uint8","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2,2]}},` +
			`"chunk_key_encoding":` + enc + `,"fill_value":0,"codecs":[{"name":"bytes"}]}`
		s := zarr.NewMemoryStore()
		_ = s.Set(ctx, "a/zarr.json", []byte(doc))
		_, err := zarr.OpenArray(ctx, s, "a")
		code := errs.CodeOf(err)
		if err == nil || (code != errs.InvalidMetadata && code != errs.Unsupported) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a typed error saying %q", enc, err, want)
		}
	}
}

// TestRegistryGridExample: the rectilinear grid's README example
// (tests/registry/examples/grids.tsv) opens with the edge lengths the README
// says each entry expands to; written back (ArrayOptions.ChunkSizes), the
// document holds the same edges, repeated ones as [value, count], and the
// chunk at each grid index holds the stated shape.
func TestRegistryGridExample(t *testing.T) {
	ctx := context.Background()
	raw, err := os.ReadFile(filepath.Join(peers.RepoRoot(), "tests", "registry", "examples", "grids.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var shape []int
	var entries []string
	var want [][]int
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		n, _ := strconv.Atoi(cols[1])
		shape = append(shape, n)
		entries = append(entries, cols[2])
		var edges []int
		for _, c := range strings.Split(cols[3], ",") {
			v, _ := strconv.Atoi(c)
			edges = append(edges, v)
		}
		want = append(want, edges)
	}
	doc := fmt.Sprintf(`{"zarr_format":3,"node_type":"array","shape":%s,"data_type":"uint8",`+
		`"chunk_grid":{"name":"rectilinear","configuration":{"kind":"inline","chunk_shapes":[%s]}},`+
		`"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes"}]}`, intsJSONText(shape), strings.Join(entries, ","))
	s := zarr.NewMemoryStore()
	_ = s.Set(ctx, "a/zarr.json", []byte(doc))
	arr, err := zarr.OpenArray(ctx, s, "a")
	if err != nil {
		t.Fatal(err)
	}
	sizes := arr.ChunkSizes()
	for d := range want {
		got := sizes[d]
		if got == nil { // a regular dimension: its chunk size repeated over the length
			c := int(arr.Metadata().Grid[d].(grid.Regular))
			for len(got)*c < shape[d] {
				got = append(got, c)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want[d]) {
			t.Errorf("chunk_shapes[%d] %s: edges %v, the README says %v", d, entries[d], got, want[d])
		}
	}
	// written back: the edges (up to the array's length) as run lengths
	w := zarr.NewMemoryStore()
	if _, err := zarr.CreateArray(ctx, w, "b", zarr.ArrayOptions{Shape: shape, Chunks: []int{1, 1, 1, 1, 1}, DType: "uint8",
		NoCompressor: true, ChunkSizes: want}); err != nil {
		t.Fatal(err)
	}
	written, _, _ := w.Get(ctx, "b/zarr.json")
	var meta struct {
		ChunkGrid struct {
			Configuration struct {
				ChunkShapes []any `json:"chunk_shapes"`
			} `json:"configuration"`
		} `json:"chunk_grid"`
	}
	if err := json.Unmarshal(written, &meta); err != nil {
		t.Fatal(err)
	}
	wantRLE := []string{"[[4 2]]", "[1 2 3]", "[[4 2]]", "[[1 3] 3]", "[[4 3]]"}
	for d, e := range meta.ChunkGrid.Configuration.ChunkShapes {
		if fmt.Sprint(e) != wantRLE[d] {
			t.Errorf("written chunk_shapes[%d] = %v, want %s", d, e, wantRLE[d])
		}
	}
	b, err := zarr.OpenArray(ctx, w, "b")
	if err != nil {
		t.Fatal(err)
	}
	all := zarr.NewNDArray(b.DType(), shape)
	if err := b.Write(ctx, nil, all); err != nil {
		t.Fatal(err)
	}
	b.WriteEmptyChunks = true
	if err := b.Write(ctx, nil, all); err != nil {
		t.Fatal(err)
	}
	// chunk (0, 2, 1, 3, 0): edges 4, 3, 4, 3, 4 (stored at their full size)
	chunk, ok, _ := w.Get(ctx, "b/c/0/2/1/3/0")
	if !ok || len(chunk) != 4*3*4*3*4 {
		t.Errorf("chunk (0,2,1,3,0) holds %d bytes, want %d", len(chunk), 4*3*4*3*4)
	}
}

func intsJSONText(v []int) string {
	b, _ := json.Marshal(v)
	return string(b)
}
