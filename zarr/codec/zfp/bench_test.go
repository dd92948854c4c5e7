package zfp

import (
	"encoding/binary"
	"math"
	"testing"
)

// benchField is a smooth 64×64×64 float32 field (1 MiB), the kind of data
// zfp is made for.
func benchField() ([]byte, Field) {
	const n = 64
	src := make([]byte, 4*n*n*n)
	for i := 0; i < n*n*n; i++ {
		x, y, z := float64(i%n), float64(i/n%n), float64(i/(n*n))
		v := math.Sin(x/9)*math.Cos(y/7) + math.Sin(z/5) + 0.001*float64(i%13)
		binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(float32(v)))
	}
	return src, Field{Float, []int{n, n, n}}
}

var benchModes = []struct {
	name string
	p    Params
}{
	{"accuracy1e-3", FixedAccuracy(1e-3)},
	{"rate8", FixedRate(8, 0, 3)},
	{"precision16", FixedPrecision(16)},
	{"reversible", Reversible()},
}

func BenchmarkEncode(b *testing.B) {
	src, f := benchField()
	for _, m := range benchModes {
		b.Run(m.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			var out []byte
			for i := 0; i < b.N; i++ {
				out, _ = Encode(out[:0], src, f, m.p, true, 8)
			}
			b.ReportMetric(float64(len(src))/float64(len(out)), "ratio")
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	src, f := benchField()
	for _, m := range benchModes {
		enc, err := Encode(nil, src, f, m.p, true, 8)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(m.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for i := 0; i < b.N; i++ {
				if _, _, err := DecodeWithHeader(enc, Float, f.Len()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
