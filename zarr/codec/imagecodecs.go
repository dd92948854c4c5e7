//go:build !zarrcore

package codec

import (
	"slices"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// The imagecodecs codecs tifffile writes into the fsspec references of a
// TIFF (ZarrTiffStore.write_fsspec, which kerchunk's TIFF support uses):
// LZW and PackBits compression, and the horizontal and floating-point
// predictors as filters. Decoding only: nobody writes Zarr with them.

func init() {
	Register(func(jsonx.RawMessage, Spec) (any, error) { return tiffLZW{}, nil }, "imagecodecs_lzw")
	Register(func(jsonx.RawMessage, Spec) (any, error) { return packBits{}, nil }, "imagecodecs_packbits")
	Register(newPredictor("imagecodecs_delta"), "imagecodecs_delta")
	Register(newPredictor("imagecodecs_floatpred"), "imagecodecs_floatpred")
}

func decodeOnly(name string) error {
	return errs.New(errs.Unsupported, name, "%s is read-only here (it comes from TIFF files)", name)
}

// tiffLZW is TIFF's LZW: codes of 9 to 12 bits, most significant bit first,
// ClearCode 256, EndOfInformation 257, and the width growing one code early
// (at 511, 1023, 2047), as libtiff writes it.
type tiffLZW struct{}

func (tiffLZW) Encode([]byte) ([]byte, error)     { return nil, decodeOnly("imagecodecs_lzw") }
func (c tiffLZW) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

func (tiffLZW) DecodeLimit(b []byte, max int) ([]byte, error) {
	const clear, eoi, first = 256, 257, 258
	limit := effectiveLimit(max)
	// Each code names a string: its last byte, the code of the rest, and
	// its length.
	var (
		suffix [4096]byte
		prefix [4096]uint16
		length [4096]int
	)
	for i := 0; i < 256; i++ {
		suffix[i], length[i] = byte(i), 1
	}
	out := make([]byte, 0, min(limit, 4*len(b)+64))
	next, width, prev := first, 9, -1
	var acc uint64
	bits, pos := 0, 0
	for {
		for bits < width && pos < len(b) {
			acc = acc<<8 | uint64(b[pos])
			pos++
			bits += 8
		}
		if bits < width {
			return out, nil // the data ended without EndOfInformation, as some writers do
		}
		code := int(acc>>(bits-width)) & (1<<width - 1)
		bits -= width
		switch {
		case code == eoi:
			return out, nil
		case code == clear:
			next, width, prev = first, 9, -1
			continue
		case prev < 0:
			if code > 255 {
				return nil, Corrupt("imagecodecs_lzw", "code %d at byte %d before any string", code, pos)
			}
			if len(out)+1 > limit {
				return nil, Corrupt("imagecodecs_lzw", "decodes to more than %d bytes", limit)
			}
			out = append(out, byte(code))
			prev = code
			continue
		case code > next || code == next && next >= 4096:
			return nil, Corrupt("imagecodecs_lzw", "code %d at byte %d is not in the table (next %d)", code, pos, next)
		}
		// The string of code (for code == next: prev's string plus its own
		// first byte), written backwards into place.
		str := code
		n := 0
		if code == next {
			str = prev
			n = 1
		}
		n += length[str]
		if len(out)+n > limit {
			return nil, Corrupt("imagecodecs_lzw", "decodes to more than %d bytes", limit)
		}
		start := len(out)
		out = out[:start+n]
		if code == next {
			// Its last byte is the first byte of prev's string, filled in below.
			n--
		}
		for i, c := start+n-1, str; i >= start; i-- {
			out[i] = suffix[c]
			c = int(prefix[c])
		}
		if code == next {
			out[start+n] = out[start]
		}
		if next < 4096 {
			prefix[next], suffix[next], length[next] = uint16(prev), out[start], length[prev]+1
			next++
			if next == 1<<width-1 && width < 12 {
				width++
			}
		}
		prev = code
	}
}

// packBits is TIFF's PackBits run-length coding: a header byte n, then
// n+1 literal bytes (0 ≤ n ≤ 127) or one byte repeated 1-n times
// (-127 ≤ n ≤ -1); -128 is skipped.
type packBits struct{}

func (packBits) Encode([]byte) ([]byte, error)     { return nil, decodeOnly("imagecodecs_packbits") }
func (c packBits) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

func (packBits) DecodeLimit(b []byte, max int) ([]byte, error) {
	limit := effectiveLimit(max)
	out := make([]byte, 0, min(limit, 2*len(b)+16))
	for i := 0; i < len(b); {
		n := int(int8(b[i]))
		i++
		switch {
		case n >= 0:
			if i+n+1 > len(b) {
				return nil, Corrupt("imagecodecs_packbits", "a literal run of %d bytes at byte %d goes past the end", n+1, i-1)
			}
			if len(out)+n+1 > limit {
				return nil, Corrupt("imagecodecs_packbits", "decodes to more than %d bytes", limit)
			}
			out = append(out, b[i:i+n+1]...)
			i += n + 1
		case n > -128:
			if i >= len(b) {
				return nil, Corrupt("imagecodecs_packbits", "a repeat run at byte %d has no byte to repeat", i-1)
			}
			if len(out)+1-n > limit {
				return nil, Corrupt("imagecodecs_packbits", "decodes to more than %d bytes", limit)
			}
			for k := 0; k < 1-n; k++ {
				out = append(out, b[i])
			}
			i++
		}
	}
	return out, nil
}

// predictor is TIFF's horizontal differencing (imagecodecs_delta: each
// sample minus the one dist samples before it along axis, in the sample
// type) or floating-point predictor (imagecodecs_floatpred: per row along
// axis, the bytes of the samples regrouped by significance, most
// significant first, then each byte minus the one dist samples before it).
// The configuration's shape and dtype are the chunk's.
type predictor struct {
	name       string
	axis, dist int
	// big: the configured dtype is big-endian, so the bytes codec has
	// swapped every sample before the predictor sees it.
	big bool
}

func newPredictor(name string) Factory {
	return func(cfg jsonx.RawMessage, _ Spec) (any, error) {
		m, err := configMembers(cfg)
		if err != nil {
			return nil, err
		}
		p := &predictor{name: name}
		if p.axis, err = intOption(m["axis"], "axis", -1); err != nil {
			return nil, err
		}
		if p.dist, err = intOption(m["dist"], "dist", 1); err != nil {
			return nil, err
		}
		if p.dist < 1 {
			return nil, fmtx.Errorf("dist must be at least 1, got %d", p.dist)
		}
		if raw := m["dtype"]; len(raw) > 0 && string(raw) != "null" {
			dt, err := parseFilterDType(raw, "dtype")
			if err != nil {
				return nil, err
			}
			p.big = byteOrderOf(dt) == dtype.Big
		}
		return p, nil
	}
}

func (p *predictor) Encoded(in Spec) (Spec, error) {
	if _, _, _, err := p.layout(in); err != nil {
		return Spec{}, err
	}
	return in, nil
}

func (p *predictor) Encode(*nd.Array) (*nd.Array, error) { return nil, decodeOnly(p.name) }

// layout returns, for the chunk's shape, how many rows there are, the
// samples in a row (the axis and the dimensions after it), and the step
// between the samples one predicts from the other.
func (p *predictor) layout(in Spec) (rows, row, step int, err error) {
	if in.DType == nil || in.DType.Variable() {
		return 0, 0, 0, fmtx.Errorf("%s needs fixed-size elements", p.name)
	}
	if _, ok := ntypeOf(in.DType); !ok || (p.name == "imagecodecs_floatpred" && in.DType.Size != 2 && in.DType.Size != 4 && in.DType.Size != 8) {
		return 0, 0, 0, fmtx.Errorf("%s cannot take %s elements", p.name, in.DType)
	}
	axis := p.axis
	if axis < 0 {
		axis += len(in.Shape)
	}
	if axis < 0 || axis >= len(in.Shape) {
		return 0, 0, 0, fmtx.Errorf("axis %d is outside a chunk of %d dimensions", p.axis, len(in.Shape))
	}
	inner := nd.Size(in.Shape[axis+1:])
	return nd.Size(in.Shape[:axis]), in.Shape[axis] * inner, p.dist * inner, nil
}

func (p *predictor) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	rows, row, step, err := p.layout(out)
	if err != nil {
		return nil, Corrupt(p.name, "%v", err)
	}
	src := a.Bytes()
	size := out.DType.Size
	if len(src) != rows*row*size {
		return nil, Corrupt(p.name, "%d bytes for a chunk of %d × %d samples of %d bytes", len(src), rows, row, size)
	}
	dec := make([]byte, len(src))
	if p.name == "imagecodecs_delta" {
		copy(dec, src)
		nt, _ := ntypeOf(out.DType)
		for r := 0; r < rows; r++ {
			v := dec[r*row*size : (r+1)*row*size]
			for i := step; i < row; i++ {
				store(nt, v[i*size:], arith(nt, '+', load(nt, v[i*size:]), load(nt, v[(i-step)*size:])))
			}
		}
	} else {
		// The byte planes of a row, most significant first, after the
		// differencing is undone; each sample is put back little-endian
		// (the chain's in-memory order). The planes do not depend on the
		// file's byte order, but for a big-endian dtype (as configured) the
		// bytes codec has already swapped every element: swap them back.
		swapped := p.big
		buf := make([]byte, row*size)
		for r := 0; r < rows; r++ {
			copy(buf, src[r*row*size:(r+1)*row*size])
			if swapped {
				for i := 0; i < len(buf); i += size {
					slices.Reverse(buf[i : i+size])
				}
			}
			for i := step; i < len(buf); i++ {
				buf[i] += buf[i-step]
			}
			v := dec[r*row*size : (r+1)*row*size]
			for i := 0; i < row; i++ {
				for k := 0; k < size; k++ { // k: significance, most first
					v[i*size+size-1-k] = buf[k*row+i]
				}
			}
		}
	}
	return nd.FromBytes(out.DType, out.Shape, dec)
}
