package pcodec

import (
	"encoding/binary"
	"math"
	"testing"
)

// benchData is 1 Mi float64s of a smooth field with noise quantised to
// 1/16 (as the JS benchmarks use), and 1 Mi int32 ramp-plus-noise values.
func benchData(t NumberType) []byte {
	const n = 1 << 20
	b := make([]byte, n*t.Size())
	seed := uint64(7)
	for i := 0; i < n; i++ {
		seed = seed*6364136223846793005 + 1442695040888963407
		noise := float64(seed>>40) / float64(1<<24)
		v := math.Round((math.Sin(float64(i)/500)*100+noise)*16) / 16
		if t == F64 {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		} else {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(i/4+int(seed>>60))))
		}
	}
	return b
}

func benchDecode(b *testing.B, t NumberType) {
	data := benchData(t)
	enc, err := Encode(t, data, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, len(data))
	b.SetBytes(int64(len(data)))
	b.ReportMetric(float64(len(data))/float64(len(enc)), "ratio")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Decode(enc, t, dst); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEncode(b *testing.B, t NumberType) {
	data := benchData(t)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Encode(t, data, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeF64(b *testing.B) { benchDecode(b, F64) }
func BenchmarkDecodeI32(b *testing.B) { benchDecode(b, I32) }
func BenchmarkEncodeF64(b *testing.B) { benchEncode(b, F64) }
func BenchmarkEncodeI32(b *testing.B) { benchEncode(b, I32) }
