package codec

import (
	"os"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// The pcodec configuration members writers use: every one is read, none
// changes decoding, and a setting the writer would refuse when encoding
// (numcodecs raises then) fails only when encoding.
func TestPcodecConfigurations(t *testing.T) {
	f32 := &dtype.DataType{Kind: dtype.Float, Size: 4, Endian: dtype.Little, Name: "<f4"}
	spec := Spec{Shape: []int{5, 5}, DType: f32}
	stream, err := os.ReadFile("../../tests/fixtures/pcodec/zarrs/v2/array_pcodec_C.zarr/0.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg       string
		encodeErr bool
	}{
		{`{"id": "pcodec", "level": 8, "mode_spec": "auto", "delta_spec": "auto", "paging_spec": "equal_pages_up_to", "delta_encoding_order": null, "equal_pages_up_to": 262144}`, false},
		{`{"id": "pcodec", "level": 5, "delta_encoding_order": 2, "equal_pages_up_to": 300, "mode_spec": "classic"}`, false},                                          // numcodecs 0.13
		{`{"id": "pcodec", "level": 8, "delta_encoding_order": null, "int_mult_spec": "enabled", "float_mult_spec": "disabled", "equal_pages_up_to": 262144}`, false}, // numcodecs 0.12
		{`{"level": 8, "delta_encoding_order": null, "int_mult_spec": true, "float_mult_spec": true, "max_page_n": 262144}`, false},                                   // zarrs 0.11
		{`{"delta_spec": "try_lookback"}`, false},
		{`{"delta_spec": "no_op"}`, false},
		{`{"delta_spec": "none", "delta_encoding_order": 2}`, true}, // numcodecs refuses the combination
		{`{"level": 100}`, true},
		{`{"mode_spec": "try_float_mult"}`, true},
		{`{"paging_spec": "exact"}`, true},
		{`{"level": 8, "some_future_member": 1}`, false},
	} {
		k, err := Build(Config{Name: "numcodecs.pcodec", Configuration: jsonx.RawMessage(c.cfg)}, spec)
		if err != nil {
			t.Fatalf("%s: %v", c.cfg, err)
		}
		ab := k.(ArrayToBytes)
		a, err := ab.Decode(stream, spec)
		if err != nil {
			t.Fatalf("%s: decoding: %v", c.cfg, err)
		}
		_, err = ab.Encode(a)
		if (err != nil) != c.encodeErr {
			t.Errorf("%s: encoding error %v, expected an error: %v", c.cfg, err, c.encodeErr)
		}
	}
	// A data type pco cannot hold is refused when the chain is built; a
	// chunk of another number type, or corrupt, is a CODEC error.
	b1 := &dtype.DataType{Kind: dtype.Bool, Size: 1, Endian: dtype.NoOrder, Name: "|b1"}
	if _, err := Build(Config{Name: "numcodecs.pcodec"}, Spec{Shape: []int{4}, DType: b1}); errs.CodeOf(err) != errs.Unsupported {
		t.Errorf("bool: %v", err)
	}
	k, _ := Build(Config{Name: "numcodecs.pcodec"}, spec)
	i4 := &dtype.DataType{Kind: dtype.Int, Size: 4, Endian: dtype.Little, Name: "<i4"}
	if _, err := k.(ArrayToBytes).Decode(stream, Spec{Shape: []int{5, 5}, DType: i4}); errs.CodeOf(err) != errs.Codec {
		t.Errorf("f32 stream read as i4: %v", err)
	}
	if _, err := k.(ArrayToBytes).Decode(stream[:20], spec); errs.CodeOf(err) != errs.Codec {
		t.Errorf("truncated: %v", err)
	}
	// Complex numbers are stored as two floats each, as zarrs does.
	c8 := &dtype.DataType{Kind: dtype.Complex, Size: 8, Endian: dtype.Little, Name: "<c8"}
	a, _ := nd.FromBytes(c8, []int{2}, []byte{0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64})
	kc, _ := Build(Config{Name: "numcodecs.pcodec"}, Spec{Shape: []int{2}, DType: c8})
	enc, err := kc.(ArrayToBytes).Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	back, err := kc.(ArrayToBytes).Decode(enc, Spec{Shape: []int{2}, DType: c8})
	if err != nil || string(back.Bytes()) != string(a.Bytes()) {
		t.Errorf("complex64 round trip: %v", err)
	}
}
