package codec

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// maxDecodedSize bounds what a decompressor produces for one chunk when no
// smaller limit is given: the largest chunk metadata may declare
// (meta.MaxChunkBytes, numcodecs' limit too). Decompressors whose format
// bounds the expansion ratio (deflate, LZ4, zstd) also check that bound, so
// corrupt input fails before any large allocation.
const maxDecodedSize = 1<<31 - 1

// LimitedDecoder is implemented by bytes→bytes codecs that can stop as soon
// as the decoded data would exceed max bytes (for example when the caller
// knows the chunk's decoded size). max <= 0 means the default limit.
type LimitedDecoder interface {
	DecodeLimit(b []byte, max int) ([]byte, error)
}

// ErrTooLarge is wrapped by errors about decoded data beyond the limit.
var ErrTooLarge = errors.New("decoded data exceeds the size limit")

// effectiveLimit is max (or maxDecodedSize), never more than the memory
// budget leaves (zarr/budget; in WebAssembly, what memory has left).
func effectiveLimit(max int) int {
	if max <= 0 || max > maxDecodedSize {
		max = maxDecodedSize
	}
	if max >= 8<<20 { // smaller sizes fit the budget's margin
		if avail := budget.Available(); int64(max) > avail {
			max = int(avail)
		}
	}
	return max
}

// decodeFailed is the CODEC error of a decompressor; one that stopped at
// the limit keeps ErrTooLarge in its chain.
func decodeFailed(codec string, n int, err error) error {
	if errors.Is(err, errs.OtherBuild) {
		return err
	}
	if errors.Is(err, ErrTooLarge) {
		return &errs.Error{Code: errs.Codec, Where: codec, Msg: fmtx.Sprintf("cannot decompress %d bytes", n), Err: err}
	}
	return Corrupt(codec, "cannot decompress %d bytes: %v", n, err)
}

// readAllLimit reads r to the end, failing with ErrTooLarge once more than
// limit bytes arrive.
func readAllLimit(r io.Reader, limit int) ([]byte, error) {
	b := blocks{limit: limit}
	if err := b.readFrom(r); err != nil {
		return nil, err
	}
	return b.join()
}

// compressAll writes b through the compressing writer open makes around an
// output buffer, closes it and returns what it wrote.
func compressAll(b []byte, open func(io.Writer) (io.WriteCloser, error)) ([]byte, error) {
	var buf bytes.Buffer
	w, err := open(&buf)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// blocks collects a decompressor's output of unknown size: in blocks that
// grow with what is produced, joined once at the end (nothing is copied on
// the way, and the join is checked against the memory budget), so output
// near the limit costs at most twice it.
type blocks struct {
	list  [][]byte
	total int
	limit int
}

// readFrom reads r to its end, failing with ErrTooLarge past the limit.
func (b *blocks) readFrom(r io.Reader) error {
	size := 64 << 10
	if n := len(b.list); n > 0 {
		size = cap(b.list[n-1])
	}
	for {
		buf := make([]byte, min(size, b.limit+1-b.total))
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var k int
			k, err = r.Read(buf[n:])
			n += k
		}
		b.total += n
		if b.total > b.limit {
			return ErrTooLarge
		}
		if n > 0 {
			b.list = append(b.list, buf[:n])
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		size = min(2*size, 16<<20)
	}
}

// join returns the blocks as one slice.
func (b *blocks) join() ([]byte, error) {
	if len(b.list) == 1 {
		return b.list[0], nil
	}
	if err := budget.Check("decompressed data", int64(b.total)); err != nil {
		return nil, err
	}
	out := make([]byte, 0, b.total)
	for _, p := range b.list {
		out = append(out, p...)
	}
	return out, nil
}

// ratioLimit returns min(limit, n*ratio+slack) without overflow.
func ratioLimit(limit, n, ratio, slack int) int {
	if n > (limit-slack)/ratio {
		return limit
	}
	return n*ratio + slack
}

// intOption reads an optional integer member of a configuration that may be
// null or absent (numcodecs writes null for defaults), accepting integral
// floats such as 5.0.
func intOption(raw jsonx.RawMessage, name string, def int) (int, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return def, nil
	}
	var f float64
	if err := jsonx.UnmarshalStrict(raw, &f); err != nil {
		return 0, fmtx.Errorf("%s must be an integer, got %s", name, s)
	}
	if f != float64(int64(f)) || f > 1<<31 || f < -(1<<31) {
		return 0, fmtx.Errorf("%s must be an integer, got %s", name, s)
	}
	return int(f), nil
}

// boolOption reads an optional boolean (null or absent gives def).
func boolOption(raw jsonx.RawMessage, name string, def bool) (bool, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return def, nil
	}
	var b bool
	if err := jsonx.UnmarshalStrict(raw, &b); err != nil {
		// numcodecs configs written by Python may use 0/1.
		var n float64
		if jsonx.UnmarshalStrict(raw, &n) == nil && (n == 0 || n == 1) {
			return n == 1, nil
		}
		return false, fmtx.Errorf("%s must be true or false, got %s", name, s)
	}
	return b, nil
}

// stringOption reads an optional string (null or absent gives def).
func stringOption(raw jsonx.RawMessage, name, def string) (string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return def, nil
	}
	var v string
	if err := jsonx.UnmarshalStrict(raw, &v); err != nil {
		return "", fmtx.Errorf("%s must be a string, got %s", name, s)
	}
	return v, nil
}

// configMembers splits a configuration object into its members (unknown
// members are kept and ignored by the callers; v2 configs carry "id").
func configMembers(cfg jsonx.RawMessage) (map[string]jsonx.RawMessage, error) {
	m := map[string]jsonx.RawMessage{}
	if len(cfg) == 0 || strings.TrimSpace(string(cfg)) == "null" {
		return m, nil
	}
	if err := jsonx.UnmarshalStrict(cfg, &m); err != nil {
		return nil, fmtx.Errorf("configuration must be a JSON object: %v", err)
	}
	return m, nil
}
