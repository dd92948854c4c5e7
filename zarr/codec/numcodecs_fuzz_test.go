package codec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"

	"github.com/zarr-wasm/zarr-wasm/tests/fuzzmem"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// fuzzCodecs are the codecs FuzzDecode drives; the fuzzer picks one with
// its second argument. dt is the chunk type for array codecs.
var fuzzCodecs = []struct{ name, cfg, dt string }{
	{"numcodecs.zlib", `{"level":1}`, ""},
	{"gzip", `{"level":1}`, ""},
	{"numcodecs.bz2", `{"level":1}`, ""},
	{"numcodecs.lzma", `{"format":1}`, ""},
	{"numcodecs.lzma", `{"format":2}`, ""},
	{"numcodecs.lzma", `{"format":3,"filters":[{"id":33,"dict_size":65536}]}`, ""},
	{"numcodecs.lzma", `{"format":3,"filters":[{"id":4611686018427387905}]}`, ""},
	{"numcodecs.lzma", `{"format":0}`, ""},
	{"zstd", `{"level":1}`, ""},
	{"numcodecs.lz4", `{"acceleration":1}`, ""},
	{"crc32c", ``, ""},
	{"numcodecs.crc32", ``, ""},
	{"numcodecs.adler32", ``, ""},
	{"numcodecs.shuffle", `{"elementsize":4}`, ""},
	{"numcodecs.base64", ``, ""},
	{"vlen-utf8", ``, "|O"},
	{"vlen-bytes", ``, "|O"},
	{"numcodecs.vlen-array", `{"dtype":">i2"}`, "|O"},
	{"numcodecs.json2", ``, "|O"},
	{"numcodecs.json2", ``, "<f8"},
	{"numcodecs.delta", `{"dtype":"<i4","astype":"<i2"}`, "<i4"},
	{"numcodecs.delta", `{"dtype":"<f8","astype":"<f4"}`, "<f8"},
	{"numcodecs.fixedscaleoffset", `{"scale":10,"offset":1000,"dtype":"<f8","astype":"|u1"}`, "<f8"},
	{"numcodecs.quantize", `{"digits":3,"dtype":"<f4","astype":"<f2"}`, "<f4"},
	{"numcodecs.astype", `{"encode_dtype":"<i2","decode_dtype":"<f8"}`, "<f8"},
	{"numcodecs.bitround", `{"keepbits":5}`, "<f4"},
	{"numcodecs.packbits", ``, "|b1"},
	{"numcodecs.categorize", `{"labels":["a","bb","ccc"],"dtype":"|O","astype":"<u2"}`, "|O"},
	{"numcodecs.categorize", `{"labels":["a","bb","ccc"],"dtype":"<U2","astype":"<f4"}`, "<U2"},
	{"numcodecs.msgpack2", ``, "|O"},
	{"numcodecs.msgpack2", `{"raw":true}`, "|O"},
	{"numcodecs.msgpack2", ``, "<i8"},
	{"imagecodecs_lzw", ``, ""},
	{"imagecodecs_packbits", ``, ""},
	{"imagecodecs_delta", `{"axis":-1,"dist":1}`, "<i2"},
	{"imagecodecs_floatpred", `{"axis":-1,"dist":1}`, "<f4"},
	// v2 lists in numcodecs' order (meta's fallback for what the v3 chain cannot hold)
	{V2PipelineName, `{"dtype":"<i4","codecs":[{"name":"numcodecs.shuffle","configuration":{"elementsize":4}},{"name":"numcodecs.delta","configuration":{"dtype":"<i4"}}]}`, "<i4"},
	{V2PipelineName, `{"dtype":">i2","codecs":[{"name":"numcodecs.zlib"},{"name":"numcodecs.delta","configuration":{"dtype":"|u1"}}]}`, ">i2"},
	{V2PipelineName, `{"dtype":"|b1","codecs":[{"name":"numcodecs.crc32"},{"name":"numcodecs.packbits"}]}`, "|b1"},
	// zarr-extensions' bit packing
	{"packbits", `{"padding_encoding":"first_byte"}`, "|b1"},
	{"packbits", `{"first_bit":1,"last_bit":6}`, "<i2"},
	// zarrs' and the registry's (issue 30)
	{"zarrs.gdeflate", `{"level":5}`, ""},
	{"reshape", `{"shape":[-1]}`, "<u2"},
	{"zarrs.squeeze", ``, "<u2"},
	{"n5_default", `{"codecs":[{"name":"transpose","configuration":{"order":[0]}},{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}}]}`, ">u2"},
}

// fuzzLimit keeps decompressors well below the default limit while fuzzing.
const fuzzLimit = 16 << 20

func fuzzDecode(t *testing.T, data []byte, sel uint8, n uint16) {
	fc := fuzzCodecs[int(sel)%len(fuzzCodecs)]
	spec := Spec{}
	if fc.dt != "" {
		dt, err := dtype.ParseTypestr(fc.dt)
		if err != nil {
			t.Fatal(err)
		}
		spec = Spec{Shape: []int{int(n % 4096)}, DType: dt, Fill: dt.ZeroFill()}
	}
	var raw jsonx.RawMessage
	if fc.cfg != "" {
		raw = jsonx.RawMessage(fc.cfg)
	}
	c, err := Build(Config{Name: fc.name, Configuration: raw}, spec)
	if err != nil {
		t.Fatalf("%s: %v", fc.name, err)
	}
	checkErr := func(err error) {
		// UNSUPPORTED is right for well-formed data using an unimplemented
		// feature (an xz stream with a BCJ filter).
		if err != nil && errs.CodeOf(err) != errs.Codec && errs.CodeOf(err) != errs.Unsupported {
			t.Fatalf("%s: error without the CODEC code: %v", fc.name, err)
		}
	}
	switch k := c.(type) {
	case BytesToBytes:
		var out []byte
		if l, ok := k.(LimitedDecoder); ok {
			out, err = l.DecodeLimit(data, fuzzLimit)
		} else {
			out, err = k.Decode(data)
		}
		checkErr(err)
		if len(out) > fuzzLimit {
			t.Fatalf("%s: %d bytes decoded, limit %d", fc.name, len(out), fuzzLimit)
		}
		// and the data itself round-trips
		enc, err := k.Encode(data)
		if err != nil {
			if fc.name == "numcodecs.shuffle" || errs.CodeOf(err) == errs.Unsupported {
				return // not a whole number of elements; a read-only codec
			}
			t.Fatalf("%s: encode: %v", fc.name, err)
		}
		if fc.name == "numcodecs.lz4" && len(data) == 0 {
			return // numcodecs' LZ4 format cannot hold an empty chunk
		}
		back, err := k.Decode(enc)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("%s: round trip failed: %v", fc.name, err)
		}
	case ArrayToBytes:
		a, err := k.Decode(data, spec)
		checkErr(err)
		if err == nil {
			if a.Len() != nd.Size(spec.Shape) {
				t.Fatalf("%s: decoded %d elements for shape %v", fc.name, a.Len(), spec.Shape)
			}
			if _, err := k.Encode(a); err != nil && fc.name != "json2" {
				t.Fatalf("%s: re-encoding decoded values: %v", fc.name, err)
			}
		}
	case ArrayToArray:
		es, err := k.Encoded(spec)
		if err != nil {
			t.Fatalf("%s: %v", fc.name, err)
		}
		size := es.DType.Size
		want := nd.Size(es.Shape) * size
		if len(data) >= want {
			data = data[:want]
		}
		data = data[:len(data)/size*size]
		ea, err := nd.FromBytes(es.DType, []int{len(data) / size}, append([]byte(nil), data...))
		if err != nil {
			t.Fatal(err)
		}
		a, err := k.Decode(ea, spec)
		checkErr(err)
		if err == nil && a.Len() != nd.Size(spec.Shape) {
			t.Fatalf("%s: decoded %d elements for shape %v", fc.name, a.Len(), spec.Shape)
		}
	}
}

// FuzzDecode feeds arbitrary bytes to every codec's decoder (selected by
// sel; n sets the chunk length for array codecs): no panic, no error
// without the CODEC code, bounded output; bytes→bytes codecs also
// round-trip the input.
func FuzzDecode(f *testing.F) {
	for i := range fuzzCodecs {
		f.Add([]byte{}, uint8(i), uint16(0))
		f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0}, uint8(i), uint16(1))
	}
	fuzzmem.Limit(f)
	f.Fuzz(func(t *testing.T, data []byte, sel uint8, n uint16) {
		defer fuzzmem.Input(t)()
		fuzzDecode(t, data, sel, n)
	})
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/FuzzDecode from the numcodecs
// vectors (ZARR_WRITE_FUZZ_SEEDS=1 go test -run TestWriteFuzzSeeds).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("ZARR_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set ZARR_WRITE_FUZZ_SEEDS=1 to rewrite the seed corpus")
	}
	idx := loadIndex(t)
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	must(t, os.MkdirAll(dir, 0o755))
	written := 0
	for sel, fc := range fuzzCodecs {
		// one or two vectors of the same codec (any configuration)
		count := 0
		for _, v := range idx.Vectors {
			if modelConfig(t, v.Config).Name != fc.name || v.GoError != "" || count == 2 {
				continue
			}
			enc := readVectorFile(t, v.Encoded)
			if len(enc) > 2048 {
				continue
			}
			n := 0
			if len(v.Shape) > 0 {
				n = nd.Size(v.Shape)
			}
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nuint8(%d)\nuint16(%d)\n", enc, sel, n)
			name := fmt.Sprintf("seed-%02d-%d", sel, count)
			must(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
			count++
			written++
		}
	}
	t.Logf("%d seeds written", written)
}
