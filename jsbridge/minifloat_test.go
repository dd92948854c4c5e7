package jsbridge

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
)

func TestHalfRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := half2float(uint16(h))
		want := dtype.Float16Value(uint16(h))
		if !(float64(f) == want || (math.IsNaN(want) && f != f)) {
			t.Fatalf("half2float(%#04x) = %v, want %v", h, f, want)
		}
		if back := float32ToHalf(f); back != uint16(h) {
			t.Fatalf("float32ToHalf(half2float(%#04x)) = %#04x", h, back)
		}
	}
	// Rounding: halfway cases go to even, overflow to infinity.
	cases := map[float32]uint16{1 + 1.0/2048: 0x3c00, 1 + 3.0/2048: 0x3c02, 65520: 0x7c00, 65519: 0x7bff, -1e-9: 0x8000}
	for f, want := range cases {
		if got := float32ToHalf(f); got != want {
			t.Errorf("float32ToHalf(%v) = %#04x, want %#04x", f, got, want)
		}
	}
}

func TestBfloat16(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		src := []byte{byte(h), byte(h >> 8)}
		f := toFloat32(&dtype.DataType{Kind: dtype.Float, Size: 2, Format: "bfloat16"}, src, 1)
		back := fromFloat32(&dtype.DataType{Kind: dtype.Float, Size: 2, Format: "bfloat16"}, f, 1)
		got := binary.LittleEndian.Uint16(back)
		isNaN := h&0x7f80 == 0x7f80 && h&0x7f != 0
		if got != uint16(h) && !(isNaN && got&0x7fc0 == 0x7fc0) {
			t.Fatalf("bfloat16 %#04x → %#04x", h, got)
		}
	}
	// 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
	one := math.Float32bits(1 + 1.0/256)
	if got := bfloat16Bits(one); got != 0x3f80 {
		t.Errorf("bfloat16Bits(1+2^-8) = %#04x", got)
	}
}

func TestMiniFormats(t *testing.T) {
	known := map[string]map[uint32]float64{
		"float8_e4m3fn":   {0x7e: 448, 0x01: math.Ldexp(1, -9), 0x38: 1, 0xb8: -1},
		"float8_e5m2":     {0x7b: 57344, 0x7c: math.Inf(1), 0x01: math.Ldexp(1, -16)},
		"float8_e4m3fnuz": {0x7f: 240, 0x08: math.Ldexp(1, -7)},
		"float8_e8m0fnu":  {0x7f: 1, 0x00: math.Ldexp(1, -127), 0xfe: math.Ldexp(1, 127)},
		"float4_e2m1fn":   {0x7: 6, 0x1: 0.5, 0xf: -6},
		"float6_e2m3fn":   {0x1f: 7.5},
		"float6_e3m2fn":   {0x1f: 28},
	}
	for name, vals := range known {
		tab := tableFor(name)
		for c, want := range vals {
			if got := tab.values[c]; got != want {
				t.Errorf("%s %#x = %v, want %v", name, c, got, want)
			}
		}
	}
	nanCodes := map[string]uint32{"float8_e4m3fn": 0x7f, "float8_e4m3fnuz": 0x80, "float8_e5m2fnuz": 0x80, "float8_e8m0fnu": 0xff}
	for name, c := range nanCodes {
		if v := tableFor(name).values[c]; !math.IsNaN(v) {
			t.Errorf("%s %#x = %v, want NaN", name, c, v)
		}
	}
	// Every finite code encodes back to itself (negative zero of fnuz
	// formats does not exist).
	for name := range miniFormats {
		tab := tableFor(name)
		for c, v := range tab.values {
			if math.IsNaN(v) {
				continue
			}
			if got := tab.encode(v); tab.values[got] != v || math.Signbit(tab.values[got]) != math.Signbit(v) {
				t.Errorf("%s: encode(%v) = %#x (%v), want %#x", name, v, got, tab.values[got], c)
			}
		}
	}
	// Overflow: past the largest value by more than half a step.
	if got := tableFor("float8_e4m3fn").encode(1000); got != 0x7f {
		t.Errorf("e4m3fn overflow → %#x, want NaN 0x7f", got)
	}
	if got := tableFor("float8_e5m2").encode(-1e6); got != 0xfc {
		t.Errorf("e5m2 overflow → %#x, want -inf 0xfc", got)
	}
	if got := tableFor("float8_e4m3fn").encode(460); got != 0x7e {
		t.Errorf("e4m3fn 460 → %#x, want 448 (0x7e)", got)
	}
}
