//go:build !zarrcore

package codec

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

type valueCase struct {
	Source  string             `json:"source"`
	DType   string             `json:"dtype"`
	Codec   NamedConfig        `json:"codec"`
	Input   []jsonx.RawMessage `json:"input"`
	Encoded []jsonx.RawMessage `json:"encoded"`
	Decoded []jsonx.RawMessage `json:"decoded"`
	Error   bool               `json:"error"`
	Fill    jsonx.RawMessage   `json:"fill"`
}

func (c *valueCase) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("source", &c.Source), jsonx.F("dtype", &c.DType), jsonx.F("codec", &c.Codec),
		jsonx.F("input", &c.Input), jsonx.F("encoded", &c.Encoded), jsonx.F("decoded", &c.Decoded), jsonx.F("error", &c.Error), jsonx.F("fill", &c.Fill)}
}

// elements builds a one-dimensional array of t from v3 fill-value JSON.
func elements(t *testing.T, dt *dtype.DataType, vals []jsonx.RawMessage) *nd.Array {
	t.Helper()
	var b []byte
	for _, v := range vals {
		f, err := dt.ParseFillV3(v)
		if err != nil {
			t.Fatalf("%s as %s: %v", v, dt, err)
		}
		b = append(b, f.Bytes...)
	}
	a, err := nd.FromBytes(dt, []int{len(vals)}, b)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func sameValues(dt *dtype.DataType, got, want []byte) bool {
	if len(got) != len(want) {
		return false
	}
	nt, _ := numTypeOf(dt)
	for i := 0; i < len(got); i += dt.Size {
		g, w := nt.load(got[i:]), nt.load(want[i:])
		if !g.equal(w) || (!g.isInt && math.Signbit(g.f) != math.Signbit(w.f)) {
			return false
		}
	}
	return true
}

// The cast_value and scale_offset values zarrs' tests and the registry's
// READMEs state (testdata/castvalue.json): each encodes to the stated
// values (or fails where the README says it must), and decodes back where
// a case states it.
func TestValueCodecsStatedValues(t *testing.T) {
	raw, err := os.ReadFile("testdata/castvalue.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []valueCase `json:"cases"`
	}
	var members map[string]jsonx.RawMessage
	if err := jsonx.Unmarshal(raw, &members); err != nil {
		t.Fatal(err)
	}
	if err := jsonx.Unmarshal(members["cases"], &file.Cases); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 25 {
		t.Fatalf("%d cases read", len(file.Cases))
	}
	for _, c := range file.Cases {
		name := c.Source + " " + string(c.Codec.Configuration)
		dt, err := dtype.ParseV3(jsonx.RawMessage(`"` + c.DType + `"`))
		if err != nil {
			t.Fatal(err)
		}
		fill := dt.ZeroFill()
		if c.Fill != nil {
			if fill, err = dt.ParseFillV3(c.Fill); err != nil {
				t.Fatal(err)
			}
		}
		in := Spec{Shape: []int{len(c.Input)}, DType: dt, Fill: fill}
		built, err := Build(Config{Name: c.Codec.Name, Configuration: c.Codec.Configuration}, in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		k := built.(ArrayToArray)
		outSpec, err := k.Encoded(in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		enc, err := k.Encode(elements(t, dt, c.Input))
		if c.Error {
			if err == nil {
				t.Errorf("%s: encoded %v, want an error", name, enc.Bytes())
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := elements(t, outSpec.DType, c.Encoded)
		if !sameValues(outSpec.DType, enc.Bytes(), want.Bytes()) {
			t.Errorf("%s: encoded %v, want %v", name, enc.Bytes(), want.Bytes())
		}
		if c.Decoded != nil {
			dec, err := k.Decode(enc, in)
			if err != nil || !sameValues(dt, dec.Bytes(), elements(t, dt, c.Decoded).Bytes()) {
				t.Errorf("%s: decoded %v (%v)", name, dec, err)
			}
		}
	}
}

// The registry's last scale_offset example: float64 with a NaN fill stored
// as uint8 through scale_offset then cast_value, NaN kept by the scalar map.
func TestScaleOffsetCastChain(t *testing.T) {
	dt, _ := dtype.ParseV3(jsonx.RawMessage(`"float64"`))
	fill, _ := dt.ParseFillV3(jsonx.RawMessage(`"NaN"`))
	cfgs := []Config{
		{Name: "scale_offset", Configuration: jsonx.RawMessage(`{"offset":-10,"scale":0.1}`)},
		{Name: "cast_value", Configuration: jsonx.RawMessage(`{"data_type":"uint8","rounding":"nearest-even","scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}`)},
		{Name: "bytes"},
	}
	chain, err := NewChain(cfgs, Spec{Shape: []int{4}, DType: dt, Fill: fill})
	if err != nil {
		t.Fatal(err)
	}
	a := elements(t, dt, []jsonx.RawMessage{jsonx.RawMessage(`0`), jsonx.RawMessage(`2540`), jsonx.RawMessage(`"NaN"`), jsonx.RawMessage(`1000`)})
	b, err := chain.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string([]byte{1, 255, 0, 101}) {
		t.Fatalf("stored %v, want [1 255 0 101]", b)
	}
	back, err := chain.Decode(b)
	if err != nil || !sameValues(dt, back.Bytes(), a.Bytes()) {
		t.Fatalf("decoded %v (%v)", back, err)
	}
}

// Bad configurations are typed errors naming the member, with the near name.
func TestValueCodecsBadConfigurations(t *testing.T) {
	f32, _ := dtype.ParseV3(jsonx.RawMessage(`"float32"`))
	str, _ := dtype.ParseV3(jsonx.RawMessage(`"string"`))
	in := Spec{Shape: []int{2}, DType: f32, Fill: f32.ZeroFill()}
	bad := []struct {
		name, cfg, want string
		in              Spec
	}{
		{"cast_value", `{}`, `needs "data_type"`, in},
		{"cast_value", `{"data_type":"uint8","rounding":"nearest-evn"}`, `"nearest-even"`, in},
		{"cast_value", `{"data_type":"uint8","out_of_range":"clmp"}`, `"clamp"`, in},
		{"cast_value", `{"data_type":"float16","out_of_range":"wrap"}`, "needs an integer", in},
		{"cast_value", `{"data_type":"uint8","rounding":"nearest-even","scalr_map":{}}`, "unknown member", in},
		{"cast_value", `{"data_type":"string"}`, "integer and float", in},
		{"cast_value", `{"data_type":"uint8"}`, "integer and float arrays", Spec{Shape: []int{2}, DType: str}},
		{"cast_value", `{"data_type":"uint8","scalar_map":{"encode":[[1]]}}`, "pair", in},
		{"cast_value", `{"data_type":"uint8","scalar_map":{"encode":[["x",1]]}}`, "scalar_map.encode[0][0]", in},
		{"scale_offset", `{"scale":1,"ofset":2}`, "unknown member", in},
		{"scale_offset", `{"scale":"x"}`, "scale", in},
	}
	for _, c := range bad {
		_, err := Build(Config{Name: c.name, Configuration: jsonx.RawMessage(c.cfg)}, c.in)
		var e *errs.Error
		if err == nil || !errors.As(err, &e) || e.Code != errs.InvalidMetadata || !strings.Contains(err.Error()+" "+e.Suggest, strings.Trim(c.want, `"`)) {
			t.Errorf("%s %s: %v, want INVALID_METADATA saying %s", c.name, c.cfg, err, c.want)
		}
	}
	// A fill value the cast cannot carry both ways is refused.
	nan, _ := f32.ParseFillV3(jsonx.RawMessage(`"NaN"`))
	_, err := Build(Config{Name: "cast_value", Configuration: jsonx.RawMessage(`{"data_type":"uint8"}`)}, Spec{Shape: []int{2}, DType: f32, Fill: nan})
	if err == nil || !strings.Contains(err.Error(), "fill value") {
		t.Errorf("NaN fill cast to uint8: %v", err)
	}
}
