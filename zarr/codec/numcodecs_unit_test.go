package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

func build(t *testing.T, name, cfg string, spec Spec) any {
	t.Helper()
	var raw jsonx.RawMessage
	if cfg != "" {
		raw = jsonx.RawMessage(cfg)
	}
	c, err := Build(Config{Name: name, Configuration: raw}, spec)
	if err != nil {
		t.Fatalf("%s %s: %v", name, cfg, err)
	}
	return c
}

func TestCRC32C(t *testing.T) {
	c := build(t, "crc32c", "", Spec{}).(BytesToBytes)
	enc, err := c.Encode([]byte("123456789"))
	must(t, err)
	if got := enc[9:]; !bytes.Equal(got, []byte{0x83, 0x92, 0x06, 0xE3}) {
		t.Fatalf("crc32c check value bytes %x, want 839206e3 (0xE3069283 little-endian)", got)
	}
	if n, ok := c.(FixedSizer).EncodedSize(68); !ok || n != 72 {
		t.Fatalf("EncodedSize(68) = %d, %v", n, ok)
	}
	dec, err := c.Decode(enc)
	must(t, err)
	if string(dec) != "123456789" {
		t.Fatalf("decoded %q", dec)
	}
	enc[3] ^= 1
	if _, err := c.Decode(enc); errs.CodeOf(err) != errs.Codec {
		t.Fatalf("corrupt data: got %v, want a CODEC error", err)
	}
	// numcodecs-style configuration with a location
	s := build(t, "crc32c", `{"id":"crc32c","location":"start"}`, Spec{}).(BytesToBytes)
	enc, _ = s.Encode([]byte("123456789"))
	if !bytes.Equal(enc[:4], []byte{0x83, 0x92, 0x06, 0xE3}) {
		t.Fatalf("location start: %x", enc)
	}
}

// TestCorruptData: undecodable chunks give CODEC errors naming the codec.
func TestCorruptData(t *testing.T) {
	obj := Spec{Shape: []int{2}, DType: &dtype.DataType{Kind: dtype.Object, Endian: dtype.NoOrder, Name: "|O"}}
	lz4Hdr := func(n int32, rest ...byte) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, uint32(n)), rest...)
	}
	cases := []struct {
		name, cfg string
		spec      Spec
		data      []byte
	}{
		{"numcodecs.zlib", `{"level":1}`, Spec{}, []byte{0x78, 0x9c, 1, 2, 3}},
		{"numcodecs.zlib", `{"level":1}`, Spec{}, []byte("not deflate at all")},
		{"gzip", `{"level":1}`, Spec{}, []byte{0x1f, 0x8b, 8, 0, 0, 0}},
		{"gzip", `{"level":1}`, Spec{}, nil},
		{"numcodecs.bz2", `{"level":1}`, Spec{}, []byte("BZh91AY&SYgarbage")},
		{"numcodecs.bz2", `{"level":1}`, Spec{}, nil},
		{"numcodecs.lzma", `{"format":1}`, Spec{}, []byte{0xFD, '7', 'z', 'X', 'Z', 0, 0, 4, 1, 2, 3, 4}},
		{"numcodecs.lzma", `{"format":2}`, Spec{}, []byte{0x5d, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 9, 9, 9}},
		{"numcodecs.lzma", `{"format":3,"filters":[{"id":33}]}`, Spec{}, []byte{0xff, 0xff}},
		{"zstd", `{"level":1}`, Spec{}, []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0}},
		{"zstd", `{"level":1}`, Spec{}, nil},
		{"numcodecs.lz4", "", Spec{}, lz4Hdr(0)},
		{"numcodecs.lz4", "", Spec{}, lz4Hdr(-5, 0)},
		{"numcodecs.lz4", "", Spec{}, lz4Hdr(1<<30, 0x10, 'a')},
		{"numcodecs.lz4", "", Spec{}, lz4Hdr(5, 0x10, 'a')},
		{"numcodecs.lz4", "", Spec{}, []byte{1, 0}},
		{"crc32c", "", Spec{}, []byte{1, 2, 3}},
		{"crc32c", "", Spec{}, []byte{1, 2, 3, 4, 5}},
		{"numcodecs.crc32", "", Spec{}, []byte{0, 0, 0, 0, 5}},
		{"numcodecs.adler32", "", Spec{}, []byte{0, 0, 0, 0, 5}},
		{"numcodecs.shuffle", `{"elementsize":4}`, Spec{}, []byte{1, 2, 3}},
		{"numcodecs.base64", "", Spec{}, []byte("QQ=")},
		{"vlen-utf8", "", obj, []byte{2, 0, 0, 0, 1, 0, 0, 0, 'a', 5, 0, 0, 0}},
		{"vlen-utf8", "", obj, []byte{3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"vlen-utf8", "", obj, []byte{2, 0, 0, 0, 1, 0, 0, 0, 0xff, 0, 0, 0, 0}},
		{"vlen-utf8", "", obj, []byte{2, 0, 0}},
		{"vlen-bytes", "", obj, []byte{0xff, 0xff, 0xff, 0xff}},
		{"numcodecs.vlen-array", `{"dtype":"<i4"}`, obj, []byte{2, 0, 0, 0, 3, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0}},
		{"numcodecs.json2", "", obj, []byte(`["a","b","|O",[3]]`)},
		{"numcodecs.json2", "", obj, []byte(`["a","b"`)},
		{"numcodecs.json2", "", obj, []byte(`{"a":1}`)},
		{"numcodecs.json2", "", obj, []byte(strings.Repeat("[", 5000))},
	}
	for _, c := range cases {
		k := build(t, c.name, c.cfg, c.spec)
		var err error
		switch k := k.(type) {
		case BytesToBytes:
			_, err = k.Decode(c.data)
		case ArrayToBytes:
			_, err = k.Decode(c.data, c.spec)
		}
		var e *errs.Error
		// Errors name the codec as numcodecs does (its id).
		if !errors.As(err, &e) || e.Code != errs.Codec || e.Where != strings.TrimPrefix(c.name, "numcodecs.") {
			t.Errorf("%s %x: got %v, want a CODEC error naming %q", c.name, c.data, err, c.name)
		}
	}
	// array→array decoders
	boolSpec := Spec{Shape: []int{3}, DType: dtype.NewBool()}
	pb := build(t, "numcodecs.packbits", "", boolSpec).(ArrayToArray)
	for _, b := range [][]byte{{8, 0}, {5}, {0, 0xff}, {5, 0xa0, 0}} {
		a, _ := nd.FromBytes(packbitsOut, []int{len(b)}, b)
		if _, err := pb.Decode(a, boolSpec); errs.CodeOf(err) != errs.Codec {
			t.Errorf("packbits %x: got %v, want a CODEC error", b, err)
		}
	}
}

// TestConfigErrors: bad configurations are INVALID_METADATA (wrapped by
// Build), valid but unimplemented ones UNSUPPORTED.
func TestConfigErrors(t *testing.T) {
	f8 := Spec{Shape: []int{4}, DType: dtype.MustParseV2("<f8")}
	invalid := []struct{ name, cfg string }{
		{"numcodecs.zlib", `{"level":12}`},
		{"gzip", `{"level":"fast"}`},
		{"numcodecs.bz2", `{"level":0}`},
		{"numcodecs.lzma", `{"format":7}`},
		{"numcodecs.lzma", `{"format":3}`},
		{"numcodecs.lzma", `{"check":3}`},
		{"numcodecs.delta", `{}`},
		{"numcodecs.delta", `{"dtype":"<x9"}`},
		{"numcodecs.fixedscaleoffset", `{"dtype":"<f8","offset":1}`},
		{"numcodecs.fixedscaleoffset", `{"dtype":"<f8","scale":"x","offset":1}`},
		{"numcodecs.quantize", `{"digits":2,"dtype":"<i4"}`},
		{"numcodecs.quantize", `{"dtype":"<f8"}`},
		{"numcodecs.bitround", `{"keepbits":-1}`},
		{"numcodecs.bitround", `{}`},
		{"numcodecs.categorize", `{"labels":["a"],"dtype":"<i4"}`},
		{"numcodecs.categorize", `{"labels":"a","dtype":"|O"}`},
		{"numcodecs.astype", `{"decode_dtype":"<f8"}`},
		{"numcodecs.astype", `{"encode_dtype":"<M8[s]","decode_dtype":"<M8[ms]"}`},
		{"numcodecs.shuffle", `{"elementsize":-2}`},
		{"numcodecs.crc32", `{"location":"middle"}`},
		{"numcodecs.json2", `{"separators":[","]}`},
		{"numcodecs.msgpack2", `{"raw":"yes"}`},
		{"numcodecs.vlen-array", `{}`},
	}
	for _, c := range invalid {
		_, err := Build(Config{Name: c.name, Configuration: jsonx.RawMessage(c.cfg)}, f8)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != errs.InvalidMetadata || e.Where != c.name {
			t.Errorf("%s %s: got %v, want INVALID_METADATA naming the codec", c.name, c.cfg, err)
		}
	}
	unsupported := []struct{ name, cfg string }{
		{"numcodecs.lzma", `{"format":1,"filters":[{"id":3,"dist":4},{"id":33}]}`},
		{"numcodecs.lzma", `{"format":1,"filters":[{"id":4},{"id":33}]}`},
		{"numcodecs.vlen-array", `{"dtype":"<c16"}`},
		{"numcodecs.json2", `{"encoding":"latin-1"}`},
	}
	for _, c := range unsupported {
		_, err := Build(Config{Name: c.name, Configuration: jsonx.RawMessage(c.cfg)}, f8)
		if errs.CodeOf(err) != errs.Unsupported {
			t.Errorf("%s %s: got %v, want UNSUPPORTED", c.name, c.cfg, err)
		} else if c.name == "numcodecs.lzma" && !strings.Contains(err.Error(), "BCJ") && !strings.Contains(err.Error(), "delta") {
			t.Errorf("lzma error does not name the filter: %v", err)
		}
	}
	// Filters that cannot take the chunk's type fail when the chain is built.
	i4 := Spec{Shape: []int{4}, DType: dtype.MustParseV2("<i4")}
	c8 := Spec{Shape: []int{4}, DType: dtype.MustParseV2("|S4")}
	for _, c := range []struct {
		name, cfg string
		in        Spec
	}{
		{"numcodecs.bitround", `{"keepbits":3}`, c8},
		{"numcodecs.packbits", `{}`, i4},
		{"numcodecs.categorize", `{"labels":["a"],"dtype":"|O"}`, i4},
	} {
		_, err := NewChain([]Config{{Name: c.name, Configuration: jsonx.RawMessage(c.cfg)}, {Name: "bytes", Configuration: jsonx.RawMessage(`{"endian":"little"}`)}}, c.in)
		if errs.CodeOf(err) != errs.InvalidMetadata {
			t.Errorf("%s on <i4: got %v, want INVALID_METADATA", c.name, err)
		}
	}
	// keepbits beyond the mantissa (zarrs writes it on bfloat16) keeps the values
	br := build(t, "numcodecs.bitround", `{"keepbits":24}`, Spec{Shape: []int{2}, DType: dtype.MustParseV2("<f4")}).(ArrayToArray)
	f4, _ := nd.FromBytes(dtype.MustParseV2("<f4"), []int{2}, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	if got, err := br.Encode(f4); err != nil || !bytes.Equal(got.Bytes(), f4.Bytes()) {
		t.Errorf("bitround keepbits 24 on <f4: %v %v", got, err)
	}
}

func TestZstdFrames(t *testing.T) {
	c := build(t, "zstd", `{"level":3}`, Spec{}).(*zstdCodec)
	a, _ := c.Encode([]byte("first frame "))
	b, _ := c.Encode([]byte("second frame"))
	// a frame written by the streaming encoder has no content size
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf)
	w.Write([]byte(" streamed"))
	w.Close()
	skippable := []byte{0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'x', 'y', 'z'}
	all := append(append(append(append([]byte(nil), a...), skippable...), b...), buf.Bytes()...)
	dec, err := c.Decode(all)
	must(t, err)
	if string(dec) != "first frame second frame streamed" {
		t.Fatalf("decoded %q", dec)
	}
	// a frame claiming 1 GiB with one tiny block: rejected before decoding
	huge := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0, 0x40, 1, 0, 0}
	if _, err := c.Decode(huge); errs.CodeOf(err) != errs.Codec {
		t.Fatalf("huge content size: %v", err)
	}
	// the size hint
	zeros, _ := c.Encode(make([]byte, 1<<20))
	if _, err := c.DecodeLimit(zeros, 1000); errs.CodeOf(err) != errs.Codec {
		t.Fatalf("limit: %v", err)
	}
	if d, err := c.DecodeLimit(zeros, 1<<20); err != nil || len(d) != 1<<20 {
		t.Fatalf("limit exactly: %d %v", len(d), err)
	}
}

func TestDeflateLeniency(t *testing.T) {
	payload := []byte(strings.Repeat("zarr ", 100))
	var g1, g2, raw bytes.Buffer
	for _, g := range []*bytes.Buffer{&g1, &g2} {
		w := gzip.NewWriter(g)
		w.Write(payload)
		w.Close()
	}
	fw, _ := flate.NewWriter(&raw, 5)
	fw.Write(payload)
	fw.Close()
	gz := build(t, "gzip", "", Spec{}).(BytesToBytes)
	two := append(append(append([]byte(nil), g1.Bytes()...), g2.Bytes()...), 0, 0, 0, 0)
	dec, err := gz.Decode(two)
	must(t, err)
	if !bytes.Equal(dec, append(append([]byte(nil), payload...), payload...)) {
		t.Fatalf("two gzip members with zero padding: %d bytes", len(dec))
	}
	zl := build(t, "numcodecs.zlib", "", Spec{}).(BytesToBytes)
	for name, data := range map[string][]byte{"gzip": g1.Bytes(), "raw deflate": raw.Bytes()} {
		dec, err := zl.Decode(data)
		if err != nil || !bytes.Equal(dec, payload) {
			t.Errorf("zlib decoding %s: %v", name, err)
		}
	}
	// the deflate ratio bound and the size hint
	big, _ := zl.Encode(make([]byte, 1<<20))
	if _, err := zl.(LimitedDecoder).DecodeLimit(big, 1<<19); errs.CodeOf(err) != errs.Codec {
		t.Fatalf("limit: %v", err)
	}
}

func TestLZMAFormats(t *testing.T) {
	payload := bytes.Repeat([]byte("lzma formats "), 300)
	for _, cfg := range []string{`{"format":1}`, `{"format":1,"check":0}`, `{"format":1,"check":10,"preset":9}`,
		`{"format":2}`, `{"format":3,"filters":[{"id":33,"dict_size":65536}]}`,
		`{"format":3,"filters":[{"id":4611686018427387905,"lc":0,"lp":1,"pb":3}]}`} {
		c := build(t, "numcodecs.lzma", cfg, Spec{}).(BytesToBytes)
		enc, err := c.Encode(payload)
		must(t, err)
		dec, err := c.Decode(enc)
		if err != nil || !bytes.Equal(dec, payload) {
			t.Errorf("%s: round trip: %v", cfg, err)
		}
		if strings.Contains(cfg, `"format":1`) || strings.Contains(cfg, `"format":2`) {
			auto := build(t, "numcodecs.lzma", `{"format":0}`, Spec{}).(BytesToBytes)
			if dec, err := auto.Decode(enc); err != nil || !bytes.Equal(dec, payload) {
				t.Errorf("%s: format 0 decoding: %v", cfg, err)
			}
		}
	}
}

// TestChainsV2 runs filter + compressor chains the way a v2 array uses
// them (bytes codec with per-type byte order).
func TestChainsV2(t *testing.T) {
	i4 := memType(dtype.MustParseV2(">i4"))
	fill, _ := i4.FillFromValue(jsonx.Number("7"))
	in := Spec{Shape: []int{3, 4}, DType: i4, Fill: fill}
	ch, err := NewChain([]Config{
		{Name: "numcodecs.delta", Configuration: jsonx.RawMessage(`{"id":"delta","dtype":">i4","astype":">i2"}`)},
		{Name: "bytes", Configuration: jsonx.RawMessage(`{"endian":"big"}`)},
		{Name: "numcodecs.zlib", Configuration: jsonx.RawMessage(`{"id":"zlib","level":1}`)},
	}, in)
	must(t, err)
	data := make([]byte, 48)
	for i := 0; i < 12; i++ {
		binary.LittleEndian.PutUint32(data[i*4:], uint32(int32(1000+i*i-30)))
	}
	a, _ := nd.FromBytes(i4, in.Shape, data)
	enc, err := ch.Encode(a)
	must(t, err)
	back, err := ch.Decode(enc)
	must(t, err)
	if !back.Equal(a) || back.DType() != i4 {
		t.Fatalf("delta chain round trip differs")
	}
	// The encoded representation is big-endian int16: check the stored bytes.
	raw, _ := build(t, "numcodecs.zlib", "", Spec{}).(BytesToBytes).Decode(enc)
	if len(raw) != 24 || binary.BigEndian.Uint16(raw) != uint16(970) || binary.BigEndian.Uint16(raw[2:]) != 1 {
		t.Fatalf("stored delta bytes %x", raw)
	}
	// fixedscaleoffset transforms the fill value for the encoded side
	f8 := dtype.MustParseV2("<f8")
	ffill, _ := f8.FillFromValue(jsonx.Number("1000.5"))
	fso := build(t, "numcodecs.fixedscaleoffset", `{"id":"fixedscaleoffset","scale":10,"offset":1000,"dtype":"<f8","astype":"|u1"}`,
		Spec{Shape: []int{2}, DType: f8, Fill: ffill}).(ArrayToArray)
	es, err := fso.Encoded(Spec{Shape: []int{2}, DType: f8, Fill: ffill})
	must(t, err)
	if !bytes.Equal(es.Fill.Bytes, []byte{5}) {
		t.Fatalf("encoded fill %v, want [5]", es.Fill.Bytes)
	}

	// object arrays: categorize then zstd; vlen-utf8 then gzip
	o := &dtype.DataType{Kind: dtype.Object, Endian: dtype.NoOrder, Name: "|O"}
	vals := []any{"male", "female", nil, "other", "male", "female"}
	oa, _ := nd.FromObjects(o, []int{2, 3}, vals)
	ch, err = NewChain([]Config{
		{Name: "numcodecs.categorize", Configuration: jsonx.RawMessage(`{"id":"categorize","labels":["female","male"],"dtype":"|O","astype":"|u1"}`)},
		{Name: "bytes"},
		{Name: "zstd", Configuration: jsonx.RawMessage(`{"id":"zstd","level":1}`)},
	}, Spec{Shape: []int{2, 3}, DType: o})
	must(t, err)
	enc, err = ch.Encode(oa)
	must(t, err)
	back, err = ch.Decode(enc)
	must(t, err)
	got, _ := back.Objects()
	want := []any{"male", "female", "", "", "male", "female"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("categorize: got %v", got)
		}
	}
	ch, err = NewChain([]Config{{Name: "vlen-utf8"}, {Name: "gzip", Configuration: jsonx.RawMessage(`{"level":5}`)}},
		Spec{Shape: []int{2, 3}, DType: o})
	must(t, err)
	enc, err = ch.Encode(oa)
	must(t, err)
	back, err = ch.Decode(enc)
	must(t, err)
	got, _ = back.Objects()
	if got[0] != "male" || got[2] != "" || got[3] != "other" {
		t.Fatalf("vlen-utf8: got %v", got)
	}
}

// TestChainV3Numcodecs: in a v3 chain the bytes codec decides the stored
// byte order of a numcodecs filter's output.
func TestChainV3Numcodecs(t *testing.T) {
	i4, err := dtype.ParseV3(jsonx.RawMessage(`"int32"`))
	must(t, err)
	in := Spec{Shape: []int{4}, DType: i4, Fill: i4.ZeroFill()}
	ch, err := NewChain([]Config{
		{Name: "numcodecs.delta", Configuration: jsonx.RawMessage(`{"dtype":"<i4","astype":"<i2"}`)},
		{Name: "bytes", Configuration: jsonx.RawMessage(`{"endian":"big"}`)},
		{Name: "crc32c"},
	}, in)
	must(t, err)
	data := make([]byte, 16)
	for i, v := range []int32{100, 102, 99, -5} {
		binary.LittleEndian.PutUint32(data[i*4:], uint32(v))
	}
	a, _ := nd.FromBytes(i4, in.Shape, data)
	enc, err := ch.Encode(a)
	must(t, err)
	if want := []byte{0, 100, 0, 2, 0xff, 0xfd, 0xff, 0x98}; !bytes.Equal(enc[:8], want) {
		t.Fatalf("stored %x, want %x", enc[:8], want)
	}
	back, err := ch.Decode(enc)
	must(t, err)
	if !back.Equal(a) {
		t.Fatalf("round trip differs")
	}
	// a chain of numcodecs filters through a 1-byte type stays a v3 chain
	ch, err = NewChain([]Config{
		{Name: "numcodecs.astype", Configuration: jsonx.RawMessage(`{"encode_dtype":"|u1","decode_dtype":"<i4"}`)},
		{Name: "numcodecs.astype", Configuration: jsonx.RawMessage(`{"encode_dtype":"<u2","decode_dtype":"|u1"}`)},
		{Name: "bytes", Configuration: jsonx.RawMessage(`{"endian":"big"}`)},
	}, in)
	must(t, err)
	small := make([]byte, 16)
	for i, v := range []int32{1, 2, 300, 4} {
		binary.LittleEndian.PutUint32(small[i*4:], uint32(v))
	}
	a, _ = nd.FromBytes(i4, in.Shape, small)
	enc, err = ch.Encode(a)
	must(t, err)
	if want := []byte{0, 1, 0, 2, 0, 44, 0, 4}; !bytes.Equal(enc, want) {
		t.Fatalf("two astype filters then big-endian bytes: %x, want %x", enc, want)
	}
	// bitround under its v3 name
	f4, _ := dtype.ParseV3(jsonx.RawMessage(`"float32"`))
	ch, err = NewChain([]Config{
		{Name: "numcodecs.bitround", Configuration: jsonx.RawMessage(`{"keepbits":2}`)},
		{Name: "bytes", Configuration: jsonx.RawMessage(`{"endian":"little"}`)},
	}, Spec{Shape: []int{1}, DType: f4})
	must(t, err)
	fa, _ := nd.FromBytes(f4, []int{1}, binary.LittleEndian.AppendUint32(nil, 0x3fb33333)) // 1.4
	enc, err = ch.Encode(fa)
	must(t, err)
	if got := binary.LittleEndian.Uint32(enc); got != 0x3fc00000 { // 1.5
		t.Fatalf("bitround 1.4 keepbits 2: %08x", got)
	}
}

// TestConcurrentCompressors: shared zstd encoders/decoder and pooled LZ4
// compressors under concurrent use (run with -race).
func TestConcurrentCompressors(t *testing.T) {
	codecs := []BytesToBytes{
		build(t, "zstd", `{"level":3}`, Spec{}).(BytesToBytes),
		build(t, "zstd", `{"level":3,"checksum":true}`, Spec{}).(BytesToBytes),
		build(t, "numcodecs.lz4", `{"acceleration":2}`, Spec{}).(BytesToBytes),
	}
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func(g int) {
			var err error
			for i := 0; i < 50 && err == nil; i++ {
				payload := bytes.Repeat([]byte{byte(g), byte(i), 'z'}, 100+i*g)
				c := codecs[(g+i)%len(codecs)]
				var enc, dec []byte
				if enc, err = c.Encode(payload); err == nil {
					if dec, err = c.Decode(enc); err == nil && !bytes.Equal(dec, payload) {
						err = errors.New("round trip differs")
					}
				}
			}
			done <- err
		}(g)
	}
	for g := 0; g < 8; g++ {
		must(t, <-done)
	}
}

// A zstd level beyond libzstd's range is clamped as libzstd does (numcodecs
// wrote level 100): it encodes as the nearest level in range.
func TestZstdLevelClamped(t *testing.T) {
	data := bytes.Repeat([]byte("zarr-wasm clamps zstd levels "), 200)
	for _, c := range []struct{ level, as string }{{"100", "22"}, {"-200000", "-131072"}} {
		got, err := build(t, "zstd", `{"level":`+c.level+`}`, Spec{}).(BytesToBytes).Encode(data)
		must(t, err)
		want, err := build(t, "zstd", `{"level":`+c.as+`}`, Spec{}).(BytesToBytes).Encode(data)
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Errorf("level %s does not encode as level %s", c.level, c.as)
		}
	}
}

// zarrs' bitround on integers keeps keepbits bits from each value's highest
// set bit, saturating: its stored chunk (zarrs/tests/data/codec/bitround/
// bitround_uint8.zarr, written by zarrs' codec_bitround test from the values
// below) is what ours encodes; decoding is the identity.
func TestBitroundIntegersAsZarrs(t *testing.T) {
	in := []byte{0, 1, 10, 11, 100, 123, 200, 208, 209, 255}
	want := []byte{0x00, 0x01, 0x0a, 0x0c, 0x60, 0x80, 0xc0, 0xc0, 0xe0, 0xe0}
	u1 := Spec{Shape: []int{10}, DType: dtype.NewUint(1)}
	k := build(t, "numcodecs.bitround", `{"keepbits":3}`, u1).(ArrayToArray)
	a, _ := nd.FromBytes(u1.DType, u1.Shape, in)
	enc, err := k.Encode(a)
	must(t, err)
	if !bytes.Equal(enc.Bytes(), want) {
		t.Fatalf("encoded %x, zarrs wrote %x", enc.Bytes(), want)
	}
	dec, err := k.Decode(enc, u1)
	must(t, err)
	if !bytes.Equal(dec.Bytes(), want) {
		t.Fatalf("decoding is not the identity: %x", dec.Bytes())
	}
}

// delta on bool reads (numcodecs' running or) but is not written: numcodecs'
// encoding (an exclusive or) would read back as other values.
func TestDeltaBoolReadOnly(t *testing.T) {
	b1 := Spec{Shape: []int{4}, DType: dtype.NewBool()}
	k := build(t, "numcodecs.delta", `{"dtype":"|b1"}`, b1).(ArrayToArray)
	enc, _ := nd.FromBytes(b1.DType, b1.Shape, []byte{0, 1, 0, 1})
	dec, err := k.Decode(enc, b1)
	must(t, err)
	if !bytes.Equal(dec.Bytes(), []byte{0, 1, 1, 1}) {
		t.Fatalf("decoded %v, want a running or", dec.Bytes())
	}
	if _, err := k.Encode(enc); errs.CodeOf(err) != errs.Unsupported {
		t.Fatalf("encode: got %v, want UNSUPPORTED", err)
	}
}

// TestZstdOver1GiB: a chunk may decode to anything metadata allows (up to
// 2 GiB - 1; the decoders stopped at 1 GiB before), within the budget.
func TestZstdOver1GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 2.3 GB")
	}
	const n = 1<<30 + 1<<27 // 1.125 GiB
	src := make([]byte, n)
	src[n-1] = 7
	c := &zstdCodec{level: 1}
	enc, err := c.Encode(src)
	if err != nil {
		t.Fatal(err)
	}
	src = nil
	out, err := c.DecodeLimit(enc, n)
	if err != nil || len(out) != n || out[n-1] != 7 {
		t.Fatalf("%d bytes, %v", len(out), err)
	}
}
