package zarr

import (
	"bytes"
	"context"
	"encoding/hex"
	"math"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The registry's "json" data type (pull request 9): each element a JSON
// value, stored by vlen-utf8 as JSON text. Debian's numcodecs (VLenUTF8) and
// Python's json module make the chunk as the README defines it (compact,
// keys sorted, non-ASCII unescaped: nlohmann::json's dump, which TensorStore
// writes); the engine reads Python's values from it, writes the same bytes
// from them, and numcodecs and json.loads read those back.
const jsonPeerScript = `
import json, sys
import numpy as np
import numcodecs
values = [None, True, False, 0, -1, 2**63 - 1, -2**63, 2**64 - 1, 1.5, -0.0, 1e300, 5e-324,
          "", "ascii", "ü日本🙂", "quote\" back\\ nl\n tab\t nul\x00",
          [], [1, [2, [3]]], {}, {"b": 1, "a": [None, "x"], "ä": {"z": 2.25}}]
dump = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
texts = np.array([dump(v) for v in values], dtype=object)
chunk = numcodecs.VLenUTF8().encode(texts)
if sys.argv[1] == "write":
    print(json.dumps(values))
    print(bytes(chunk).hex())
else:  # read back what the engine wrote
    got = [json.loads(t) for t in numcodecs.VLenUTF8().decode(bytes.fromhex(sys.stdin.read().strip()))]
    assert got == values, (got, values)
    assert dump(got) == dump(values)  # 1 and 1.0, 0.0 and -0.0 told apart
    print("ok", len(got))
`

func TestJSONDataTypeAgainstNumcodecs(t *testing.T) {
	py := peers.RequirePython(t, "numcodecs", "numpy")
	out, err := exec.Command(py, "-c", jsonPeerScript, "write").CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var raw any
	if err := jsonx.Unmarshal([]byte(lines[0]), &raw); err != nil {
		t.Fatal(err)
	}
	want := dtype.JSONValue(raw).([]any)
	chunk, err := hex.DecodeString(lines[1])
	if err != nil {
		t.Fatal(err)
	}
	n := len(want)
	ctx := context.Background()
	s := NewMemoryStore()
	doc := `{"zarr_format":3,"node_type":"array","shape":[` + strconv.Itoa(n) + `,2],"data_type":"json",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[` + strconv.Itoa(n) + `,1]}},
		"chunk_key_encoding":{"name":"default"},"fill_value":{"some":"value","n":[1,2.5]},
		"codecs":[{"name":"vlen-utf8"}]}`
	must(t, s.Set(ctx, "a/zarr.json", []byte(doc)))
	must(t, s.Set(ctx, "a/c/0/0", chunk))
	arr, err := OpenArray(ctx, s, "a")
	if err != nil {
		t.Fatal(err)
	}
	if got := arr.DType().CommonName(); got != "json" {
		t.Errorf("CommonName %q", got)
	}
	nd, err := arr.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := nd.Objects()
	if err != nil {
		t.Fatal(err)
	}
	fill := map[string]any{"some": "value", "n": []any{int64(1), 2.5}}
	for i := 0; i < n; i++ {
		if !reflect.DeepEqual(objs[2*i], want[i]) {
			t.Errorf("element %d: %#v, Python's json %#v", i, objs[2*i], want[i])
		}
		if !reflect.DeepEqual(objs[2*i+1], fill) {
			t.Errorf("element %d of the missing chunk: %#v, want the fill value", i, objs[2*i+1])
		}
	}

	// written: the same bytes as numcodecs', which Python reads back
	w, err := CreateArray(ctx, s, "w", ArrayOptions{Shape: []int{n}, Chunks: []int{n}, DType: "json",
		FillValue: map[string]any{"k": nil}, Compressors: []map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := NDArrayFromObjects(w.DType(), []int{n}, want)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, nil, v); err != nil {
		t.Fatal(err)
	}
	stored, _, err := s.Get(ctx, "w/c/0")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, chunk) {
		t.Errorf("written chunk differs from numcodecs':\n%q\n%q", stored, chunk)
	}
	cmd := exec.Command(py, "-c", jsonPeerScript, "read")
	cmd.Stdin = strings.NewReader(hex.EncodeToString(stored))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("numcodecs and json.loads on the written chunk: %v\n%s", err, out)
	}
	meta, _, err := s.Get(ctx, "w/zarr.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(meta, []byte(`"data_type": "json"`)) && !bytes.Contains(meta, []byte(`"data_type":"json"`)) {
		t.Errorf("metadata: %s", meta)
	}
	if !bytes.Contains(meta, []byte(`"k": null`)) && !bytes.Contains(meta, []byte(`"k":null`)) {
		t.Errorf("fill value not written: %s", meta)
	}

	// bad input: NaN is no JSON value; a configuration; another codec
	bad, _ := NDArrayFromObjects(w.DType(), []int{1}, []any{[]any{math.NaN()}})
	w1, err := CreateArray(ctx, s, "w1", ArrayOptions{Shape: []int{1}, DType: "json", Compressors: []map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w1.Write(ctx, nil, bad); err == nil {
		t.Error("NaN written into a json array")
	}
	if _, err := dtype.ParseV3(jsonx.RawMessage(`{"name":"json","configuration":{"x":1}}`)); err == nil {
		t.Error("json with a configuration accepted")
	}
	doc2 := strings.Replace(doc, `"vlen-utf8"`, `"vlen-bytes"`, 1)
	must(t, s.Set(ctx, "b/zarr.json", []byte(doc2)))
	must(t, s.Set(ctx, "b/c/0/0", chunk))
	if b, err := OpenArray(ctx, s, "b"); err == nil {
		if _, err := b.Read(ctx, nil); errs.CodeOf(err) != errs.Unsupported {
			t.Errorf("json through vlen-bytes: %v, want UNSUPPORTED", err)
		}
	}
}
