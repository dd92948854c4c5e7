package zfp

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
)

// fixtureChunk is one chunk zfpy wrote (tests/fixtures/zfpy) with the
// values it was written from.
type fixtureChunk struct {
	name   string
	stream []byte // zfpy's chunk: header, then blocks
	input  []byte // the chunk's values (uncompressed twin)
}

func fixtureChunks(t testing.TB) []fixtureChunk {
	root := filepath.Join("..", "..", "..", "tests", "fixtures", "zfpy", "data", "zfpy.zarr")
	var out []fixtureChunk
	for _, group := range []string{"modes", "special"} {
		arrays, err := os.ReadDir(filepath.Join(root, group))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range arrays {
			if !a.IsDir() {
				continue
			}
			dir := filepath.Join(root, group, a.Name())
			chunks, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range chunks {
				if strings.HasPrefix(c.Name(), ".") {
					continue
				}
				stream, err1 := os.ReadFile(filepath.Join(dir, c.Name()))
				input, err2 := os.ReadFile(filepath.Join(root, "inputs", group, a.Name(), c.Name()))
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				out = append(out, fixtureChunk{group + "/" + a.Name() + "/" + c.Name(), stream, input})
			}
		}
	}
	if len(out) < 200 {
		t.Fatalf("only %d fixture chunks", len(out))
	}
	return out
}

// dropBits returns src without its first n bits (what follows a header,
// realigned to bit 0).
func dropBits(src []byte, n int) []byte {
	out := make([]byte, (len(src)*8-n+7)/8)
	for i := range out {
		var v uint16
		j := i + n/8
		v = uint16(src[j])
		if j+1 < len(src) {
			v |= uint16(src[j+1]) << 8
		}
		out[i] = byte(v >> (n % 8))
	}
	return out
}

// TestHeaderlessStreams checks the headerless form zarrs' zfp codec uses:
// zfpy's blocks (the bits after its header) are exactly what Encode writes
// without a header for the header's field and parameters, and they decode to
// the same values.
func TestHeaderlessStreams(t *testing.T) {
	for _, c := range fixtureChunks(t) {
		f, p, hbits, err := ReadHeader(c.stream)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want, _, err := DecodeWithHeader(c.stream, f.Type, f.Len())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		blocks := dropBits(c.stream, hbits)
		got, err := Encode(nil, c.input, f, p, false, 64)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(got)%8 != 0 || len(got) < len(blocks)-1 || !bytes.Equal(got[:len(blocks)-1], blocks[:len(blocks)-1]) {
			t.Errorf("%s: headerless encoding differs from zfpy's blocks", c.name)
		}
		dec := make([]byte, len(want))
		if err := Decode(dec, got, 0, f, p); err != nil || !bytes.Equal(dec, want) {
			t.Errorf("%s: headerless stream decodes differently (%v)", c.name, err)
		}
		withHeader, err := Encode(nil, c.input, f, p, true, 8)
		if err != nil || !bytes.Equal(withHeader, c.stream) {
			t.Errorf("%s: encoding differs from zfpy's chunk (%v)", c.name, err)
		}
	}
}

// TestTruncatedStreams cuts every fixture chunk short: decoding must fail
// with a CODEC error (never read past the end, never panic), except where
// only padding was cut.
func TestTruncatedStreams(t *testing.T) {
	for _, c := range fixtureChunks(t) {
		f, p, hbits, err := ReadHeader(c.stream)
		if err != nil {
			t.Fatal(err)
		}
		// The bits the blocks use: a decode of the full stream stops there.
		used := blockBits(t, c.stream, hbits, f, p)
		for cut := len(c.stream) - 1; cut >= 0; cut -= 1 + cut/4 {
			_, _, err := DecodeWithHeader(c.stream[:cut], f.Type, f.Len())
			needed := uint64(cut)*8 >= used
			if needed && err != nil {
				t.Errorf("%s cut to %d bytes (%d bits used): %v", c.name, cut, used, err)
			}
			if !needed && errs.CodeOf(err) != errs.Codec {
				t.Errorf("%s cut to %d bytes (%d bits used): got %v, want a CODEC error", c.name, cut, used, err)
			}
		}
	}
}

func blockBits(t *testing.T, src []byte, start int, f Field, p Params) uint64 {
	r := &reader{data: src}
	r.seek(uint64(start))
	dst := make([]byte, f.Len()*f.Type.Size())
	var ok bool
	if f.Type.Size() == 4 {
		ok = newCoder[int32, uint32](f, p).decode(r, dst)
	} else {
		ok = newCoder[int64, uint64](f, p).decode(r, dst)
	}
	if !ok {
		t.Fatal("fixture stream overruns")
	}
	return r.tell()
}

// TestHeaderChecks: the caller's expectation bounds what a header may claim.
func TestHeaderChecks(t *testing.T) {
	c := fixtureChunks(t)[0]
	f, _, _, err := ReadHeader(c.stream)
	if err != nil {
		t.Fatal(err)
	}
	other := Double
	if f.Type == Double {
		other = Float
	}
	for _, tc := range []struct {
		name  string
		src   []byte
		typ   Type
		count int
	}{
		{"wrong type", c.stream, other, f.Len()},
		{"wrong count", c.stream, f.Type, f.Len() + 1},
		{"huge count claimed", c.stream, f.Type, 1},
		{"no magic", append([]byte("zfq"), c.stream[3:]...), f.Type, f.Len()},
		{"other version", append([]byte("zfp\x04"), c.stream[4:]...), f.Type, f.Len()},
		{"empty", nil, f.Type, f.Len()},
		{"header only, cut", c.stream[:10], f.Type, f.Len()},
	} {
		if _, _, err := DecodeWithHeader(tc.src, tc.typ, tc.count); errs.CodeOf(err) != errs.Codec {
			t.Errorf("%s: got %v, want a CODEC error", tc.name, err)
		}
	}
}

// TestModeCodes: the parameters of every header mode code that
// zfp_stream_set_mode accepts code back to the same parameters
// (zfp_stream_mode), in the short form where zfp uses it.
func TestModeCodes(t *testing.T) {
	for code := uint64(0); code <= modeShortMax; code++ {
		p, ok := paramsOfMode(code)
		if !ok {
			if code < 2048+64 || code >= reversibleCode {
				t.Fatalf("short mode %d refused", code)
			}
			continue // precision above 64
		}
		back, again := paramsOfMode(p.modeCode())
		if !again || back != p {
			t.Fatalf("short mode %d: %+v %v codes to %d", code, p, ok, p.modeCode())
		}
		// Precision 64 and accuracy 2^-1074 are zfp's default setting,
		// which it calls expert mode (the long form).
		if p.modeCode() != code && p != (Params{MinBits, MaxBits, MaxPrec, MinExp}) {
			t.Errorf("short mode %d codes back to %d", code, p.modeCode())
		}
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 10000; i++ {
		code := rng.Uint64()>>15<<12 | 0xfff
		p, ok := paramsOfMode(code)
		if !ok {
			continue
		}
		if back, again := paramsOfMode(p.modeCode()); !again || back != p {
			t.Fatalf("long mode %x: %+v codes to %x, which is %+v", code, p, p.modeCode(), back)
		}
	}
}

// TestZarrsRate: zarrs' zfp codec sets the rate for 3-d blocks and the
// value type (zfp_stream_set_rate(zfp, rate, type, 3, 0)).
func TestZarrsRate(t *testing.T) {
	if p := FixedRate(2, Float, 3); p.MaxBits != 128 || p.MinBits != 128 {
		t.Errorf("rate 2: %+v", p)
	}
	if p := FixedRate(0.01, Float, 3); p.MaxBits != 9 {
		t.Errorf("float rate clamps to 9 bits: %+v", p)
	}
	if p := FixedRate(0.01, Double, 1); p.MaxBits != 12 {
		t.Errorf("double rate clamps to 12 bits: %+v", p)
	}
	if p := FixedRate(0.01, 0, 1); p.MaxBits != 0 {
		t.Errorf("no type, no clamp: %+v", p)
	}
}

// TestSpecialValues round-trips values zfp meets in the wild through every
// type in reversible mode: the result must be the input, bit for bit.
func TestSpecialValues(t *testing.T) {
	f32 := []float32{0, float32(math.Copysign(0, -1)), 1e-45, -1e-40, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, -3.5, 7}
	f64 := []float64{0, math.Copysign(0, -1), 5e-324, -1e-310, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -3.5, 7}
	i32 := []int32{math.MinInt32, math.MaxInt32, 0, -1, 1, 12345, -99, 1 << 30, 5, 6}
	i64 := []int64{math.MinInt64, math.MaxInt64, 0, -1, 1, 12345, -99, 1 << 62, 5, 6}
	for _, tc := range []struct {
		typ  Type
		data any
	}{{Float, f32}, {Double, f64}, {Int32, i32}, {Int64, i64}} {
		var buf bytes.Buffer
		if err := binary.Write(&buf, binary.LittleEndian, tc.data); err != nil {
			t.Fatal(err)
		}
		for _, shape := range [][]int{{10}, {2, 5}, {5, 1, 2}, {1, 2, 5, 1}} {
			f := Field{tc.typ, shape}
			enc, err := Encode(nil, buf.Bytes(), f, Reversible(), true, 64)
			if err != nil {
				t.Fatal(err)
			}
			dec, _, err := DecodeWithHeader(enc, tc.typ, 10)
			if err != nil || !bytes.Equal(dec, buf.Bytes()) {
				t.Errorf("%s %v: reversible mode lost values (%v)", tc.typ, shape, err)
			}
		}
	}
}

// FuzzDecodeWithHeader: any bytes either decode to the expected number of
// values or fail with a CODEC error; nothing panics or reads past the end.
func FuzzDecodeWithHeader(f *testing.F) {
	for i, c := range fixtureChunks(f) {
		if i%7 == 0 {
			hdr, _, _, _ := ReadHeader(c.stream)
			f.Add(c.stream, uint8(hdr.Type), uint16(hdr.Len()))
		}
	}
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, src []byte, typ uint8, count uint16) {
		defer fuzzmem.Input(t)()
		out, _, err := DecodeWithHeader(src, Type(typ%4+1), int(count))
		if err != nil {
			if errs.CodeOf(err) != errs.Codec {
				t.Fatalf("error without the CODEC code: %v", err)
			}
			return
		}
		if len(out) != int(count)*Type(typ%4+1).Size() {
			t.Fatalf("%d bytes for %d values", len(out), count)
		}
	})
}

// FuzzDecodeHeaderless decodes arbitrary streams with arbitrary (valid)
// parameters, as zarrs' headerless zfp codec does.
func FuzzDecodeHeaderless(f *testing.F) {
	f.Add([]byte{0xff, 0x01, 0x80}, uint8(3), uint8(2), uint64(2176))
	f.Add([]byte{0x12, 0x34, 0x56, 0x78, 0x9a}, uint8(1), uint8(4), uint64(100))
	f.Add(bytes.Repeat([]byte{0xff}, 40), uint8(2), uint8(1), uint64(0x123456789abcdfff))
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, src []byte, typ, dims uint8, mode uint64) {
		defer fuzzmem.Input(t)()
		p, ok := paramsOfMode(mode)
		if !ok {
			return
		}
		shape := []int{3, 5, 2, 6}[:dims%4+1]
		fld := Field{Type(typ%4 + 1), shape}
		dst := make([]byte, fld.Len()*fld.Type.Size())
		if err := Decode(dst, src, 0, fld, p); err != nil && errs.CodeOf(err) != errs.Codec {
			t.Fatalf("error without the CODEC code: %v", err)
		}
	})
}
