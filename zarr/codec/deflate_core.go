//go:build zarrcore

package codec

// The core build inflates with the host's decoder (the npm package's zlib);
// what that declines goes to the full build.

func deflateZlib([]byte, int) ([]byte, error) { return nil, otherBuild("zlib") }

func deflateGzip([]byte, int) ([]byte, error) { return nil, otherBuild("gzip") }

func inflateZlib([]byte, int) ([]byte, error) { return nil, otherBuild("zlib") }

func inflateRaw([]byte, int) ([]byte, error) { return nil, otherBuild("zlib") }

func gunzip([]byte, int) ([]byte, error) { return nil, otherBuild("gzip") }
