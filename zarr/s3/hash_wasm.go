//go:build js && wasm

package s3

import "github.com/zarr-wasm/zarr-wasm/internal/sha256x"

// In WebAssembly the signature's hashes come from internal/sha256x (the
// standard library's crypto/sha256 would bring its FIPS 140 module, about
// 70 KB of brotli, into the core build).

func sum256(parts ...[]byte) [32]byte { return sha256x.Sum(parts...) }

func hmacSHA256(key []byte, data string) []byte {
	h := sha256x.HMAC(key, []byte(data))
	return h[:]
}
