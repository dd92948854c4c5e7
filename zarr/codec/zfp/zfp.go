// Package zfp reads and writes ZFP streams, the compressed format of LLNL's
// zfp library for 1- to 4-dimensional arrays of float32, float64, int32 and
// int64, in every mode zfp has (fixed rate, fixed precision, fixed accuracy,
// reversible and expert), with or without zfp's header (magic, field type
// and shape, mode) as zfpy writes it. Decoding and encoding follow zfp 1.0
// bit for bit: the same stream decodes to the same values, the same values
// and mode encode to the same stream.
//
// Values are little-endian element bytes in C order, the field's last
// dimension varying fastest (zfp's x).
package zfp

import (
	"math"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Type is a zfp scalar type (numbered as zfp_type).
type Type uint8

const (
	Int32  Type = 1
	Int64  Type = 2
	Float  Type = 3 // float32
	Double Type = 4 // float64
)

func (t Type) String() string {
	switch t {
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Float:
		return "float32"
	case Double:
		return "float64"
	}
	return "unknown zfp type"
}

// Size is the size of one value in bytes (0 for an unknown type).
func (t Type) Size() int {
	switch t {
	case Int32, Float:
		return 4
	case Int64, Double:
		return 8
	}
	return 0
}

// Limits of zfp's parameters.
const (
	MinBits = 1     // minimum bits per block
	MaxBits = 16658 // maximum bits per block
	MaxPrec = 64    // maximum precision
	MinExp  = -1074 // minimum floating-point exponent
)

// Params are zfp's four compression parameters; every mode is a setting of
// them.
type Params struct {
	MinBits, MaxBits, MaxPrec uint32
	MinExp                    int32
}

// Mode names the compression mode a setting of Params amounts to.
type Mode uint8

const (
	ModeNull Mode = iota
	ModeExpert
	ModeFixedRate
	ModeFixedPrecision
	ModeFixedAccuracy
	ModeReversible
)

// Reversible is lossless compression.
func Reversible() Params { return Params{MinBits, MaxBits, MaxPrec, MinExp - 1} }

// FixedRate is rate compressed bits per value for blocks of dims
// dimensions (zfp_stream_set_rate without word alignment); t (or 0 for none)
// raises the rate to the least a block of that type needs.
func FixedRate(rate float64, t Type, dims int) Params {
	n := float64(uint32(1) << (2 * uint(dims)))
	bits := cToUint(math.Floor(n*rate + 0.5))
	switch t {
	case Float:
		bits = max(bits, 1+8)
	case Double:
		bits = max(bits, 1+11)
	}
	return Params{bits, bits, MaxPrec, MinExp}
}

// cToUint converts as C's (uint) cast of a double does on x86-64 (through a
// 64-bit conversion, keeping the low 32 bits).
func cToUint(f float64) uint32 {
	if !(f >= -9223372036854775808 && f < 9223372036854775808) {
		return 0
	}
	return uint32(int64(f))
}

// FixedPrecision keeps precision bit planes (0 means all).
func FixedPrecision(precision uint32) Params {
	p := uint32(MaxPrec)
	if precision != 0 {
		p = min(precision, MaxPrec)
	}
	return Params{MinBits, MaxBits, p, MinExp}
}

// FixedAccuracy bounds the absolute error by tolerance (0 or less: as
// accurately as the type allows).
func FixedAccuracy(tolerance float64) Params {
	emin := int32(MinExp)
	if tolerance > 0 {
		_, e := math.Frexp(tolerance)
		emin = int32(e - 1)
	}
	return Params{MinBits, MaxBits, MaxPrec, emin}
}

// Expert sets the parameters directly; they must be consistent.
func Expert(minbits, maxbits, maxprec uint32, minexp int32) (Params, error) {
	if minbits > maxbits || maxprec == 0 || maxprec > MaxPrec {
		return Params{}, errs.New(errs.InvalidMetadata, "zfp", "expert parameters need minbits <= maxbits and 1 <= maxprec <= 64, got minbits %d, maxbits %d, maxprec %d", minbits, maxbits, maxprec)
	}
	return Params{minbits, maxbits, maxprec, minexp}, nil
}

func (p Params) reversible() bool { return p.MinExp < MinExp }

// Mode returns the mode these parameters amount to (zfp_stream_compression_mode).
func (p Params) Mode() Mode {
	switch {
	case p.MinBits > p.MaxBits || !(0 < p.MaxPrec && p.MaxPrec <= 64):
		return ModeNull
	case p == Params{MinBits, MaxBits, MaxPrec, MinExp}:
		return ModeExpert
	case p.MinBits == p.MaxBits && 1 <= p.MaxBits && p.MaxBits <= MaxBits && p.MaxPrec >= MaxPrec && p.MinExp == MinExp:
		return ModeFixedRate
	case p.MinBits <= MinBits && p.MaxBits >= MaxBits && p.MaxPrec >= 1 && p.MinExp == MinExp:
		return ModeFixedPrecision
	case p.MinBits <= MinBits && p.MaxBits >= MaxBits && p.MaxPrec >= MaxPrec && p.MinExp >= MinExp:
		return ModeFixedAccuracy
	case p.MinBits <= MinBits && p.MaxBits >= MaxBits && p.MaxPrec >= MaxPrec && p.MinExp < MinExp:
		return ModeReversible
	}
	return ModeExpert
}

// Field is the type and shape (C order, 1 to 4 dimensions) of the values.
type Field struct {
	Type  Type
	Shape []int
}

// Len is the number of values.
func (f Field) Len() int {
	n := 1
	for _, d := range f.Shape {
		n *= d
	}
	return n
}

// check validates a field given by a caller.
func (f Field) check() error {
	if f.Type.Size() == 0 {
		return errs.New(errs.Unsupported, "zfp", "zfp has no type %d", uint8(f.Type))
	}
	if len(f.Shape) < 1 || len(f.Shape) > 4 {
		return errs.New(errs.Unsupported, "zfp", "zfp takes 1 to 4 dimensions, got %d", len(f.Shape))
	}
	for _, d := range f.Shape {
		if d < 1 {
			return errs.New(errs.Unsupported, "zfp", "zfp cannot take an empty dimension (shape %v)", f.Shape)
		}
	}
	return nil
}

// Header bits (zfp.h).
const (
	codecVersion   = 5 // ZFP_CODEC of zfp 0.5.5 to 1.0
	metaBits       = 52
	modeShortBits  = 12
	modeLongBits   = 64
	modeShortMax   = 1<<modeShortBits - 2
	maxHeaderBits  = 148
	magicBits      = 32
	reversibleCode = 2048 + 128
)

// headerMeta packs the field into the 52 metadata bits; ok is false when a
// dimension does not fit.
func headerMeta(f Field) (uint64, bool) {
	dims := len(f.Shape)
	width := [5]uint{0, 48, 24, 16, 12}[dims]
	var meta uint64
	for _, d := range f.Shape { // slowest first: w, z, y, then x last
		if uint64(d-1)>>width != 0 {
			return 0, false
		}
		meta = meta<<width + uint64(d-1)
	}
	meta = meta<<2 + uint64(dims-1)
	meta = meta<<2 + uint64(f.Type-1)
	return meta, true
}

// modeCode is the 12- or 64-bit header encoding of the parameters.
func (p Params) modeCode() uint64 {
	switch p.Mode() {
	case ModeFixedRate:
		if p.MaxBits <= 2048 {
			return uint64(p.MaxBits - 1)
		}
	case ModeFixedPrecision:
		if p.MaxPrec <= 128 {
			return uint64(p.MaxPrec-1) + 2048
		}
	case ModeFixedAccuracy:
		if p.MinExp <= 843 {
			return uint64(p.MinExp-MinExp) + 2048 + 128 + 1
		}
	case ModeReversible:
		return reversibleCode
	}
	clamp := func(v, hi uint32) uint64 { return uint64(max(1, min(v, hi)) - 1) }
	minexp := uint64(max(0, min(int64(p.MinExp)+16495, 0x7fff)))
	mode := minexp
	mode = mode<<7 + clamp(p.MaxPrec, 0x80)
	mode = mode<<15 + clamp(p.MaxBits, 0x8000)
	mode = mode<<15 + clamp(p.MinBits, 0x8000)
	mode = mode<<12 + 0xfff
	return mode
}

// paramsOfMode decodes a header's mode code (zfp_stream_set_mode).
func paramsOfMode(mode uint64) (Params, bool) {
	var p Params
	if mode <= modeShortMax {
		switch {
		case mode < 2048:
			p = Params{uint32(mode) + 1, uint32(mode) + 1, MaxPrec, MinExp}
		case mode < reversibleCode:
			p = Params{MinBits, MaxBits, uint32(mode) + 1 - 2048, MinExp}
		case mode == reversibleCode:
			p = Reversible()
		default:
			p = Params{MinBits, MaxBits, MaxPrec, int32(mode) + MinExp - (reversibleCode + 1)}
		}
	} else {
		mode >>= 12
		p.MinBits = uint32(mode&0x7fff) + 1
		mode >>= 15
		p.MaxBits = uint32(mode&0x7fff) + 1
		mode >>= 15
		p.MaxPrec = uint32(mode&0x7f) + 1
		mode >>= 7
		p.MinExp = int32(mode&0x7fff) - 16495
	}
	if p.MinBits > p.MaxBits || !(0 < p.MaxPrec && p.MaxPrec <= 64) {
		return Params{}, false
	}
	return p, true
}

// ReadHeader parses the full header zfpy writes (magic, field, mode). It
// returns the field, the parameters and the header's length in bits (the
// compressed blocks follow without alignment).
func ReadHeader(src []byte) (Field, Params, int, error) {
	r := &reader{data: src}
	bad := func(format string, args ...any) (Field, Params, int, error) {
		return Field{}, Params{}, 0, errs.New(errs.Codec, "zfp", format, args...)
	}
	if len(src) < (magicBits+metaBits+modeShortBits+7)/8 {
		return bad("stream of %d bytes is shorter than a zfp header", len(src))
	}
	if r.readBits(8) != 'z' || r.readBits(8) != 'f' || r.readBits(8) != 'p' {
		return bad("not a zfp stream with a header (no \"zfp\" magic)")
	}
	if v := r.readBits(8); v != codecVersion {
		return bad("zfp codec version %d is not supported (only %d, zfp 0.5.5 to 1.0)", v, codecVersion)
	}
	meta := r.readBits(metaBits)
	f := Field{Type: Type(meta&3 + 1)}
	meta >>= 2
	dims := int(meta&3 + 1)
	meta >>= 2
	width := [5]uint{0, 48, 24, 16, 12}[dims]
	mask := uint64(1)<<width - 1
	if dims == 1 {
		mask = 0xffffffff // zfp reads 32 of the 48 bits
	}
	f.Shape = make([]int, dims)
	for i := dims - 1; i >= 0; i-- {
		f.Shape[i] = int(meta&mask) + 1
		meta >>= width
	}
	mode := r.readBits(modeShortBits)
	if mode > modeShortMax {
		if len(src)*8 < maxHeaderBits {
			return bad("stream of %d bytes is shorter than its zfp header", len(src))
		}
		mode += r.readBits(modeLongBits-modeShortBits) << modeShortBits
	}
	p, ok := paramsOfMode(mode)
	if !ok {
		return bad("zfp header has invalid compression parameters (mode 0x%x)", mode)
	}
	return f, p, int(r.tell()), nil
}

// AppendHeader appends the full header of a stream to dst (the bits that
// follow are not aligned, so Encode writes header and blocks together).
func appendHeader(w *writer, f Field, p Params) error {
	meta, ok := headerMeta(f)
	if !ok {
		return errs.New(errs.Unsupported, "zfp", "shape %v is too large for a zfp header", f.Shape)
	}
	for _, c := range []byte{'z', 'f', 'p', codecVersion} {
		w.writeBits(uint64(c), 8)
	}
	w.writeBits(meta, metaBits)
	mode := p.modeCode()
	if mode > modeShortMax {
		w.writeBits(mode, modeLongBits)
	} else {
		w.writeBits(mode, modeShortBits)
	}
	return nil
}

// Decode decodes the blocks of a stream that start at bit offset start of
// src into dst, which must hold exactly the field's values.
func Decode(dst, src []byte, start int, f Field, p Params) error {
	if err := f.check(); err != nil {
		return err
	}
	if len(dst) != f.Len()*f.Type.Size() {
		return errs.New(errs.Codec, "zfp", "output of %d bytes does not hold %d values of %s", len(dst), f.Len(), f.Type)
	}
	if p.Mode() == ModeNull {
		return errs.New(errs.InvalidMetadata, "zfp", "invalid compression parameters {MinBits:%d MaxBits:%d MaxPrec:%d MinExp:%d}", p.MinBits, p.MaxBits, p.MaxPrec, p.MinExp)
	}
	if start < 0 || start > len(src)*8 {
		return errs.New(errs.Codec, "zfp", "stream of %d bytes ends before its blocks", len(src))
	}
	r := &reader{data: src}
	r.seek(uint64(start))
	var ok bool
	switch f.Type {
	case Int32, Float:
		ok = newCoder[int32, uint32](f, p).decode(r, dst)
	default:
		ok = newCoder[int64, uint64](f, p).decode(r, dst)
	}
	if !ok {
		return errs.New(errs.Codec, "zfp", "stream of %d bytes is truncated (%s %v)", len(src), f.Type, f.Shape)
	}
	return nil
}

// DecodeWithHeader decodes a stream that carries zfp's full header (as zfpy
// writes it). want is the type and number of values the caller expects: a
// header describing anything else is refused before any allocation. The
// header's shape is returned with the values.
func DecodeWithHeader(src []byte, want Type, count int) ([]byte, Field, error) {
	f, p, start, err := ReadHeader(src)
	if err != nil {
		return nil, Field{}, err
	}
	if f.Type != want {
		return nil, f, errs.New(errs.Codec, "zfp", "stream holds %s values, expected %s", f.Type, want)
	}
	if f.Len() != count {
		return nil, f, errs.New(errs.Codec, "zfp", "stream holds %v = %d values, expected %d", f.Shape, f.Len(), count)
	}
	dst := make([]byte, count*want.Size())
	if err := Decode(dst, src, start, f, p); err != nil {
		return nil, f, err
	}
	return dst, f, nil
}

// Encode compresses src (the field's values) and appends the stream to dst,
// with zfp's full header first when header is set. The stream ends padded
// to a whole word of wordBits bits, as zfp_compress leaves it: 64 in zfp's
// default build (PyPI's zfpy, zarrs), 8 where zfp is built with byte words
// (Debian's libzfp and so its zfpy). Either decodes the same.
func Encode(dst, src []byte, f Field, p Params, header bool, wordBits int) ([]byte, error) {
	if wordBits != 8 && wordBits != 16 && wordBits != 32 && wordBits != 64 {
		return nil, errs.New(errs.Unsupported, "zfp", "zfp words are 8, 16, 32 or 64 bits, not %d", wordBits)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	if len(src) != f.Len()*f.Type.Size() {
		return nil, errs.New(errs.Codec, "zfp", "input of %d bytes is not %d values of %s", len(src), f.Len(), f.Type)
	}
	w := &writer{out: dst}
	if header {
		if err := appendHeader(w, f, p); err != nil {
			return nil, err
		}
	}
	switch f.Type {
	case Int32, Float:
		newCoder[int32, uint32](f, p).encode(w, src)
	default:
		newCoder[int64, uint64](f, p).encode(w, src)
	}
	w.flush(uint(wordBits))
	return w.out, nil
}
