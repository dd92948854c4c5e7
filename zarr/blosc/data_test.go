package blosc

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
)

type dataset struct {
	name string
	data []byte
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// smoothFloat32 is a float32 signal: a sum of sines plus a little noise,
// quantised to 1/16 like a typical measurement. Deterministic.
func smoothFloat32(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		x := 100*math.Sin(float64(i)*0.001) + 20*math.Sin(float64(i)*0.0173) + 5*math.Sin(float64(i)*0.31) + r.NormFloat64()*0.05
		x = math.Round(x*16) / 16
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
	}
	return b
}

// testDatasets are the inputs of the encode tests.
func testDatasets() []dataset {
	r := rand.New(rand.NewPCG(1, 2))
	var ds []dataset
	ds = append(ds, dataset{"empty", nil})
	ds = append(ds, dataset{"short100", randBytes(r, 100)})
	ds = append(ds, dataset{"tiny5", randBytes(r, 5)})
	ds = append(ds, dataset{"random1000", randBytes(r, 1000)})
	ds = append(ds, dataset{"smoothf32", smoothFloat32(2000, 3)})
	ds = append(ds, dataset{"constant5000", func() []byte {
		b := make([]byte, 5000)
		for i := range b {
			b[i] = 0x2a
		}
		return b
	}()})
	ramp := make([]byte, 8*1024)
	for i := 0; i < 1024; i++ {
		binary.LittleEndian.PutUint64(ramp[8*i:], uint64(1_000_000+3*i))
	}
	ds = append(ds, dataset{"ramp-i64", ramp})
	// odd size: trailing bytes and short last blocks for most typesizes
	ds = append(ds, dataset{"big70001", smoothFloat32(17501, 4)[:70001]})
	// a random 30000-byte pattern twice, plus runs: far matches (> 8191 back)
	// and long matches in blosclz
	rep := randBytes(r, 30000)
	rep = append(rep, rep...)
	rep = append(rep, make([]byte, 3000)...)
	ds = append(ds, dataset{"repeat63000", rep})
	return ds
}
