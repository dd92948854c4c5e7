package zarr_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

func fixtureStore(t *testing.T, name string) *store.Directory {
	t.Helper()
	s, err := zarr.NewDirectoryStore(filepath.Join("..", "tests", "fixtures", "v2", "data", name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantCode(t *testing.T, err error, code zarr.ErrorCode) *zarr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	var e *zarr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *zarr.Error", err, err)
	}
	if e.Code != code {
		t.Fatalf("code %s, want %s: %v", e.Code, code, err)
	}
	return e
}

func TestNotFoundSuggestsNearName(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	if _, err := zarr.CreateArray(ctx, s, "weather/temperature", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{3}, DType: "<i4"}); err != nil {
		t.Fatal(err)
	}
	_, err := zarr.OpenArray(ctx, s, "weather/temprature")
	e := wantCode(t, err, zarr.CodeNotFound)
	if e.Suggest != "weather/temperature" || !strings.Contains(err.Error(), "weather/temprature") {
		t.Fatalf("error %q should name the path and suggest weather/temperature", err)
	}
	_, err = zarr.OpenGroup(ctx, s, "weather/temperature")
	wantCode(t, err, zarr.CodeNotFound)
}

func TestPathNormalisation(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	if _, err := zarr.CreateArray(ctx, s, `\a//b/c/`, zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{2}, DType: "<i2"}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a/.zgroup", "a/b/.zgroup", "a/b/c/.zarray", ".zgroup"} {
		if _, ok, _ := s.Get(ctx, k); !ok {
			t.Errorf("missing %s (ancestor groups must be created)", k)
		}
	}
	if _, err := zarr.OpenArray(ctx, s, "/a/b/c"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"a/../b", "./a", "a/./b"} {
		_, err := zarr.CreateArray(ctx, s, bad, zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{2}, DType: "<i2"})
		wantCode(t, err, zarr.CodeInvalidMetadata)
	}
	_, err := zarr.CreateArray(ctx, s, "a/b/c/d", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{2}, DType: "<i2"})
	wantCode(t, err, zarr.CodeExists)
	_, err = zarr.CreateArray(ctx, s, "a/b/c", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{2}, DType: "<i2"})
	wantCode(t, err, zarr.CodeExists)
	if _, err := zarr.CreateArray(ctx, s, "a/b/c", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{5}, DType: "<i2", Overwrite: true}); err != nil {
		t.Fatal(err)
	}
}

// TestAttributesWithNonFiniteTokens reads zarr-python's attributes, which
// contain bare NaN/Infinity and integers beyond int64.
func TestAttributesWithNonFiniteTokens(t *testing.T) {
	ctx := context.Background()
	g, err := zarr.OpenGroup(ctx, fixtureStore(t, "v2.zarr"), "hier")
	if err != nil {
		t.Fatal(err)
	}
	a := g.Attrs()
	if f, ok := a["nan"].(float64); !ok || !math.IsNaN(f) {
		t.Errorf("nan = %#v", a["nan"])
	}
	if f, ok := a["neg_inf"].(float64); !ok || !math.IsInf(f, -1) {
		t.Errorf("neg_inf = %#v", a["neg_inf"])
	}
	if n := a["int64_max"]; n == nil || n.(interface{ String() string }).String() != "9223372036854775807" {
		t.Errorf("int64_max = %#v", n)
	}
	if n := a["big"]; n == nil || n.(interface{ String() string }).String() != "1180591620717411303424" {
		t.Errorf("big = %#v", n)
	}
	// Writing them back keeps the tokens zarr-python reads.
	s := zarr.NewMemoryStore()
	g2, err := zarr.CreateGroup(ctx, s, "g", zarr.GroupOptions{Attributes: a})
	if err != nil {
		t.Fatal(err)
	}
	back, err := zarr.OpenGroup(ctx, s, "g")
	if err != nil {
		t.Fatal(err)
	}
	if f := back.Attrs()["inf"].(float64); !math.IsInf(f, 1) || back.Attrs()["escapes"] != a["escapes"] {
		t.Errorf("attributes changed on a round trip: %v", back.Attrs())
	}
	_ = g2
}

func TestChildren(t *testing.T) {
	ctx := context.Background()
	g, err := zarr.OpenGroup(ctx, fixtureStore(t, "v2.zarr"), "hier")
	if err != nil {
		t.Fatal(err)
	}
	kids, err := g.Children(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range kids {
		names = append(names, k.Name)
	}
	if strings.Join(names, ",") != "a,empty_group,with space" {
		t.Errorf("children %v", names)
	}
}

// getOnly hides every capability but Get, like a plain HTTP server.
type getOnly struct{ s zarr.Store }

func (g getOnly) Get(ctx context.Context, key string) ([]byte, bool, error) { return g.s.Get(ctx, key) }

func TestConsolidatedMetadataListsWithoutListing(t *testing.T) {
	ctx := context.Background()
	s := getOnly{fixtureStore(t, "consolidated.zarr")}
	g, err := zarr.OpenGroup(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := g.Consolidated(ctx); err != nil || !c {
		t.Fatal("the group should use .zmetadata", err)
	}
	kids, err := g.Children(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) == 0 {
		t.Fatal("no children from consolidated metadata")
	}
	// Without consolidated metadata, a store that cannot list says so.
	g2, err := zarr.OpenGroup(ctx, getOnly{fixtureStore(t, "v2.zarr")}, "hier")
	if err != nil {
		t.Fatal(err)
	}
	_, err = g2.Children(ctx)
	wantCode(t, err, zarr.CodeUnsupported)
}

func TestConsolidateIsReadByOpen(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	for _, p := range []string{"a/x", "a/b/y", "z"} {
		if _, err := zarr.CreateArray(ctx, s, p, zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{4}, DType: "<u1"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zarr.Consolidate(ctx, s, ""); err != nil {
		t.Fatal(err)
	}
	g, err := zarr.OpenGroup(ctx, getOnly{s}, "a")
	if err != nil {
		t.Fatal(err)
	}
	_ = g
	root, err := zarr.OpenGroup(ctx, getOnly{s}, "")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := root.Consolidated(ctx); err != nil || !c {
		t.Fatalf("root not consolidated: %v", err)
	}
	kids, err := root.Children(ctx)
	if err != nil || len(kids) != 2 {
		t.Fatalf("children %v, %v", kids, err)
	}
}

func TestWriteEmptyChunksAndResize(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	arr, err := zarr.CreateArray(ctx, s, "x", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{10, 10}, Chunks: []int{5, 5}, DType: "<i2", FillValue: 3})
	if err != nil {
		t.Fatal(err)
	}
	fill, _ := zarr.NDArrayFromBytes(arr.DType(), []int{}, []byte{3, 0})
	if err := arr.Write(ctx, nil, fill); err != nil {
		t.Fatal(err)
	}
	if keys := chunkKeys(s); len(keys) != 0 {
		t.Fatalf("chunks equal to the fill value were stored: %v", keys)
	}
	arr.WriteEmptyChunks = true
	if err := arr.Write(ctx, nil, fill); err != nil {
		t.Fatal(err)
	}
	if keys := chunkKeys(s); len(keys) != 4 {
		t.Fatalf("with WriteEmptyChunks every chunk is stored, got %v", keys)
	}
	if err := arr.Resize(ctx, []int{4, 12}); err != nil {
		t.Fatal(err)
	}
	if keys := chunkKeys(s); strings.Join(keys, ",") != "x/0.0,x/0.1" {
		t.Fatalf("after shrinking rows, chunks %v", keys)
	}
	again, err := zarr.OpenArray(ctx, s, "x")
	if err != nil || again.Shape()[1] != 12 {
		t.Fatalf("resized shape not stored: %v %v", again, err)
	}
}

func chunkKeys(s *store.Memory) []string {
	var out []string
	for _, k := range s.Keys() {
		if !strings.Contains(k, ".z") {
			out = append(out, k)
		}
	}
	return out
}

func TestBadMetadataIsTyped(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		doc  string
		code zarr.ErrorCode
		want string
	}{
		"missing field": {`{"zarr_format":2,"shape":[4],"chunk":[2],"dtype":"<i4","compressor":null,"fill_value":0,"order":"C","filters":null}`, zarr.CodeInvalidMetadata, `did you mean "chunk"`},
		"bad dtype":     {`{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"<x4","compressor":null,"fill_value":0,"order":"C","filters":null}`, zarr.CodeInvalidMetadata, "dtype"},
		"bad order":     {`{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"<i4","compressor":null,"fill_value":0,"order":"K","filters":null}`, zarr.CodeInvalidMetadata, "order"},
		"unknown codec": {`{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"<i4","compressor":{"id":"zstdd"},"fill_value":0,"order":"C","filters":null}`, zarr.CodeUnsupported, "zstdd"},
		"huge chunk":    {`{"zarr_format":2,"shape":[4],"chunks":[4000000000000],"dtype":"<i4","compressor":null,"fill_value":0,"order":"C","filters":null}`, zarr.CodeInvalidMetadata, "chunks"},
		"fill range":    {`{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"|u1","compressor":null,"fill_value":300,"order":"C","filters":null}`, zarr.CodeInvalidMetadata, "fill_value"},
		"not json":      {`{"zarr_format":2,`, zarr.CodeInvalidMetadata, ".zarray"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s := zarr.NewMemoryStore()
			_ = s.Set(ctx, "a/.zarray", []byte(c.doc))
			_, err := zarr.OpenArray(ctx, s, "a")
			wantCode(t, err, c.code)
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

func TestCorruptChunkIsACodecErrorNamingTheKey(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	arr, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{4}, Chunks: []int{2}, DType: "<i4", NoCompressor: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Set(ctx, "a/1", []byte{1, 2, 3})
	_, err = arr.Read(ctx, nil)
	wantCode(t, err, zarr.CodeCodec)
	if !strings.Contains(err.Error(), `"a/1"`) {
		t.Errorf("error %q does not name the chunk key", err)
	}
}

func TestDirectoryStoreWritesAtomically(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "a/b/key", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "a/b/key", []byte("two")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "a", "b"))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	got, ok, err := s.Get(ctx, "a/b/key")
	if err != nil || !ok || string(got) != "two" {
		t.Errorf("got %q %v %v", got, ok, err)
	}
	part, ok, err := s.GetRange(ctx, "a/b/key", store.Last(2))
	if err != nil || !ok || string(part) != "wo" {
		t.Errorf("suffix range %q %v %v", part, ok, err)
	}
	for _, bad := range []string{"../x", "/abs", "a/../../x"} {
		if err := s.Set(ctx, bad, nil); err == nil {
			t.Errorf("key %q escaped the root", bad)
		}
	}
}

func TestSelectionParsing(t *testing.T) {
	for in, want := range map[string]string{
		"1:5, ::2, -1": "1:5, :2, -1", "...": "...", "[0, ...]": "0, ...", "-3:": "-3:",
	} {
		sel, err := zarr.ParseSelection(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if sel.String() != strings.ReplaceAll(want, ":2", "::2") && sel.String() != want {
			t.Errorf("%q parsed as %q", in, sel.String())
		}
	}
	for _, bad := range []string{"1:2:3:4", "a", "::0", "1,,2"} {
		_, err := zarr.ParseSelection(bad)
		wantCode(t, err, zarr.CodeSelection)
	}
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	arr, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{ZarrFormat: 2, Shape: []int{4, 4}, DType: "<i4", NoCompressor: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"4", "0, 0, 0", "..., ...", "::-1"} {
		sel, err := zarr.ParseSelection(bad)
		if err == nil {
			_, err = arr.Read(ctx, sel)
		}
		wantCode(t, err, zarr.CodeSelection)
	}
}

// TestV2VariableChunks reads a v2 array whose "chunks" lists the sizes along
// a dimension (ZEP 3's backport): each stored chunk has its own shape.
func TestV2VariableChunks(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	_ = s.Set(ctx, "v/.zarray", []byte(`{"zarr_format":2,"shape":[10,4],"chunks":[[2,3,5],3],"dtype":"|u1",
		"compressor":null,"fill_value":255,"order":"C","filters":null}`))
	starts := []int{0, 2, 5, 10}
	for c := 0; c < 3; c++ {
		for cc := 0; cc < 2; cc++ {
			if c == 1 && cc == 1 {
				continue // missing: reads as the fill value
			}
			rows := starts[c+1] - starts[c]
			chunk := make([]byte, rows*3)
			for r := 0; r < rows; r++ {
				for k := 0; k < 3; k++ {
					chunk[r*3+k] = byte((starts[c]+r)*10 + cc*3 + k)
				}
			}
			_ = s.Set(ctx, fmt.Sprintf("v/%d.%d", c, cc), chunk)
		}
	}
	arr, err := zarr.OpenArray(ctx, s, "v")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(arr.ChunkSizes()) != "[[2 3 5] []]" {
		t.Errorf("chunk sizes %v", arr.ChunkSizes())
	}
	sel, _ := zarr.ParseSelection("1:9:2, 1:")
	nd, err := arr.Read(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for r := 1; r < 9; r += 2 {
		for col := 1; col < 4; col++ {
			v := byte(r*10 + col)
			if r >= 2 && r < 5 && col >= 3 {
				v = 255
			}
			want = append(want, v)
		}
	}
	if fmt.Sprint(nd.Shape()) != "[4 3]" || string(nd.Bytes()) != string(want) {
		t.Errorf("got %v %v, want %v", nd.Shape(), nd.Bytes(), want)
	}
}

// TestChildrenListsUnopenableChildren: one array with an unsupported codec
// is listed with its error, and its siblings are still listed.
func TestChildrenListsUnopenableChildren(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	if _, err := zarr.CreateArray(ctx, s, "g/good", zarr.ArrayOptions{Shape: []int{2}, DType: "int8"}); err != nil {
		t.Fatal(err)
	}
	_ = s.Set(ctx, "g/bad/.zarray", []byte(`{"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"<i4","compressor":{"id":"imagecodecs_jpeg2k"},"fill_value":0,"order":"C","filters":null}`))
	g, err := zarr.OpenGroup(ctx, s, "g")
	if err != nil {
		t.Fatal(err)
	}
	kids, err := g.Children(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 2 || kids[0].Name != "bad" || kids[0].Node != nil || zarr.ErrorCodeOf(kids[0].Err) != zarr.CodeUnsupported || kids[1].Node == nil {
		t.Fatalf("children %+v", kids)
	}
}

// TestPartialWriteLeavesStoredBytesAlone: decoding may share the store's
// bytes; a read-modify-write must not change them in place.
func TestPartialWriteLeavesStoredBytesAlone(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	arr, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{Shape: []int{8}, Chunks: []int{8}, DType: "uint8", NoCompressor: true})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := zarr.NDArrayFromBytes(arr.DType(), []int{8}, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	if err := arr.Write(ctx, nil, full); err != nil {
		t.Fatal(err)
	}
	before, _, _ := s.Get(ctx, "a/c/0")
	snapshot := string(before)
	one, _ := zarr.NDArrayFromBytes(arr.DType(), []int{}, []byte{99})
	sel, _ := zarr.ParseSelection("2:4")
	if err := arr.Write(ctx, sel, one); err != nil {
		t.Fatal(err)
	}
	if string(before) != snapshot {
		t.Fatalf("the stored bytes were modified in place: %v", before)
	}
	after, _, _ := s.Get(ctx, "a/c/0")
	if string(after) != string([]byte{1, 2, 99, 99, 5, 6, 7, 8}) {
		t.Fatalf("after the write: %v", after)
	}
}

// TestBareNaNFillValue: zarr-python's JSON writer can emit fill_value NaN
// as a bare token; it reads as the canonical NaN.
func TestBareNaNFillValue(t *testing.T) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	_ = s.Set(ctx, "a/.zarray", []byte(`{"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"<f4","compressor":null,"fill_value":NaN,"order":"C","filters":null}`))
	arr, err := zarr.OpenArray(ctx, s, "a")
	if err != nil {
		t.Fatal(err)
	}
	nd, err := arr.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("% x", nd.Bytes()) != "00 00 c0 7f 00 00 c0 7f" {
		t.Errorf("got % x", nd.Bytes())
	}
}
