package dtype

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// ml_dtypes' tables (tests/testdata/ml_dtypes, written by
// tests/lowprec/gen_mldtypes.py with ml_dtypes, the implementation
// zarr-python uses for these types): the value of every bit pattern, and the
// encoding of float64 and float32 test points along the three conversion
// paths ml_dtypes has (see the LowPrec comment).
type mlDtypesTable struct {
	Format string `json:"format"`
	Source string `json:"source"`
	Finfo  struct {
		Bits              int     `json:"bits"`
		Nexp              int     `json:"nexp"`
		Nmant             int     `json:"nmant"`
		Max               float64 `json:"max"`
		SmallestSubnormal float64 `json:"smallest_subnormal"`
	} `json:"finfo"`
	Values           []jsonx.RawMessage    `json:"values"`
	FromFloat64      [][2]jsonx.RawMessage `json:"from_float64"`
	FromFloat64Array [][2]jsonx.RawMessage `json:"from_float64_array"`
	FromFloat32      [][2]jsonx.RawMessage `json:"from_float32"`
}

func loadMLDtypesTable(t *testing.T, name string) *mlDtypesTable {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(peers.TestData(), "ml_dtypes", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab mlDtypesTable
	if err := jsonx.UnmarshalStrict(b, &tab); err != nil {
		t.Fatal(err)
	}
	if tab.Format != name {
		t.Fatalf("table %s names %q", name, tab.Format)
	}
	return &tab
}

// parseTableFloat reads a table entry: a JSON number, or a string "nan",
// "-nan", "inf", "-inf", "-0.0" or a hex float.
func parseTableFloat(raw jsonx.RawMessage) (float64, error) {
	var s string
	if err := jsonx.UnmarshalStrict(raw, &s); err != nil {
		var f float64
		err := jsonx.UnmarshalStrict(raw, &f)
		return f, err
	}
	switch s {
	case "nan":
		return math.NaN(), nil
	case "-nan":
		return math.Copysign(math.NaN(), -1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// tablePoints reads [x, bits] pairs.
func tablePoints(t *testing.T, pairs [][2]jsonx.RawMessage) ([]float64, []uint16) {
	t.Helper()
	xs, want := make([]float64, len(pairs)), make([]uint16, len(pairs))
	for i, r := range pairs {
		x, err := parseTableFloat(r[0])
		if err != nil {
			t.Fatalf("point %s: %v", r[0], err)
		}
		if err := jsonx.UnmarshalStrict(r[1], &want[i]); err != nil {
			t.Fatal(err)
		}
		xs[i] = x
	}
	return xs, want
}

func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b) && math.Signbit(a) == math.Signbit(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

// float32Of is float32(x) with a NaN's sign kept.
func float32Of(x float64) float32 {
	if math.IsNaN(x) {
		return math.Float32frombits(0x7fc00000 | uint32(math.Float64bits(x)>>63)<<31)
	}
	return float32(x)
}

func TestLowPrecAgainstMLDtypes(t *testing.T) {
	patterns, points := 0, 0
	for _, name := range LowPrecFloatFormats() {
		t.Run(name, func(t *testing.T) {
			p, _ := LowPrecFloat(name)
			tab := loadMLDtypesTable(t, name)
			checkAgainstMLDtypes(t, p, tab)
			patterns += len(tab.Values)
			points += len(tab.FromFloat64) + len(tab.FromFloat64Array) + len(tab.FromFloat32)
		})
	}
	t.Logf("%d bit patterns, %d conversions compared with ml_dtypes", patterns, points)
}

func checkAgainstMLDtypes(t *testing.T, p LowPrec, tab *mlDtypesTable) {
	fi := tab.Finfo
	if p.Bits() != fi.Bits || p.ExponentBits() != fi.Nexp || p.MantissaBits() != fi.Nmant {
		t.Fatalf("layout %d/%d/%d, ml_dtypes.finfo %d/%d/%d", p.Bits(), p.ExponentBits(),
			p.MantissaBits(), fi.Bits, fi.Nexp, fi.Nmant)
	}
	if len(tab.Values) != 1<<p.Bits() {
		t.Fatalf("%d values", len(tab.Values))
	}
	smallest := uint16(1) // e8m0 has no subnormals: code 0 is 2^-127
	if p.family == lpE8M0 {
		smallest = 0
	}
	if p.MaxFinite() != fi.Max || p.ToFloat64(smallest) != fi.SmallestSubnormal {
		t.Errorf("max %v, smallest subnormal %v; ml_dtypes.finfo %v, %v",
			p.MaxFinite(), p.ToFloat64(smallest), fi.Max, fi.SmallestSubnormal)
	}
	// every bit pattern decodes to ml_dtypes' value, NaN signs included
	n := LookupNumeric(p.Name())
	codes := make([]byte, len(tab.Values)*n.Size)
	for code := range tab.Values {
		putCode(codes[code*n.Size:(code+1)*n.Size], uint16(code))
	}
	as32 := make([]byte, 4*len(tab.Values))
	n.ToFloat32(as32, codes) // the path to a JavaScript Float32Array
	for code, raw := range tab.Values {
		want, err := parseTableFloat(raw)
		if err != nil {
			t.Fatalf("value %d: %v", code, err)
		}
		if got := p.ToFloat64(uint16(code)); !sameFloat(got, want) {
			t.Errorf("ToFloat64(%#x) = %v, ml_dtypes %v", code, got, want)
		}
		got32 := math.Float32frombits(binary.LittleEndian.Uint32(as32[4*code:]))
		if w := float32Of(want); math.Float32bits(got32) != math.Float32bits(w) &&
			!(got32 != got32 && w != w && math.Signbit(float64(got32)) == math.Signbit(want)) {
			t.Errorf("ToFloat32(%#x) = %v, ml_dtypes %v", code, got32, want)
		}
		// the registry: formats narrower than a byte ignore the upper bits
		if p.Bits() < 8 {
			for hi := 1; hi < 1<<(8-p.Bits()); hi++ {
				if g := p.ToFloat64(uint16(hi<<p.Bits() | code)); !sameFloat(g, want) {
					t.Errorf("ToFloat64(%#x) = %v, want %v (upper bits ignored)", hi<<p.Bits()|code, g, want)
				}
			}
		}
	}
	// float64 → format, as ml_dtypes' scalar type converts a Python float
	xs, want := tablePoints(t, tab.FromFloat64)
	for i, x := range xs {
		if got := p.FromFloat64(x); got != want[i] {
			t.Errorf("FromFloat64(%s = %v) = %#x (%v), ml_dtypes %#x (%v)", tab.FromFloat64[i][0], x,
				got, p.ToFloat64(got), want[i], p.ToFloat64(want[i]))
		}
	}
	// float64 array → format, as ml_dtypes' NumPy cast: through float32
	xs, want = tablePoints(t, tab.FromFloat64Array)
	for i, x := range xs {
		if got := p.FromFloat64(float64(float32Of(x))); got != want[i] {
			t.Errorf("FromFloat64(float32(%s)) = %#x, ml_dtypes' array cast %#x", tab.FromFloat64Array[i][0], got, want[i])
		}
	}
	// float32 → format (a JavaScript Float32Array written), by the bridge's
	// path: Numeric.FromFloat32
	xs, want = tablePoints(t, tab.FromFloat32)
	src := make([]byte, 4*len(xs))
	for i, x := range xs {
		if f := float32Of(x); float64(f) != x && x == x {
			t.Fatalf("float32 point %s is not a float32", tab.FromFloat32[i][0])
		} else {
			binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(f))
		}
	}
	dst := make([]byte, p.StorageSize()*len(xs))
	n.FromFloat32(dst, src)
	for i := range xs {
		if got := getCode(dst[i*n.Size : (i+1)*n.Size]); got != want[i] {
			t.Errorf("FromFloat32(%s) = %#x, ml_dtypes %#x", tab.FromFloat32[i][0], got, want[i])
		}
	}
}

// Values stated by the sources, asserted directly.
func TestLowPrecDocumented(t *testing.T) {
	for _, c := range []struct {
		name     string
		max      float64 // largest finite value
		minSub   float64 // smallest subnormal
		nan, inf int     // canonical NaN / +Inf encodings, -1 if none
	}{
		// ml_dtypes _finfo.py: bfloat16 max 0x1.FEp127, smallest_subnormal
		// 0x1p-133; zarr-extensions bfloat16 README: "NaN" is 0x7fc0.
		{"bfloat16", 0x1.FEp127, 0x1p-133, 0x7fc0, 0x7f80},
		// ml_dtypes tests/float8_test.cc NumericLimits: max 15.5, denorm_min
		// 2^-6; zarr-extensions float8_e3m4 README: "NaN" is 0x78.
		{"float8_e3m4", 15.5, 0x1p-6, 0x78, 0x70},
		// float8_test.cc: max 240, denorm_min 2^-9; README: "NaN" 0x7c.
		{"float8_e4m3", 240, 0x1p-9, 0x7c, 0x78},
		// float8_test.cc: max 448, denorm_min 2^-9; ml_dtypes README: NaN is
		// 0bS111'1111, no inf.
		{"float8_e4m3fn", 448, 0x1p-9, 0x7f, -1},
		// float8_test.cc: max 240, denorm_min 2^-10; README: NaN 0x80.
		{"float8_e4m3fnuz", 240, 0x1p-10, 0x80, -1},
		// float8_test.cc: max 30, denorm_min 2^-13; README: NaN 0x80.
		{"float8_e4m3b11fnuz", 30, 0x1p-13, 0x80, -1},
		// float8_test.cc: max 57344, denorm_min 2^-16; README: "NaN" 0x7e.
		{"float8_e5m2", 57344, 0x1p-16, 0x7e, 0x7c},
		// ml_dtypes _finfo.py: smallest_subnormal 0x1p-17; README NaN 0x80;
		// max 57344 (1.75 × 2^15, bias 16).
		{"float8_e5m2fnuz", 57344, 0x1p-17, 0x80, -1},
		// ml_dtypes tests/mxfloat_test.cc NumericLimits: max 6, denorm_min
		// 0.5; max 7.5, denorm_min 0.125; max 28, denorm_min 0.0625.
		{"float4_e2m1fn", 6, 0.5, -1, -1},
		{"float6_e2m3fn", 7.5, 0.125, -1, -1},
		{"float6_e3m2fn", 28, 0.0625, -1, -1},
	} {
		p, ok := LowPrecFloat(c.name)
		if !ok {
			t.Errorf("%s not supported", c.name)
			continue
		}
		if got := p.MaxFinite(); got != c.max {
			t.Errorf("%s: max %v, want %v", c.name, got, c.max)
		}
		if got := p.ToFloat64(1); got != c.minSub {
			t.Errorf("%s: smallest subnormal %v, want %v", c.name, got, c.minSub)
		}
		if got := p.FromFloat64(c.max); got != p.maxCode() {
			t.Errorf("%s: FromFloat64(max) = %#x", c.name, got)
		}
		n, hasNaN := p.NaNBits()
		if hasNaN != (c.nan >= 0) || (hasNaN && int(n) != c.nan) {
			t.Errorf("%s: NaNBits %#x %v, want %#x", c.name, n, hasNaN, c.nan)
		}
		if hasNaN {
			if got := p.FromFloat64(math.NaN()); got != n {
				t.Errorf("%s: FromFloat64(NaN) = %#x, want %#x", c.name, got, n)
			}
			if !math.IsNaN(p.ToFloat64(n)) {
				t.Errorf("%s: NaN bits decode to %v", c.name, p.ToFloat64(n))
			}
		}
		inf, hasInf := p.InfBits()
		if hasInf != (c.inf >= 0) || (hasInf && int(inf) != c.inf) || hasInf != p.HasInf() {
			t.Errorf("%s: InfBits %#x %v, want %#x", c.name, inf, hasInf, c.inf)
		}
	}
	// float8_e8m0fnu: ml_dtypes float8.h numeric_limits: min() and lowest()
	// are 0x00 (2^-127), max() 0xfe (2^127), quiet_NaN() 0xff, no infinity;
	// zarr-extensions README: "NaN" is 0xff.
	e8, _ := LowPrecFloat("float8_e8m0fnu")
	if e8.MaxFinite() != 0x1p127 || e8.ToFloat64(0) != 0x1p-127 || !math.IsNaN(e8.ToFloat64(0xff)) {
		t.Errorf("float8_e8m0fnu: max %v, min %v, 0xff %v", e8.MaxFinite(), e8.ToFloat64(0), e8.ToFloat64(0xff))
	}
	if n, ok := e8.NaNBits(); !ok || n != 0xff || e8.HasInf() {
		t.Errorf("float8_e8m0fnu: NaNBits %#x %v, HasInf %v", n, ok, e8.HasInf())
	}
	// bfloat16 max is about 3.39e38 (ml_dtypes finfo prints 3.38953e+38).
	bf, _ := LowPrecFloat("bfloat16")
	if m := bf.MaxFinite(); math.Abs(m-3.38953e38) > 1e33 {
		t.Errorf("bfloat16 max %v", m)
	}
}

// Overflow, infinity and NaN inputs, per ml_dtypes' ConvertImpl (float8.h,
// non-saturating): the result is the type's infinity().
func TestLowPrecSpecials(t *testing.T) {
	negNaN := math.Copysign(math.NaN(), -1)
	inf := math.Inf(1)
	for _, c := range []struct {
		name string
		x    float64
		want uint16
	}{
		{"float8_e4m3fn", 464, 0x7e},                    // tie between 448 (even) and 480 → 448
		{"float8_e4m3fn", 465, 0x7f},                    // overflow → NaN, not saturation
		{"float8_e4m3fn", -1e6, 0xff},                   // negative NaN
		{"float8_e4m3fn", inf, 0x7f},                    // no inf: NaN
		{"float8_e4m3fn", negNaN, 0xff},                 // NaN keeps its sign
		{"float8_e4m3fnuz", 247.99, 0x7f},               // below the 248 tie → 240
		{"float8_e4m3fnuz", 248, 0x80},                  // tie rounds to the (even) code past max: NaN
		{"float8_e4m3fnuz", -inf, 0x80},                 // single NaN
		{"float8_e4m3fnuz", math.Copysign(0, -1), 0x00}, // no -0
		{"float8_e4m3fnuz", -0x1p-12, 0x00},             // rounds to zero: +0
		{"float8_e4m3fn", -0x1p-12, 0x80},               // -0 exists
		{"float8_e5m2", 61440, 0x7c},                    // max + ulp/2 → inf (IEEE)
		{"float8_e5m2", 61439, 0x7b},
		{"float8_e5m2", math.NaN(), 0x7e},
		{"float8_e5m2", negNaN, 0xfe},
		{"float8_e4m3b11fnuz", 31.99, 0x80},
		{"float8_e4m3b11fnuz", 1e-300, 0x00},
		{"float4_e2m1fn", 100, 0x7},        // saturates to 6
		{"float4_e2m1fn", -inf, 0xf},       // saturates to -6
		{"float4_e2m1fn", math.NaN(), 0x8}, // ml_dtypes: quiet_NaN() is -0
		{"float4_e2m1fn", negNaN, 0x0},
		{"float4_e2m1fn", -0.2, 0x8},
		{"float6_e3m2fn", 1e9, 0x1f},
		{"float6_e2m3fn", -8, 0x3f},
		{"bfloat16", 1e39, 0x7f80},
		{"bfloat16", negNaN, 0xffc0},
		{"bfloat16", 1 + 0x1p-8, 0x3f80}, // tie → even
		{"bfloat16", 1 + 0x1p-8 + 0x1p-22, 0x3f81},
		{"bfloat16", 1 + 0x1p-8 + 0x1p-30, 0x3f80}, // through float32: the tie
		{"float8_e8m0fnu", 3, 0x81},                // tie between 2 and 4: up
		{"float8_e8m0fnu", 0, 0xff},                // no zero: NaN
		{"float8_e8m0fnu", -1, 0xff},               // no sign: NaN
		{"float8_e8m0fnu", inf, 0xff},              // no infinity: NaN
		{"float8_e8m0fnu", 0x1.8p127, 0xff},        // rounds past 2^127: NaN
		{"float8_e8m0fnu", 0x1p-140, 0x00},         // below 2^-127: 2^-127
		{"float8_e8m0fnu", 0x1.4p-127, 0x01},       // ml_dtypes: up to 2^-126
	} {
		p, _ := LowPrecFloat(c.name)
		if got := p.FromFloat64(c.x); got != c.want {
			t.Errorf("%s.FromFloat64(%v) = %#x, want %#x", c.name, c.x, got, c.want)
		}
	}
}

// FromFloat64 rounds float8/6/4 formats once, bfloat16 through float32 (as
// Eigen's bfloat16(double) does). 1 + 2^-8 + 2^-40 is just above the
// bfloat16 midpoint between 1 and 1+2^-7, but its float32 rounding is the
// midpoint itself, which then ties to even (down).
func TestLowPrecDoubleRounding(t *testing.T) {
	bf, _ := LowPrecFloat("bfloat16")
	x := 1 + 0x1p-8 + 0x1p-40
	if got := bf.FromFloat64(x); got != 0x3f80 {
		t.Errorf("bfloat16 through float32: %#x, want 0x3f80", got)
	}
	// ml_dtypes float8_test.cc DoubleRound: 1 + eps/2 + 2^-24 must round up
	// to 1 + eps from double.
	for _, name := range LowPrecFloatFormats() {
		p, _ := LowPrecFloat(name)
		if p.viaFloat32 {
			continue
		}
		eps := math.Ldexp(1, -p.MantissaBits())
		x := 1 + eps/2 + 0x1p-24
		if got := p.ToFloat64(p.FromFloat64(x)); got != 1+eps {
			t.Errorf("%s: %v rounds to %v, want %v", name, x, got, 1+eps)
		}
	}
}

func TestLowPrecLookup(t *testing.T) {
	want := []string{"bfloat16", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn",
		"float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
		"float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"}
	if got := fmt.Sprint(LowPrecFloatFormats()); got != fmt.Sprint(want) {
		t.Errorf("formats %v", got)
	}
	for _, n := range []string{"float16", "int4", ""} {
		if _, ok := LowPrecFloat(n); ok {
			t.Errorf("%q accepted", n)
		}
	}
	for _, c := range []struct {
		name   string
		signed bool
		bits   int
	}{{"int2", true, 2}, {"int4", true, 4}, {"uint2", false, 2}, {"uint4", false, 4}} {
		s, b, ok := LowPrecInt(c.name)
		if !ok || s != c.signed || b != c.bits {
			t.Errorf("LowPrecInt(%s) = %v %d %v", c.name, s, b, ok)
		}
	}
	if _, _, ok := LowPrecInt("int8"); ok {
		t.Error("int8 accepted")
	}
}

// zarr-extensions int2/int4/uint2/uint4 READMEs: ranges [-2, 1], [-8, 7],
// [0, 3], [0, 15]; one value per byte in the low bits, upper bits ignored.
func TestLowPrecInts(t *testing.T) {
	n := 0
	for _, name := range LowPrecIntFormats() {
		signed, bits, _ := LowPrecInt(name)
		lo, hi := int64(0), int64(1)<<bits-1
		if signed {
			lo, hi = -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
		}
		// every byte: the low bits decide, two's complement if signed
		for b := 0; b < 256; b++ {
			low := int64(b & (1<<bits - 1))
			want := low
			if signed && low > hi {
				want = low - 1<<bits
			}
			if got := Int4Value(byte(b), signed, bits); got != want {
				t.Errorf("%s: Int4Value(%#x) = %d, want %d", name, b, got, want)
			}
			n++
		}
		// every value in range round-trips; encodings are sign-/zero-extended
		for v := lo; v <= hi; v++ {
			b, ok := Int4Bits(v, signed, bits)
			if !ok {
				t.Errorf("%s: %d rejected", name, v)
				continue
			}
			if got := Int4Value(b, signed, bits); got != v {
				t.Errorf("%s: %d → %#x → %d", name, v, b, got)
			}
			if int64(int8(b)) != v && signed || !signed && int64(b) != v {
				t.Errorf("%s: %d stored as %#x, want it extended through the byte", name, v, b)
			}
		}
		for _, v := range []int64{lo - 1, hi + 1, math.MinInt64, math.MaxInt64} {
			if b, ok := Int4Bits(v, signed, bits); ok {
				t.Errorf("%s: %d accepted as %#x", name, v, b)
			}
		}
	}
	if _, ok := Int4Bits(0, true, 9); ok {
		t.Error("9-bit width accepted")
	}
	if Int4Value(0xff, true, 0) != 0 {
		t.Error("0-bit width")
	}
	t.Logf("%d integer decodings", n)
}

// The registry's complex_<format> types: two parts, real then imaginary, each
// stored as <format> (their READMEs). Every pattern decodes as a part, either
// position; float32 pairs (a JavaScript Float32Array) and [re, im] fill
// values encode each part as ml_dtypes converts it.
func TestComplexLowPrecAgainstMLDtypes(t *testing.T) {
	checked := 0
	for _, n := range Numerics() {
		if n.Part == nil || n.Part.Float == nil {
			continue
		}
		part := n.Part
		t.Run(n.Name, func(t *testing.T) {
			tab := loadMLDtypesTable(t, part.Name)
			if n.Size != 2*part.Size {
				t.Fatalf("size %d, part %d", n.Size, part.Size)
			}
			values := make([]float64, len(tab.Values))
			for i, raw := range tab.Values {
				v, err := parseTableFloat(raw)
				if err != nil {
					t.Fatal(err)
				}
				values[i] = v
			}
			// decode: pattern i as the real part, (7i+3) mod N as the imaginary
			count := len(values)
			src := make([]byte, count*n.Size)
			for i := 0; i < count; i++ {
				putCode(src[i*n.Size:i*n.Size+part.Size], uint16(i))
				putCode(src[i*n.Size+part.Size:(i+1)*n.Size], uint16((7*i+3)%count))
			}
			dst := make([]byte, 8*count)
			n.ToFloat32(dst, src)
			for i := 0; i < count; i++ {
				for k, code := range []int{i, (7*i + 3) % count} {
					got := math.Float32frombits(binary.LittleEndian.Uint32(dst[8*i+4*k:]))
					if want := float32Of(values[code]); math.Float32bits(got) != math.Float32bits(want) &&
						!(got != got && want != want && math.Signbit(float64(got)) == math.Signbit(float64(want))) {
						t.Errorf("element %d part %d (code %#x): %v, ml_dtypes %v", i, k, code, got, values[code])
					}
				}
			}
			// encode float32 pairs: point k as the real part, point N-1-k as the imaginary
			xs, want := tablePoints(t, tab.FromFloat32)
			m := len(xs)
			src = make([]byte, 8*m)
			for k := range xs {
				binary.LittleEndian.PutUint32(src[8*k:], math.Float32bits(float32Of(xs[k])))
				binary.LittleEndian.PutUint32(src[8*k+4:], math.Float32bits(float32Of(xs[m-1-k])))
			}
			dst = make([]byte, m*n.Size)
			n.FromFloat32(dst, src)
			for k := range xs {
				re, im := getCode(dst[k*n.Size:k*n.Size+part.Size]), getCode(dst[k*n.Size+part.Size:(k+1)*n.Size])
				if re != want[k] || im != want[m-1-k] {
					t.Errorf("(%s, %s) → (%#x, %#x), ml_dtypes (%#x, %#x)", tab.FromFloat32[k][0],
						tab.FromFloat32[m-1-k][0], re, im, want[k], want[m-1-k])
				}
			}
			// fill values [re, im] from float64, as ml_dtypes' scalar conversion
			dt, err := ParseV3(jsonx.RawMessage(`"` + n.Name + `"`))
			if err != nil {
				t.Fatal(err)
			}
			xs, want = tablePoints(t, tab.FromFloat64)
			var finite []int
			for k, x := range xs {
				if !math.IsNaN(x) && !math.IsInf(x, 0) {
					finite = append(finite, k)
				}
			}
			b := make([]byte, n.Size)
			for j, k := range finite {
				l := finite[len(finite)-1-j]
				if err := dt.EncodeScalar(b, []any{xs[k], xs[l]}); err != nil {
					t.Fatalf("fill [%v, %v]: %v", xs[k], xs[l], err)
				}
				if re, im := getCode(b[:part.Size]), getCode(b[part.Size:]); re != want[k] || im != want[l] {
					t.Errorf("fill [%s, %s] → (%#x, %#x), ml_dtypes (%#x, %#x)", tab.FromFloat64[k][0],
						tab.FromFloat64[l][0], re, im, want[k], want[l])
				}
			}
			checked++
		})
	}
	if checked != 11 {
		t.Errorf("%d complex types of low-precision floats, the registry has 11", checked)
	}
}
