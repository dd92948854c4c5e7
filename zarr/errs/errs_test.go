package errs

import "testing"

func TestNearest(t *testing.T) {
	codecs := []string{"numcodecs.blosc", "numcodecs.zlib", "numcodecs.delta", "numcodecs.crc32", "zstd", "blosc", "bytes"}
	for _, c := range []struct{ name, want string }{
		{"numcodecs.pcodec", ""}, // a real codec this list lacks, not a typo of blosc
		{"numcodecs.zfpy", ""},
		{"numcodecs.zlb", "numcodecs.zlib"},
		{"numcodecs.detla", "numcodecs.delta"},
		{"numcodecs.crc23", "numcodecs.crc32"},
		{"zstdd", "zstd"},
		{"bloc", "blosc"},
		{"byte", "bytes"},
		{"gzip", ""},
		{"sharding", ""},
	} {
		if got := Nearest(c.name, codecs); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
