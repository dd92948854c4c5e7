package zarr

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// extensionCodes returns, for one of TensorStore's v2 extension data types,
// every stored code (as element bytes, little endian) and the value the
// reference gives it (NaN for NaN codes). The float values are ml_dtypes'
// (tests/testdata/ml_dtypes, written by tests/lowprec/gen_mldtypes.py); the
// integers are decoded here.
func extensionCodes(t *testing.T, name string) (codes [][]byte, values []float64) {
	t.Helper()
	switch name {
	case "int2", "int4":
		bits := 2
		if name == "int4" {
			bits = 4
		}
		// Two's complement in the low bits; TensorStore pads by sign
		// extension, so the stored byte of -1 is 0xff.
		for c := 0; c < 1<<bits; c++ {
			v := c
			if c >= 1<<(bits-1) {
				v -= 1 << bits
			}
			codes, values = append(codes, []byte{byte(int8(v))}), append(values, float64(v))
		}
		return codes, values
	}
	raw, err := os.ReadFile(filepath.Join(peers.TestData(), "ml_dtypes", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab struct {
		Values []jsonx.RawMessage `json:"values"`
	}
	if err := jsonx.UnmarshalStrict(raw, &tab); err != nil {
		t.Fatal(err)
	}
	for c, r := range tab.Values {
		var f float64
		var s string
		if jsonx.UnmarshalStrict(r, &s) == nil {
			switch s {
			case "nan", "-nan":
				f = math.NaN()
			default:
				f, err = strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatalf("%s: table entry %s", name, r)
				}
			}
		} else if err := jsonx.UnmarshalStrict(r, &f); err != nil {
			t.Fatalf("%s: table entry %s", name, r)
		}
		b := []byte{byte(c)}
		if len(tab.Values) == 1<<16 {
			b = binary.LittleEndian.AppendUint16(nil, uint16(c))
		}
		codes, values = append(codes, b), append(values, f)
	}
	return codes, values
}

// TestV2ExtensionDTypes reads a .zarray naming each TensorStore extension
// type over chunk bytes holding every code, and writes the decoded values
// back, checking the stored bytes.
func TestV2ExtensionDTypes(t *testing.T) {
	ctx := context.Background()
	for _, name := range dtype.V2ExtensionNames {
		t.Run(name, func(t *testing.T) {
			codes, values := extensionCodes(t, name)
			if name == "bfloat16" {
				// Every 97th code keeps the test quick and still covers
				// subnormals, both signs, Inf and NaN patterns.
				var c2 [][]byte
				var v2 []float64
				for i := 0; i < len(codes); i += 97 {
					c2, v2 = append(c2, codes[i]), append(v2, values[i])
				}
				for _, i := range []int{0x7f80, 0xff80, 0x7fc0, 0x8000, 0x0001} {
					c2, v2 = append(c2, codes[i]), append(v2, values[i])
				}
				codes, values = c2, v2
			}
			var chunk []byte
			for _, c := range codes {
				chunk = append(chunk, c...)
			}
			n := len(codes)
			s := NewMemoryStore()
			doc := fmt.Sprintf(`{"zarr_format":2,"shape":[%d],"chunks":[%d],"dtype":%q,"compressor":null,"fill_value":1,"order":"C","filters":null}`, n, n, name)
			must(t, s.Set(ctx, "a/.zarray", []byte(doc)))
			must(t, s.Set(ctx, "a/0", chunk))
			arr, err := OpenArray(ctx, s, "a")
			if err != nil {
				t.Fatal(err)
			}
			dt := arr.DType()
			if got := dt.LoadFloat64(arr.Fill().Bytes); got != 1 {
				t.Fatalf("fill value reads as %v, want 1", got)
			}
			nd, err := arr.Read(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			b := nd.Bytes()
			for i, want := range values {
				got := dt.LoadFloat64(b[i*dt.Size : (i+1)*dt.Size])
				if !(got == want || math.IsNaN(got) && math.IsNaN(want)) || (got == 0 && math.Signbit(got) != math.Signbit(want)) {
					t.Fatalf("code %x reads as %v, the format defines %v", codes[i], got, want)
				}
			}

			// Write the finite values (and the NaNs) through a v2 array created
			// with this dtype; the stored bytes must be the codes.
			w, err := CreateArray(ctx, s, "w", ArrayOptions{Shape: []int{n}, Chunks: []int{n}, DType: name, ZarrFormat: 2, NoCompressor: true, FillValue: 1})
			if err != nil {
				t.Fatal(err)
			}
			zarray, _, _ := s.Get(ctx, "w/.zarray")
			var m map[string]any
			must(t, jsonx.UnmarshalStrict(zarray, &m))
			if m["dtype"] != name {
				t.Fatalf(".zarray dtype is %v, want %q", m["dtype"], name)
			}
			in := NewNDArray(w.DType(), []int{n})
			for i, v := range values {
				w.DType().StoreFloat64(in.Bytes()[i*dt.Size:(i+1)*dt.Size], v)
			}
			must(t, w.Write(ctx, nil, in))
			stored, ok, err := s.Get(ctx, "w/0")
			if err != nil || !ok {
				t.Fatalf("chunk not stored: %v", err)
			}
			for i, c := range codes {
				got := stored[i*dt.Size : (i+1)*dt.Size]
				if math.IsNaN(values[i]) {
					// Any NaN code of the format is a correct encoding.
					if !math.IsNaN(dt.LoadFloat64(got)) {
						t.Fatalf("NaN stored as %x", got)
					}
					continue
				}
				if string(got) != string(c) {
					// The integers' padding bits are ignored on reading.
					if (name == "int2" || name == "int4") && dt.LoadFloat64(got) == values[i] {
						continue
					}
					t.Fatalf("value %v stored as %x, want %x", values[i], got, c)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
