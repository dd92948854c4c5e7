package icechunk

import (
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Every metadata file (repo info, snapshot, manifest, transaction log)
// starts with a 39-byte header: the magic "ICE🧊CHUNK" (12 bytes), the
// writer's name (24 bytes, space-padded), then one byte each for the spec
// version, the file type and the body's compression.
const (
	magic      = "ICE\U0001F9CACHUNK"
	headerSize = 12 + 24 + 3
)

// File types.
const (
	fileSnapshot    = 1
	fileManifest    = 2
	fileTransaction = 4
	fileRepo        = 6
)

// Compression of the body.
const (
	compressNone = 0
	compressZstd = 1
)

// Spec versions this package reads.
const (
	specV1 = 1
	specV2 = 2
)

// header is a metadata file's header.
type header struct {
	writer      string // "ic-2.2.2", padding removed
	spec        uint8
	fileType    uint8
	compression uint8
}

func fileTypeName(t uint8) string {
	switch t {
	case fileSnapshot:
		return "snapshot"
	case fileManifest:
		return "manifest"
	case fileTransaction:
		return "transaction log"
	case fileRepo:
		return "repo info"
	}
	return "unknown"
}

// parseHeader reads the header of the file at key.
func parseHeader(key string, data []byte) (header, error) {
	if len(data) < headerSize {
		return header{}, errs.New(errs.InvalidMetadata, key, "not an Icechunk file: %d bytes, shorter than the %d-byte header", len(data), headerSize)
	}
	if string(data[:12]) != magic {
		return header{}, errs.New(errs.InvalidMetadata, key, "not an Icechunk file: the header does not start with %q", magic)
	}
	name := data[12:36]
	end := len(name)
	for end > 0 && (name[end-1] == ' ' || name[end-1] == 0) {
		end--
	}
	h := header{writer: string(name[:end]), spec: data[36], fileType: data[37], compression: data[38]}
	if h.spec != specV1 && h.spec != specV2 {
		return h, errs.New(errs.Unsupported, key, "Icechunk spec version %d (written by %q): this reader knows versions 1 and 2", h.spec, h.writer)
	}
	return h, nil
}

var (
	zstdOnce sync.Once
	zstdDec  codec.BytesToBytes
	zstdErr  error
)

// zstdDecoder returns the engine's zstd decoder (in WebAssembly the host's
// libzstd where the bridge provides it), built on first use so that a
// decoder the bridge registers at start is the one used.
func zstdDecoder() (codec.BytesToBytes, error) {
	zstdOnce.Do(func() {
		c, err := codec.Build(codec.Config{Name: "zstd"}, codec.Spec{})
		if err != nil {
			zstdErr = err
			return
		}
		bb, ok := c.(codec.BytesToBytes)
		if !ok {
			zstdErr = errs.New(errs.Unsupported, "zstd", "the zstd codec is not a bytes-to-bytes codec")
			return
		}
		zstdDec = bb
	})
	return zstdDec, zstdErr
}

// body checks the header of the file at key (its type must be want) and
// returns the decompressed FlatBuffers body.
func body(key string, data []byte, want uint8) (header, []byte, error) {
	h, err := parseHeader(key, data)
	if err != nil {
		return h, nil, err
	}
	if h.fileType != want {
		return h, nil, errs.New(errs.InvalidMetadata, key, "expected an Icechunk %s file, found a %s file (type %d)", fileTypeName(want), fileTypeName(h.fileType), h.fileType)
	}
	raw := data[headerSize:]
	switch h.compression {
	case compressNone:
		return h, raw, nil
	case compressZstd:
		dec, err := zstdDecoder()
		if err != nil {
			return h, nil, errs.Wrap(errs.Codec, key, err, "cannot decompress the %s", fileTypeName(want))
		}
		// (the decoded size is not known: the decoder bounds what a frame
		// may expand to, and the engine's budget what it allocates; a
		// LimitedDecoder's max would be allocated up front)
		out, err := dec.Decode(raw)
		if err != nil {
			return h, nil, errs.Wrap(errs.Codec, key, err, "cannot decompress the %s", fileTypeName(want))
		}
		return h, out, nil
	}
	return h, nil, errs.New(errs.Unsupported, key, "unknown compression %d of an Icechunk %s file", h.compression, fileTypeName(want))
}
