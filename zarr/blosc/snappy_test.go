package blosc

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/snappy"
)

// The snappy decoder against klauspost/compress's: whatever it encodes
// decodes to the same bytes, and on any input the two agree on success and
// output.
func FuzzSnappyDecode(f *testing.F) {
	f.Add([]byte("hello hello hello hello hello"), false)
	f.Add(bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, 300), false)
	f.Add(bytes.Repeat([]byte{0}, 70000), false)
	f.Add([]byte{5, 0x10, 'a', 'b', 'c', 'd', 'e'}, true)
	f.Add([]byte{10, 0, 'a', 0x15, 1}, true)
	f.Fuzz(func(t *testing.T, b []byte, raw bool) {
		src := b
		if !raw {
			src = snappy.Encode(nil, b)
		}
		n, err := snappy.DecodedLen(src)
		if err != nil || n > 1<<20 {
			return
		}
		want, wantErr := snappy.Decode(nil, src)
		got := make([]byte, n)
		gotErr := snappyDecode(got, src)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("klauspost: %v, ours: %v", wantErr, gotErr)
		}
		if wantErr == nil && !bytes.Equal(got, want) {
			t.Fatalf("decoded bytes differ")
		}
		if !raw && !bytes.Equal(got, b) {
			t.Fatalf("round trip differs")
		}
	})
}
