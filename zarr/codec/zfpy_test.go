package codec

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// TestZfpPromotedTypes: zarrs codes 8/16-bit and unsigned integers through
// zfp's int32/int64; reversible mode gives them back exactly, through both
// codec names.
func TestZfpPromotedTypes(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, name := range []string{"int8", "uint8", "int16", "uint16", "uint32", "uint64", "int32", "int64", "float32", "float64"} {
		dt, err := dtype.ParseV3(jsonx.RawMessage(`"` + name + `"`))
		if err != nil {
			t.Fatal(err)
		}
		shape := []int{6, 7}
		data := make([]byte, nd.Size(shape)*dt.Size)
		rng.Read(data)
		if name == "uint32" || name == "uint64" { // zfp clamps them to the signed range
			for i := dt.Size - 1; i < len(data); i += dt.Size {
				data[i] &= 0x7f
			}
		}
		in, err := nd.FromBytes(dt, shape, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []Config{
			{Name: "zfp", Configuration: jsonx.RawMessage(`{"mode": "reversible"}`)},
			{Name: "numcodecs.zfpy", Configuration: jsonx.RawMessage(`{"mode": 5}`)},
		} {
			chain, err := NewChain([]Config{cfg}, Spec{Shape: shape, DType: dt})
			if err != nil {
				t.Fatalf("%s %s: %v", cfg.Name, name, err)
			}
			enc, err := chain.Encode(in)
			if err != nil {
				t.Fatalf("%s %s: %v", cfg.Name, name, err)
			}
			out, err := chain.Decode(enc)
			if err != nil || !bytes.Equal(out.Bytes(), data) {
				t.Errorf("%s %s: reversible round trip changed the values (%v)", cfg.Name, name, err)
			}
		}
	}
}

// TestZfpConfigs: zarrs' zfp configurations, and the settings refused.
func TestZfpConfigs(t *testing.T) {
	f4, _ := dtype.ParseV3(jsonx.RawMessage(`"float32"`))
	i4, _ := dtype.ParseV3(jsonx.RawMessage(`"int32"`))
	b, _ := dtype.ParseV3(jsonx.RawMessage(`"bool"`))
	be, _ := dtype.ParseTypestr(">f8")
	shape := []int{5, 9}
	in := nd.New(f4, shape)
	for _, cfg := range []string{
		`{"mode": "fixed_rate", "rate": 10.5}`,
		`{"mode": "fixed_precision", "precision": 19}`,
		`{"mode": "fixed_accuracy", "tolerance": 0.05}`,
		`{"mode": "reversible"}`,
		`{"mode": "expert", "minbits": 1, "maxbits": 13, "maxprec": 19, "minexp": -2}`,
	} {
		chain, err := NewChain([]Config{{Name: "zfp", Configuration: jsonx.RawMessage(cfg)}}, Spec{Shape: shape, DType: f4})
		if err != nil {
			t.Fatalf("%s: %v", cfg, err)
		}
		enc, err := chain.Encode(in)
		if err != nil {
			t.Fatalf("%s: %v", cfg, err)
		}
		if len(enc)%8 != 0 || bytes.HasPrefix(enc, []byte("zfp")) {
			t.Errorf("%s: zarrs' zfp streams are headerless and end on a 64-bit word", cfg)
		}
		if _, err := chain.Decode(enc); err != nil {
			t.Errorf("%s: %v", cfg, err)
		}
	}
	for _, tc := range []struct {
		name, cfg string
		dt        *dtype.DataType
		shape     []int
		code      errs.Code
	}{
		{"zfp", `{"mode": "fixed"}`, f4, shape, errs.InvalidMetadata},
		{"zfp", `{"mode": "fixed_rate"}`, f4, shape, errs.InvalidMetadata},
		{"zfp", `{"mode": "expert", "minbits": 20, "maxbits": 13, "maxprec": 19, "minexp": -2}`, f4, shape, errs.InvalidMetadata},
		{"zfp", `{"mode": "fixed_accuracy", "tolerance": 1}`, i4, shape, errs.Unsupported},
		{"zfp", `{"mode": "reversible"}`, f4, []int{2, 2, 2, 2, 2}, errs.Unsupported},
		{"numcodecs.zfpy", `{"mode": 4, "tolerance": 0.1}`, b, shape, errs.Unsupported},
		{"numcodecs.zfpy", `{"mode": 4, "tolerance": 0.1}`, be, shape, errs.Unsupported},
		{"numcodecs.zfpy", `{"mode": "4"}`, f4, shape, errs.InvalidMetadata},
	} {
		_, err := NewChain([]Config{{Name: tc.name, Configuration: jsonx.RawMessage(tc.cfg)}}, Spec{Shape: tc.shape, DType: tc.dt})
		if errs.CodeOf(err) != tc.code {
			t.Errorf("%s %s on %s %v: got %v, want %s", tc.name, tc.cfg, tc.dt, tc.shape, err, tc.code)
		}
	}
	// numcodecs decodes any mode (the header says how); only encoding
	// needs one of the modes zfpy has.
	chain, err := NewChain([]Config{{Name: "numcodecs.zfpy", Configuration: jsonx.RawMessage(`{"mode": 1}`)}}, Spec{Shape: shape, DType: f4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chain.Encode(in); errs.CodeOf(err) != errs.Unsupported {
		t.Errorf("encoding in zfpy mode 1: got %v, want UNSUPPORTED", err)
	}
}
