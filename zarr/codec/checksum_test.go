package codec

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The vectors are numcodecs' own (its tests/test_jenkins.py and
// tests/test_fletcher32.py), from lookup3.c's self-test and HDF5 data.
func TestJenkinsLookup3Vectors(t *testing.T) {
	four := []byte("Four score and seven years ago")
	for _, c := range []struct {
		data    []byte
		initval uint32
		want    uint32
	}{
		{nil, 0, 0xdeadbeef},
		{nil, 0xdeadbeef, 0xbd5b7dde},
		{four, 0, 0x17770551},
		{four, 1, 0xcd628161},
		{[]byte("jenkins"), 0, 202276345},
	} {
		if got := lookup3(c.data, c.initval); got != c.want {
			t.Errorf("lookup3(%q, %#x) = %#x, want %#x", c.data, c.initval, got, c.want)
		}
	}
	for _, c := range []struct {
		cfg  string
		tail []byte
	}{
		{`{"id":"jenkins_lookup3"}`, []byte{0x51, 0x05, 0x77, 0x17}},
		{`{"id":"jenkins_lookup3","initval":1230}`, []byte{0xd7, 'Z', 0xe2, 0x0e}},
	} {
		k := build(t, "numcodecs.jenkins_lookup3", c.cfg, Spec{}).(BytesToBytes)
		enc, err := k.Encode(four)
		must(t, err)
		if !bytes.Equal(enc[len(enc)-4:], c.tail) || !bytes.Equal(enc[:len(four)], four) {
			t.Errorf("%s: encoded tail %x, want %x", c.cfg, enc[len(enc)-4:], c.tail)
		}
		dec, err := k.Decode(enc)
		must(t, err)
		if !bytes.Equal(dec, four) {
			t.Errorf("%s: decoded %q", c.cfg, dec)
		}
		enc[3] ^= 1
		if _, err := k.Decode(enc); errs.CodeOf(err) != errs.Codec {
			t.Errorf("%s: a flipped bit gave %v, want a CODEC error", c.cfg, err)
		}
	}
	// An HDF5 fixed-array data block: its index bytes with the "FADB" header as
	// prefix, checksummed by HDF5 (numcodecs' test data).
	index := []byte("\x00\x08\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00\xf7\x17\x00\x00\x00\x00\x00\x00" +
		"\xf7\x0f\x00\x00\x00\x00\x00\x00\xee'\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00" +
		"\xe57\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00\xdcG\x00\x00\x00\x00\x00\x00" +
		"\xf7\x0f\x00\x00\x00\x00\x00\x00\xd3W\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00" +
		"\xcag\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00\xc1w\x00\x00\x00\x00\x00\x00" +
		"\xf7\x0f\x00\x00\x00\x00\x00\x00\xb8\x87\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00" +
		"\xaf\x97\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00\xa6\xa7\x00\x00\x00\x00\x00\x00" +
		"\xf7\x0f\x00\x00\x00\x00\x00\x00\x9d\xb7\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00" +
		"\x94\xc7\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00\x8b\xd7\x00\x00\x00\x00\x00\x00" +
		"\xf7\x0f\x00\x00\x00\x00\x00\x00\x82\xe7\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00" +
		"y\xf7\x00\x00\x00\x00\x00\x00\xf7\x0f\x00\x00\x00\x00\x00\x00n\x96\x07\x85")
	var ints []int
	for _, b := range []byte("FADB\x00\x01\xcf\x01\x00\x00\x00\x00\x00\x00") {
		ints = append(ints, int(b))
	}
	prefix, _ := jsonx.MarshalStrict(map[string]any{"prefix": ints})
	k := build(t, "numcodecs.jenkins_lookup3", string(prefix), Spec{}).(BytesToBytes)
	if _, err := k.Decode(index); err != nil {
		t.Errorf("HDF5's checksum of its fixed-array block: %v", err)
	}
}

func TestFletcher32Vectors(t *testing.T) {
	data := []byte("w\x07\x00\x00\x00\x00\x00\x00\x85\xf6\xff\xff\xff\xff\xff\xff" +
		"i\x07\x00\x00\x00\x00\x00\x00\x94\xf6\xff\xff\xff\xff\xff\xff" +
		"\x88\t\x00\x00\x00\x00\x00\x00i\x03\x00\x00\x00\x00\x00\x00" +
		"\x93\xfd\xff\xff\xff\xff\xff\xff\xc3\xfc\xff\xff\xff\xff\xff\xff" +
		"'\x02\x00\x00\x00\x00\x00\x00\xba\xf7\xff\xff\xff\xff\xff\xff" +
		"\xfd%\x86d")
	k := build(t, "numcodecs.fletcher32", "", Spec{}).(BytesToBytes)
	dec, err := k.Decode(data)
	must(t, err)
	want := []int64{1911, -2427, 1897, -2412, 2440, 873, -621, -829, 551, -2118}
	for i, w := range want {
		if got := int64(binary.LittleEndian.Uint64(dec[8*i:])); got != w {
			t.Errorf("value %d = %d, want %d", i, got, w)
		}
	}
	enc, err := k.Encode(dec)
	must(t, err)
	if !bytes.Equal(enc, data) {
		t.Errorf("encoded %x, want %x", enc, data)
	}
	data[0]++
	if _, err := k.Decode(data); errs.CodeOf(err) != errs.Codec {
		t.Errorf("a changed byte gave %v, want a CODEC error", err)
	}
	// an odd length and more than 360 words exercise the tail and the folds
	long := bytes.Repeat([]byte{0xff, 0xfe, 0x01}, 1000)
	enc, err = k.Encode(long)
	must(t, err)
	if back, err := k.Decode(enc); err != nil || !bytes.Equal(back, long) {
		t.Errorf("round trip: %v", err)
	}
}

// zarrs' fletcher32 leaves a trailing odd byte out of the sum: such chunks
// (zarrs' snapshot of an optional uint8 array, 39 bytes) are accepted; a
// changed byte is still an error.
func TestFletcher32ZarrsOddLength(t *testing.T) {
	k := build(t, "numcodecs.fletcher32", "", Spec{}).(BytesToBytes)
	data := []byte("zarrs sums odd chunks without the last byte")
	sum := fletcher32(data[:len(data)-1])
	enc := binary.LittleEndian.AppendUint32(append([]byte(nil), data...), sum)
	if _, err := k.Decode(enc); err != nil {
		t.Fatalf("zarrs' odd-length sum: %v", err)
	}
	enc[0] ^= 1
	if _, err := k.Decode(enc); errs.CodeOf(err) != errs.Codec {
		t.Fatalf("a changed byte gave %v", err)
	}
	if fletcher32(data) == sum {
		t.Fatal("the two sums coincide for this input; pick another")
	}
}
