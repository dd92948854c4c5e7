//go:build !zarrcore

package codec

import (
	"bytes"
	"io"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
)

func deflateZlib(b []byte, level int) ([]byte, error) {
	return compressAll(b, func(w io.Writer) (io.WriteCloser, error) { return zlib.NewWriterLevel(w, level) })
}

func deflateGzip(b []byte, level int) ([]byte, error) {
	return compressAll(b, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, level) })
}

func inflateZlib(b []byte, limit int) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return readAllLimit(r, limit)
}

func inflateRaw(b []byte, limit int) ([]byte, error) {
	return readAllLimit(flate.NewReader(bytes.NewReader(b)), limit)
}

// gunzip decodes every gzip member of b. Zero bytes after the last member
// are padding (Python's gzip module skips them too).
func gunzip(b []byte, limit int) ([]byte, error) {
	br := bytes.NewReader(b)
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	out := blocks{limit: limit}
	for {
		zr.Multistream(false)
		if err := out.readFrom(zr); err != nil {
			return nil, err
		}
		if allZero(b[len(b)-br.Len():]) {
			return out.join()
		}
		if err := zr.Reset(br); err != nil {
			return nil, err
		}
	}
}
