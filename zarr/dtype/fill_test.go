package dtype

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// bigFill is what an integer fill value must encode to, worked out with
// math/big (the engine itself avoids math/big, which would add to the
// WebAssembly): the value's little-endian bits, or false when it is not an
// integer or out of the type's range.
func bigFill(v any, unsigned bool, size int) (uint64, bool) {
	var n *big.Int
	switch x := v.(type) {
	case jsonx.Number:
		var ok bool
		if n, ok = new(big.Int).SetString(string(x), 10); !ok {
			f, err := strconv.ParseFloat(string(x), 64)
			if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
				return 0, false
			}
			n, _ = big.NewFloat(f).Int(nil)
		}
	case int64:
		n = big.NewInt(x)
	case uint64:
		n = new(big.Int).SetUint64(x)
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || math.IsNaN(x) {
			return 0, false
		}
		n, _ = big.NewFloat(x).Int(nil)
	}
	lo, hi := new(big.Int), new(big.Int)
	if unsigned {
		hi.Lsh(big.NewInt(1), uint(8*size)).Sub(hi, big.NewInt(1))
	} else {
		hi.Lsh(big.NewInt(1), uint(8*size-1)).Sub(hi, big.NewInt(1))
		lo.Neg(hi).Sub(lo, big.NewInt(1))
	}
	if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
		return 0, false
	}
	if n.Sign() < 0 {
		return uint64(n.Int64()), true
	}
	return n.Uint64(), true
}

func TestIntegerFillExact(t *testing.T) {
	var values []any
	for _, s := range []string{"0", "-0", "+7", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "32768", "-32768", "-32769", "65535", "65536",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296", "9007199254740993", "-9007199254740993",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
		"-18446744073709551615", "-18446744073709551616", "0018446744073709551615", "000", "-000", "123456789012345678901234567890", "-123456789012345678901234567890",
		"1e3", "-1e3", "1.0", "1.5", "1e19", "1.8446744073709552e19", "-9.223372036854776e18", "1e30", "-1e30", "", "-", "+-1", "1_000", "0x10", "abc"} {
		values = append(values, jsonx.Number(s))
	}
	for _, x := range []int64{0, 1, -1, 127, -128, 255, 256, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64} {
		values = append(values, x)
	}
	for _, x := range []uint64{0, 255, 256, math.MaxUint32, 1 << 63, math.MaxUint64} {
		values = append(values, x)
	}
	for _, x := range []float64{0, -0.0, 1, -1, 0.5, 255, 256, -128, -129, 1 << 53, 1 << 63, -(1 << 63), 1 << 64, -(1 << 64), 1e300, math.Inf(1), math.NaN()} {
		values = append(values, x)
	}
	for _, ts := range []string{"|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8"} {
		dt, err := ParseTypestr(ts)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			b := make([]byte, dt.Size)
			err := dt.EncodeScalar(b, v)
			want, ok := bigFill(v, dt.Kind == Uint, dt.Size)
			if ok != (err == nil) {
				t.Errorf("%s %T %v: error %v, math/big says in range %v", ts, v, v, err, ok)
				continue
			}
			if !ok {
				continue
			}
			full := make([]byte, 8)
			copy(full, b)
			got := binary.LittleEndian.Uint64(full)
			if mask := uint64(1)<<(8*uint(dt.Size)) - 1; dt.Size < 8 {
				want &= mask
			}
			if got != want {
				t.Errorf("%s %T %v: bits %#x, want %#x", ts, v, v, got, want)
			}
		}
	}
}
