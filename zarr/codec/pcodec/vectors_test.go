package pcodec_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/zarr-wasm/zarr-wasm/zarr/codec/pcodec"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
)

// npyArray is a little-endian .npy file's raw data and dtype.
type npyArray struct {
	descr   string
	shape   []int
	fortran bool
	data    []byte
}

func readNpy(t *testing.T, path string) npyArray {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x93NUMPY")) {
		t.Fatalf("%s: not .npy", path)
	}
	var hlen, off int
	if b[6] == 1 {
		hlen, off = int(binary.LittleEndian.Uint16(b[8:])), 10
	} else {
		hlen, off = int(binary.LittleEndian.Uint32(b[8:])), 12
	}
	h := string(b[off : off+hlen])
	var a npyArray
	a.data = b[off+hlen:]
	a.descr = between(h, "'descr': '", "'")
	a.fortran = strings.Contains(h, "'fortran_order': True")
	for _, s := range strings.Split(between(h, "'shape': (", ")"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			var n int
			fmt.Sscan(s, &n)
			a.shape = append(a.shape, n)
		}
	}
	return a
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	return s[:strings.Index(s, b)]
}

// cOrder returns the elements in C order (numcodecs encodes a Fortran-order
// array's memory as it is, so the stream holds them in that order).
var npyTypes = map[string]NumberType{"<u4": U32, "<u8": U64, "<i4": I32, "<i8": I64, "<f4": F32, "<f8": F64,
	"<u2": U16, "<i2": I16, "<f2": F16, "|u1": U8, "|i1": I8}

// TestNumcodecsVectors decodes every stream of numcodecs' pcodec fixture
// (fixture/pcodec, written by numcodecs with pcodec 0.1 to 1.0) to the
// array it was encoded from.
func TestNumcodecsVectors(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/numcodecs/codec.*")
	if len(dirs) != 11 {
		t.Fatalf("expected 11 codec configurations, found %d", len(dirs))
	}
	count := 0
	for _, dir := range dirs {
		encs, _ := filepath.Glob(filepath.Join(dir, "encoded.*.dat"))
		for _, enc := range encs {
			idx := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(enc), "encoded."), ".dat")
			arr := readNpy(t, filepath.Join("testdata/numcodecs", "array."+idx+".npy"))
			nt, ok := npyTypes[arr.descr]
			if !ok {
				t.Fatalf("%s: dtype %s", enc, arr.descr)
			}
			src, _ := os.ReadFile(enc)
			got := make([]byte, len(arr.data))
			if err := Decode(src, nt, got); err != nil {
				t.Errorf("%s: %v", enc, err)
				continue
			}
			if !bytes.Equal(got, arr.data) {
				t.Errorf("%s: decoded values differ from array.%s.npy", enc, idx)
			}
			count++
		}
	}
	if count != 110 {
		t.Errorf("decoded %d streams, expected 110", count)
	}
}

// The numbers pco's own compatibility tests (pco/src/tests/compatibility.rs)
// encoded into each asset, computed here from the same formulas.
func pcoAssetExpected() map[string]struct {
	t    NumberType
	nums []uint64
} {
	type exp = struct {
		t    NumberType
		nums []uint64
	}
	out := map[string]exp{}
	var classic []uint64
	for i := int32(0); i < 1000; i++ {
		classic = append(classic, uint64(uint32(i)))
	}
	for i := int32(2000); i < 3000; i++ {
		classic = append(classic, uint64(uint32(i)))
	}
	out["v0_0_0_classic"] = exp{I32, classic}
	var fm []uint64
	for i := 0; i < 2000; i++ {
		f := float32(i)
		if i == 1337 {
			f += 1.001
		}
		fm = append(fm, uint64(math.Float32bits(f)))
	}
	out["v0_0_0_delta_float_mult"] = exp{F32, fm}
	var im []uint64
	for i := 0; i < 2000; i++ {
		v := int32(i * 1000)
		if i == 1337 {
			v--
		}
		im = append(im, uint64(uint32(v)))
	}
	out["v0_1_0_delta_int_mult"] = exp{I32, im}
	out["v0_1_1_standalone_versioned"] = exp{F32, nil}
	var f16s, fq []uint64
	num := float32(0.1)
	for i := 0; i < 2000; i++ {
		num = float32(float32(float32(num*77.7) + 0.1)) // f32 arithmetic, as Rust
		num = float32(math.Mod(float64(num), 2))
		var h uint16
		if num < 1 {
			h = dtype.Float16Bits(float64(-1 - num))
		} else {
			h = dtype.Float16Bits(float64(num))
		}
		f16s = append(f16s, uint64(h))
		x := float32(dtype.Float16Value(h))
		if math.Abs(float64(x)) < 1.1 {
			x = math.Float32frombits(math.Float32bits(x) + 1)
		}
		fq = append(fq, uint64(math.Float32bits(x)))
	}
	out["v0_3_0_f16"] = exp{F16, f16s}
	out["v0_3_0_float_quant"] = exp{F32, fq}
	var lb []uint64
	seq := []uint64{1121827092, 729032807, 3968137854, 2875434067, 3775328080, 431649926, 1048116090, 1906978350, 14752788, 1180462487}
	for i := 0; i < 100; i++ {
		lb = append(lb, seq...)
	}
	out["v0_4_0_lookback_delta"] = exp{U32, lb}
	out["v0_4_5_uniform_type"] = exp{U32, []uint64{1, 2, 3, 4, 5}}
	out["v0_4_8_minor_version"] = exp{U32, []uint64{1, 2, 3, 4, 5}}
	var dict []uint64
	for i := 0; i < 1000; i++ {
		dict = append(dict, 8924659283, 234897984367, 9827358920)
	}
	out["v1_0_0_dict"] = exp{U64, dict}
	var conv []uint64
	var xm1, xm2 float32
	for i := 0; i < 2000; i++ {
		x := float32(float32(float32(xm1*1.99)-xm2) + float32((i*47)%77-38))
		conv = append(conv, uint64(uint32(int32(x+10000))))
		xm2, xm1 = xm1, x
	}
	out["v1_0_0_conv1"] = exp{I32, conv}
	var u8s, i8s []uint64
	for i := 0; i <= 255; i++ {
		if i <= 64 || i >= 192 {
			u8s = append(u8s, uint64(i))
		}
	}
	for i := -128; i <= 127; i++ {
		if i <= -64 || i >= 64 {
			i8s = append(i8s, uint64(uint8(int8(i))))
		}
	}
	out["v1_0_0_u8"] = exp{U8, u8s}
	out["v1_0_0_i8"] = exp{I8, i8s}
	return out
}

func numbersBytes(t NumberType, nums []uint64) []byte {
	b := make([]byte, len(nums)*t.Size())
	for i, x := range nums {
		for k := 0; k < t.Size(); k++ {
			b[i*t.Size()+k] = byte(x >> (8 * k))
		}
	}
	return b
}

// TestPcoAssets decodes pco's own backward-compatibility files, one per
// format addition (format versions 0 to 4.1).
func TestPcoAssets(t *testing.T) {
	exp := pcoAssetExpected()
	files, _ := filepath.Glob("testdata/pco/*.pco")
	if len(files) != len(exp) {
		t.Fatalf("%d assets, %d expectations", len(files), len(exp))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pco")
		e, ok := exp[name]
		if !ok {
			t.Fatalf("no expectation for %s", name)
		}
		src, _ := os.ReadFile(f)
		want := numbersBytes(e.t, e.nums)
		got := make([]byte, len(want))
		if err := Decode(src, e.t, got); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			for i := 0; i < len(e.nums); i++ {
				if !bytes.Equal(got[i*e.t.Size():(i+1)*e.t.Size()], want[i*e.t.Size():(i+1)*e.t.Size()]) {
					t.Errorf("%s: number %d differs: % x, want % x", name, i, got[i*e.t.Size():(i+1)*e.t.Size()], want[i*e.t.Size():(i+1)*e.t.Size()])
					break
				}
			}
		}
	}
}
