// Package conformance checks the engine against cases written by other
// Zarr implementations: a cases.json lists, for each array, the selection
// and the values the writer expects. The same checker runs natively (go
// test) and under WebAssembly (the wasip1 runner), and writes cases.json
// for stores the engine wrote, so zarr-python can check the other direction.
package conformance

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// Case is one expected read.
type Case struct {
	Name       string           `json:"name"`
	Store      string           `json:"store"`
	Path       string           `json:"path"`
	ZarrFormat int              `json:"zarr_format"`
	Selection  string           `json:"selection"`
	Shape      []int            `json:"shape"`
	DType      jsonx.RawMessage `json:"dtype"`
	Bytes      *string          `json:"bytes,omitempty"`
	Strings    []string         `json:"strings,omitempty"`
	Objects    []any            `json:"objects,omitempty"`
	HasObjects bool             `json:"-"`
	Note       string           `json:"note,omitempty"`
	// AnyNaN accepts any NaN bit pattern where a NaN is expected (for
	// writers whose NaN sign or payload is an arithmetic accident).
	AnyNaN bool `json:"-"`
	// Error is set when the oracle could not read the array.
	Error string           `json:"error,omitempty"`
	Fill  jsonx.RawMessage `json:"fill_value_raw,omitempty"`
}

// Load reads a cases.json file.
func Load(file string) ([]Case, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var raw []map[string]jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	cases := make([]Case, len(raw))
	for i, r := range raw {
		b, _ := jsonx.MarshalStrict(r)
		if err := jsonx.Unmarshal(b, &cases[i]); err != nil {
			return nil, fmt.Errorf("%s: case %d: %v", file, i, err)
		}
		_, cases[i].HasObjects = r["objects"]
	}
	return cases, nil
}

// Check opens c's array in the store under root and compares the read
// values with the expected ones.
func Check(ctx context.Context, root string, c Case) error {
	s, err := zarr.NewDirectoryStore(filepath.Join(root, c.Store))
	if err != nil {
		return err
	}
	return CheckStore(ctx, s, c)
}

// CheckStore reads a case's array from s and compares it with the case.
func CheckStore(ctx context.Context, s zarr.Store, c Case) error {
	arr, err := zarr.OpenArray(ctx, s, c.Path)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	if c.ZarrFormat != 0 && arr.ZarrFormat() != c.ZarrFormat {
		return fmt.Errorf("zarr_format %d, want %d", arr.ZarrFormat(), c.ZarrFormat)
	}
	sel, err := zarr.ParseSelection(c.Selection)
	if err != nil {
		return fmt.Errorf("selection %q: %w", c.Selection, err)
	}
	got, err := arr.Read(ctx, sel)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	return Compare(got, c)
}

// Compare checks an array against a case's expected shape and values.
func Compare(got *zarr.NDArray, c Case) error {
	if !reflect.DeepEqual(append([]int{}, got.Shape()...), append([]int{}, c.Shape...)) {
		return fmt.Errorf("shape %v, want %v", got.Shape(), c.Shape)
	}
	if c.Bytes != nil {
		want, err := base64.StdEncoding.DecodeString(*c.Bytes)
		if err != nil {
			return fmt.Errorf("bad expected bytes: %v", err)
		}
		have := got.Bytes()
		if string(have) != string(want) && !(c.AnyNaN && sameFloatsAnyNaN(have, want, got.DType())) {
			return fmt.Errorf("bytes differ: %s", firstDiff(have, want, got.DType().Size))
		}
	}
	if c.Strings != nil {
		have, err := got.Strings()
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(have, c.Strings) {
			return fmt.Errorf("strings %q, want %q", clip(have), clip(c.Strings))
		}
	}
	if c.HasObjects {
		have, err := got.Objects()
		if err != nil {
			return err
		}
		if len(have) != len(c.Objects) {
			return fmt.Errorf("%d objects, want %d", len(have), len(c.Objects))
		}
		for i := range have {
			if !sameObject(have[i], c.Objects[i]) {
				return fmt.Errorf("object %d is %#v, want %#v", i, have[i], c.Objects[i])
			}
		}
	}
	if c.Bytes == nil && c.Strings == nil && !c.HasObjects {
		return fmt.Errorf("case has no expected values")
	}
	return nil
}

// sameObject compares a decoded value with the JSON form of the expectation:
// bytes as {"base64": ...}, numbers as jsonx.Number.
func sameObject(have, want any) bool {
	switch w := want.(type) {
	case nil:
		return have == nil
	case map[string]any:
		if b64, ok := w["base64"].(string); ok && len(w) == 1 {
			hb, isBytes := have.([]byte)
			wb, err := base64.StdEncoding.DecodeString(b64)
			return isBytes && err == nil && string(hb) == string(wb)
		}
		hm, ok := have.(map[string]any)
		if !ok || len(hm) != len(w) {
			return false
		}
		for k, v := range w {
			if !sameObject(hm[k], v) {
				return false
			}
		}
		return true
	case []any:
		ha, ok := have.([]any)
		if !ok || len(ha) != len(w) {
			return false
		}
		for i := range w {
			if !sameObject(ha[i], w[i]) {
				return false
			}
		}
		return true
	case jsonx.Number:
		wf, _ := w.Float64()
		switch h := have.(type) {
		case int64:
			wi, err := w.Int64()
			return err == nil && wi == h
		case float64:
			return h == wf || (math.IsNaN(h) && math.IsNaN(wf))
		case jsonx.Number:
			return h == w
		}
		return false
	default:
		return reflect.DeepEqual(have, want)
	}
}

func firstDiff(have, want []byte, es int) string {
	if len(have) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(have), len(want))
	}
	if es <= 0 {
		es = 1
	}
	for i := range have {
		if have[i] != want[i] {
			e := i / es
			return fmt.Sprintf("element %d: % x, want % x", e, have[e*es:(e+1)*es], want[e*es:(e+1)*es])
		}
	}
	return "equal"
}

func clip(s []string) []string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// sameFloatsAnyNaN compares float or complex elements bit for bit, except
// that any two NaNs are equal.
func sameFloatsAnyNaN(have, want []byte, dt *dtype.DataType) bool {
	w := dt.Size
	if dt.Kind == dtype.Complex {
		w /= 2
	} else if dt.Kind != dtype.Float {
		return false
	}
	if len(have) != len(want) || (w != 4 && w != 8) {
		return false
	}
	isNaN := func(b []byte) bool {
		if w == 4 {
			return math.IsNaN(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
		}
		return math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	for i := 0; i < len(have); i += w {
		h, x := have[i:i+w], want[i:i+w]
		if string(h) != string(x) && !(isNaN(h) && isNaN(x)) {
			return false
		}
	}
	return true
}
