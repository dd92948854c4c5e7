//go:build zarrcore

package codec

// The core build decodes zstd with the host's decoder (the npm package's
// libzstd); what that declines goes to the full build.

func zstdCompress([]byte, int, bool) ([]byte, error) { return nil, otherBuild("zstd") }

func zstdDecompress([]byte) ([]byte, error) { return nil, otherBuild("zstd") }
