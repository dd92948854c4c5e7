package sha256x

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"math/rand/v2"
	"testing"
)

// Checked against the standard library's crypto/sha256 and crypto/hmac,
// for every length around the block and padding boundaries and random
// inputs, split into parts at random.
func TestAgainstStandardLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		cut := 0
		if n > 0 {
			cut = r.IntN(n)
		}
		if got, want := Sum(data[:cut], data[cut:]), sha256.Sum256(data); got != want {
			t.Fatalf("Sum of %d bytes: %x, want %x", n, got, want)
		}
		key := data[:min(n, r.IntN(130))]
		m := hmac.New(sha256.New, key)
		m.Write(data)
		if got := HMAC(key, data); !bytes.Equal(got[:], m.Sum(nil)) {
			t.Fatalf("HMAC with a %d-byte key of %d bytes", len(key), n)
		}
	}
}

func FuzzSum(f *testing.F) {
	f.Add([]byte("abc"), []byte("key"))
	f.Fuzz(func(t *testing.T, data, key []byte) {
		if Sum(data) != sha256.Sum256(data) {
			t.Fatal("Sum differs")
		}
		m := hmac.New(sha256.New, key)
		m.Write(data)
		if h := HMAC(key, data); !bytes.Equal(h[:], m.Sum(nil)) {
			t.Fatal("HMAC differs")
		}
	})
}
