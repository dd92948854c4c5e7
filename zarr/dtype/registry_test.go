package dtype

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The registry's names agree with every layer that prints or parses them.
func TestRegistryNames(t *testing.T) {
	// bytes per item of each TypedArray (ECMAScript, Table 71)
	jsBytes := map[string]int{"Int8Array": 1, "Uint8Array": 1, "Int16Array": 2, "Uint16Array": 2,
		"Int32Array": 4, "Uint32Array": 4, "Float32Array": 4, "Float64Array": 8,
		"BigInt64Array": 8, "BigUint64Array": 8}
	for _, n := range Numerics() {
		raw, _ := jsonx.MarshalStrict(n.Name)
		dt, err := ParseV3(raw)
		if err != nil {
			t.Errorf("%s: %v", n.Name, err)
			continue
		}
		if dt.Numeric() != n || dt.CommonName() != n.Name {
			t.Errorf("%s: parsed as %v (%s)", n.Name, dt.Numeric(), dt.CommonName())
		}
		if v, err := dt.V3JSON(); err != nil || v != n.Name {
			t.Errorf("%s: V3JSON %v %v", n.Name, v, err)
		}
		per := jsBytes[n.JSArray] * n.JSItems
		if n.Widened() {
			per = n.Size // widened to a float32 each (each part of a complex number)
			parts := 1
			if n.Kind == Complex {
				parts = 2
			}
			if jsBytes[n.JSArray] != 4 || n.JSItems != parts {
				t.Errorf("%s: widened into %s×%d", n.Name, n.JSArray, n.JSItems)
			}
		}
		if per != n.Size {
			t.Errorf("%s: %d bytes, %s×%d in JS", n.Name, n.Size, n.JSArray, n.JSItems)
		}
		// v2: a NumPy typestr with a byte order, or TensorStore's name
		s, err := dt.V2String()
		switch {
		case n.V2Ext:
			if err != nil || s != n.Name {
				t.Errorf("%s: V2String %q %v", n.Name, s, err)
			}
		case n.Typestr == "":
			if err == nil {
				t.Errorf("%s: V2String %q, want none", n.Name, s)
			}
			continue
		case err != nil || s[1:] != n.Typestr:
			t.Errorf("%s: V2String %q %v", n.Name, s, err)
		}
		back, err := ParseTypestr(s)
		if err != nil || back.Numeric() != n {
			t.Errorf("%s: %q parses as %v %v", n.Name, s, back, err)
		}
	}
	for alias, name := range numericAliases {
		if LookupNumeric(alias) != LookupNumeric(name) || LookupNumeric(name) == nil {
			t.Errorf("alias %s", alias)
		}
	}
}

func putCode(b []byte, c uint16) {
	if len(b) == 2 {
		binary.LittleEndian.PutUint16(b, c)
		return
	}
	b[0] = byte(c)
}

func getCode(b []byte) uint16 {
	if len(b) == 2 {
		return binary.LittleEndian.Uint16(b)
	}
	return uint16(b[0])
}

// bfloat16's fast path (rounding float32 bits) is FromFloat64 of the value,
// over random float32 bit patterns; NaN payloads other than the quiet bit
// are not kept (ml_dtypes' NaN is 0x7fc0 with the sign).
func TestRegistryBfloat16Bits(t *testing.T) {
	bf, _ := LowPrecFloat("bfloat16")
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 1<<20; i++ {
		b := r.Uint32()
		if i < 1<<16 {
			b = uint32(i)<<16 | 0x8000 // every tie
		}
		if got, want := bfloat16FromFloat32Bits(b), bf.FromFloat64(float64FromFloat32Bits(b)); got != want {
			t.Fatalf("%#08x: %#04x, want %#04x", b, got, want)
		}
	}
}

// float16: every code widens exactly and rounds back to itself (NaN
// payloads kept); IEEE binary16 rounding and overflow.
func TestRegistryFloat16(t *testing.T) {
	n := LookupNumeric("float16")
	for h := 0; h < 1<<16; h++ {
		f := math.Float32frombits(Float16ToFloat32Bits(uint16(h)))
		want := Float16Value(uint16(h))
		if !(float64(f) == want || (math.IsNaN(want) && f != f)) {
			t.Fatalf("%#04x widens to %v, want %v", h, f, want)
		}
		src := binary.LittleEndian.AppendUint32(nil, math.Float32bits(f))
		dst := make([]byte, 2)
		n.FromFloat32(dst, src)
		if back := binary.LittleEndian.Uint16(dst); back != uint16(h) {
			t.Fatalf("%#04x → %v → %#04x", h, f, back)
		}
	}
	// halfway cases go to even, overflow to infinity (65520 = 65504 + half
	// a step), below half the smallest subnormal to a signed zero
	for f, want := range map[float32]uint16{1 + 1.0/2048: 0x3c00, 1 + 3.0/2048: 0x3c02, 65520: 0x7c00, 65519: 0x7bff, -1e-9: 0x8000} {
		if got := Float16FromFloat32Bits(math.Float32bits(f)); got != want {
			t.Errorf("%v → %#04x, want %#04x", f, got, want)
		}
	}
}
