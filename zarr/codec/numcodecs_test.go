package codec

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta/names"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// The vectors under testdata/numcodecs are written by
// tests/codecs/gen_vectors.py with numcodecs (see its docstring).

const vectorDir = "testdata/numcodecs"

type vectorIndex struct {
	Numcodecs      string            `json:"numcodecs"`
	Vectors        []vector          `json:"vectors"`
	QuantizeScales map[string]string `json:"quantize_scales"`
	Promotions     [][3]string       `json:"promotions"`
}

type vector struct {
	Name          string           `json:"name"`
	Kind          string           `json:"kind"`
	Config        jsonx.RawMessage `json:"config"`
	DecodeConfig  jsonx.RawMessage `json:"decode_config"`
	DType         string           `json:"dtype"`
	Shape         []int            `json:"shape"`
	Input         string           `json:"input"`
	InputValues   []tagged         `json:"input_values"`
	Encoded       string           `json:"encoded"`
	EncodedDType  string           `json:"encoded_dtype"`
	EncodedShape  []int            `json:"encoded_shape"`
	Decoded       string           `json:"decoded"`
	DecodedValues []tagged         `json:"decoded_values"`
	Exact         bool             `json:"exact"`
	GoError       string           `json:"go_error"`
}

type tagged struct {
	T string           `json:"t"`
	V jsonx.RawMessage `json:"v,omitempty"`
}

func loadIndex(t testing.TB) *vectorIndex {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(vectorDir, "index.json"))
	if err != nil {
		t.Fatalf("reading vectors (regenerate with tests/codecs/gen_vectors.py): %v", err)
	}
	var idx vectorIndex
	if err := jsonx.UnmarshalStrict(raw, &idx); err != nil {
		t.Fatal(err)
	}
	return &idx
}

func readVectorFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectorDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func untag(t testing.TB, v tagged) any {
	t.Helper()
	switch v.T {
	case "none":
		return nil
	case "bool":
		var b bool
		must(t, jsonx.UnmarshalStrict(v.V, &b))
		return b
	case "int":
		var s string
		must(t, jsonx.UnmarshalStrict(v.V, &s))
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		u, err := strconv.ParseUint(s, 10, 64)
		must(t, err)
		return u
	case "float":
		var s string
		must(t, jsonx.UnmarshalStrict(v.V, &s))
		f, err := strconv.ParseFloat(s, 64)
		must(t, err)
		if math.IsNaN(f) {
			// Python's float("nan"), whose bits msgpack2 writes (Go's NaN has others).
			return math.Float64frombits(0x7ff8000000000000)
		}
		return f
	case "str":
		var s string
		must(t, jsonx.UnmarshalStrict(v.V, &s))
		return s
	case "bytes":
		var s string
		must(t, jsonx.UnmarshalStrict(v.V, &s))
		b, err := base64.StdEncoding.DecodeString(s)
		must(t, err)
		return b
	case "list":
		var l []tagged
		must(t, jsonx.UnmarshalStrict(v.V, &l))
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = untag(t, e)
		}
		return out
	case "dict":
		var l [][2]jsonx.RawMessage
		must(t, jsonx.UnmarshalStrict(v.V, &l))
		out := map[string]any{}
		for _, kv := range l {
			var k string
			var e tagged
			must(t, jsonx.UnmarshalStrict(kv[0], &k))
			must(t, jsonx.UnmarshalStrict(kv[1], &e))
			out[k] = untag(t, e)
		}
		return out
	}
	t.Fatalf("unknown tag %q", v.T)
	return nil
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sameValue compares decoded values exactly: floats by bits (NaN equals
// NaN, -0 differs from 0), integers by value whatever their Go type.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64, uint64:
		xs, xok := intString(a)
		ys, yok := intString(b)
		return xok && yok && xs == ys
	case float64:
		y, ok := b.(float64)
		return ok && (math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y))
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

func intString(v any) (string, bool) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	return "", false
}

// modelConfig translates a numcodecs configuration as package meta does
// (names.V2, names.Config).
func modelConfig(t testing.TB, cfg jsonx.RawMessage) Config {
	var m map[string]jsonx.RawMessage
	must(t, jsonx.UnmarshalStrict(cfg, &m))
	var id string
	must(t, jsonx.UnmarshalStrict(m["id"], &id))
	name, err := names.V2(id)
	if err != nil {
		return Config{Name: id, Configuration: cfg} // Build reports it
	}
	c, err := names.Config(name, m, 0)
	must(t, err)
	return Config{Name: name, Configuration: c}
}

// vectorSpec is the chunk representation a vector's codec receives.
func vectorSpec(t testing.TB, v *vector) Spec {
	if v.Kind == "bytes" {
		return Spec{}
	}
	dt, err := dtype.ParseTypestr(v.DType)
	must(t, err)
	return Spec{Shape: v.Shape, DType: dt, Fill: dt.ZeroFill()}
}

// inputArray builds the vector's input chunk in memory.
func inputArray(t testing.TB, v *vector, spec Spec) *nd.Array {
	if spec.DType.Variable() {
		vals := make([]any, len(v.InputValues))
		for i, tv := range v.InputValues {
			vals[i] = untag(t, tv)
		}
		a, err := nd.FromObjects(spec.DType, spec.Shape, vals)
		must(t, err)
		return a
	}
	data := append([]byte(nil), readVectorFile(t, v.Input)...)
	dtype.ToLittle(spec.DType, data)
	a, err := nd.FromBytes(spec.DType, spec.Shape, data)
	must(t, err)
	return a
}

// checkDecoded compares a decoded chunk with the vector's expectation.
func checkDecoded(t *testing.T, v *vector, got *nd.Array) {
	t.Helper()
	if v.DecodedValues != nil {
		objs, err := got.Objects()
		if err != nil {
			t.Fatalf("decoded %s, want object values: %v", got.DType(), err)
		}
		if len(objs) != len(v.DecodedValues) {
			t.Fatalf("decoded %d values, want %d", len(objs), len(v.DecodedValues))
		}
		for i, tv := range v.DecodedValues {
			if want := untag(t, tv); !sameValue(objs[i], want) {
				t.Errorf("value %d: got %#v, want %#v", i, objs[i], want)
			}
		}
		return
	}
	want := readVectorFile(t, v.Decoded)
	stored := append([]byte(nil), got.Bytes()...)
	dt, err := dtype.ParseTypestr(v.DType)
	must(t, err)
	dtype.SwapTo(dt, stored, dtype.Little)
	if !bytes.Equal(stored, want) {
		t.Errorf("decoded bytes differ\n got %s\nwant %s", abbrevHex(stored), abbrevHex(want))
	}
	if !equalShape(got.Shape(), v.Shape) {
		t.Errorf("decoded shape %v, want %v", got.Shape(), v.Shape)
	}
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func abbrevHex(b []byte) string {
	if len(b) > 64 {
		return fmt.Sprintf("%x... (%d bytes)", b[:64], len(b))
	}
	return fmt.Sprintf("%x", b)
}

// buildVector builds a vector's codec: a bytes codec on its own, an array
// filter or object codec inside a one-codec v2 pipeline (numcodecs'
// semantics on stored bytes, with the vector dtype's byte order).
func buildVector(t testing.TB, v *vector, cfg jsonx.RawMessage, spec Spec) (any, error) {
	mc := modelConfig(t, cfg)
	if v.Kind == "bytes" {
		return Build(mc, spec)
	}
	step := map[string]any{"name": mc.Name}
	if mc.Configuration != nil {
		step["configuration"] = mc.Configuration
	}
	pcfg, err := jsonx.MarshalStrict(map[string]any{"dtype": v.DType, "codecs": []any{step}})
	must(t, err)
	return Build(Config{Name: V2PipelineName, Configuration: pcfg}, spec)
}

// decodeVector decodes numcodecs' encoding with the Go codec.
func decodeVector(t *testing.T, v *vector) (*nd.Array, []byte, error) {
	spec := vectorSpec(t, v)
	cfg := v.Config
	if v.DecodeConfig != nil {
		cfg = v.DecodeConfig
	}
	c, err := buildVector(t, v, cfg, spec)
	if err != nil {
		return nil, nil, err
	}
	enc := readVectorFile(t, v.Encoded)
	switch k := c.(type) {
	case BytesToBytes:
		b, err := k.Decode(enc)
		return nil, b, err
	case ArrayToBytes:
		a, err := k.Decode(enc, Spec{Shape: spec.Shape, DType: memType(spec.DType), Fill: spec.Fill})
		return a, nil, err
	}
	t.Fatalf("codec %T has no known kind", c)
	return nil, nil, nil
}

func TestNumcodecsDecode(t *testing.T) {
	idx := loadIndex(t)
	decoded := 0
	for i := range idx.Vectors {
		v := &idx.Vectors[i]
		t.Run(v.Name, func(t *testing.T) {
			a, b, err := decodeVector(t, v)
			if v.GoError != "" {
				if code := errs.CodeOf(err); code != errs.Code(v.GoError) {
					t.Fatalf("got error %v (code %q), want code %s", err, code, v.GoError)
				}
				t.Logf("expected error: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b != nil || v.Kind == "bytes" {
				if want := readVectorFile(t, v.Decoded); !bytes.Equal(b, want) {
					t.Fatalf("decoded bytes differ\n got %s\nwant %s", abbrevHex(b), abbrevHex(want))
				}
			} else {
				checkDecoded(t, v, a)
			}
			decoded++
		})
	}
	t.Logf("%d numcodecs vectors (numcodecs %s) decoded", decoded, idx.Numcodecs)
}

// encodeVector encodes the vector's input with the Go codec; for array
// filters the result is the encoded array's stored bytes.
func encodeVector(t *testing.T, v *vector) ([]byte, error) {
	spec := vectorSpec(t, v)
	c, err := buildVector(t, v, v.Config, spec)
	if err != nil {
		return nil, err
	}
	switch k := c.(type) {
	case BytesToBytes:
		return k.Encode(readVectorFile(t, v.Input))
	case ArrayToBytes:
		return k.Encode(inputArray(t, v, spec))
	}
	t.Fatalf("codec %T has no known kind", c)
	return nil, nil
}

// goEncoding is one entry of the index check_go_encodings.py reads.
type goEncoding struct {
	Name          string           `json:"name"`
	Kind          string           `json:"kind"`
	Config        jsonx.RawMessage `json:"config"`
	DType         string           `json:"dtype"`
	Shape         []int            `json:"shape"`
	File          string           `json:"file"`
	EncodedDType  string           `json:"encoded_dtype,omitempty"`
	Decoded       string           `json:"decoded,omitempty"`
	DecodedValues jsonx.RawMessage `json:"decoded_values,omitempty"`
}

// TestNumcodecsEncode encodes every vector's input in Go. Deterministic
// codecs must match numcodecs byte for byte; every encoding is then decoded
// by numcodecs itself (tests/codecs/check_go_encodings.py).
func TestNumcodecsEncode(t *testing.T) {
	idx := loadIndex(t)
	dir := t.TempDir()
	var entries []goEncoding
	exact := 0
	for i := range idx.Vectors {
		v := &idx.Vectors[i]
		t.Run(v.Name, func(t *testing.T) {
			enc, err := encodeVector(t, v)
			if v.GoError != "" {
				if code := errs.CodeOf(err); code != errs.Code(v.GoError) {
					t.Fatalf("got error %v (code %q), want code %s", err, code, v.GoError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Exact {
				if want := readVectorFile(t, v.Encoded); !bytes.Equal(enc, want) {
					at := 0
					for at < min(len(enc), len(want)) && enc[at] == want[at] {
						at++
					}
					t.Fatalf("encoding differs from numcodecs from byte %d\n got %s\nwant %s", at, abbrevHex(enc[at:]), abbrevHex(want[at:]))
				}
				exact++
			}
			file := filepath.Join(dir, fmt.Sprintf("%03d.bin", i))
			must(t, os.WriteFile(file, enc, 0o644))
			cfg := v.Config
			if v.DecodeConfig != nil {
				cfg = v.DecodeConfig
			}
			e := goEncoding{Name: v.Name, Kind: v.Kind, Config: cfg, DType: v.DType, Shape: v.Shape, File: file,
				EncodedDType: v.EncodedDType}
			if v.DecodedValues != nil {
				e.DecodedValues, _ = jsonx.MarshalStrict(v.DecodedValues)
			}
			if v.Decoded != "" {
				abs, err := filepath.Abs(filepath.Join(vectorDir, v.Decoded))
				must(t, err)
				e.Decoded = abs
			}
			entries = append(entries, e)
		})
	}
	t.Logf("%d Go encodings equal numcodecs' byte for byte", exact)
	if t.Failed() {
		return
	}
	checkWithNumcodecs(t, dir, entries)
}

func checkWithNumcodecs(t *testing.T, dir string, entries []goEncoding) {
	python := peers.RequirePython(t, "numcodecs", "numpy")
	raw, err := jsonx.MarshalStrict(entries)
	must(t, err)
	index := filepath.Join(dir, "go_index.json")
	must(t, os.WriteFile(index, raw, 0o644))
	script, err := filepath.Abs("../../tests/codecs/check_go_encodings.py")
	must(t, err)
	out, err := exec.Command(python, script, index).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "FAIL") {
			t.Error(l)
		}
	}
	if err != nil {
		t.Fatalf("check_go_encodings.py: %v\n%s", err, out)
	}
	t.Logf("numcodecs: %s", lines[len(lines)-1])
}

func TestQuantizeScaleMatchesPython(t *testing.T) {
	idx := loadIndex(t)
	if len(idx.QuantizeScales) == 0 {
		t.Fatal("no quantize scales in the index")
	}
	for d, hex := range idx.QuantizeScales {
		digits, _ := strconv.Atoi(d)
		want, err := strconv.ParseFloat(hex, 64)
		must(t, err)
		if got := quantizeScale(digits); got != want {
			t.Errorf("digits %d: scale %g, Python %g", digits, got, want)
		}
	}
}

func TestPromotionsMatchNumPy(t *testing.T) {
	idx := loadIndex(t)
	for _, p := range idx.Promotions {
		dt, err := dtype.ParseTypestr(p[0])
		must(t, err)
		a, _ := ntypeOf(dt)
		s, err := parsePyScalar([]byte(p[1]), "scalar")
		if err != nil {
			t.Errorf("%s: %v", p[1], err)
			continue
		}
		got := resultWithScalar(a, s)
		want, err := dtype.ParseTypestr(p[2])
		if err != nil {
			continue // NumPy gave object (Python int beyond uint64)
		}
		wt, _ := ntypeOf(want)
		if got != wt {
			t.Errorf("%s op %s: got %s, NumPy %s", p[0], p[1], got, p[2])
		}
	}
}
