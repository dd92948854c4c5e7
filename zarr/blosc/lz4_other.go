//go:build !((amd64 || arm || arm64) && gc && !noasm)

package blosc

func lz4DecodeBlock(dst, src []byte) error { return lz4Decode(dst, src) }
