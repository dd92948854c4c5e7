//go:build !zarrcore

package codec

import (
	"errors"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// The pad codec's README examples (pull request 36): the 16-byte custom
// header before a chunk, and zeros after one; bad configurations are typed
// errors.
func TestPad(t *testing.T) {
	c, err := Build(Config{Name: "pad", Configuration: jsonx.RawMessage(`{"location":"start","nbytes":16,"padding":"TVlfQ1VTVE9NX0hFQURFUg=="}`)}, Spec{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.(BytesToBytes).Encode([]byte{1, 2})
	if string(b) != "MY_CUSTOM_HEADER\x01\x02" {
		t.Errorf("encoded %q", b)
	}
	if d, err := c.(BytesToBytes).Decode(b); err != nil || string(d) != "\x01\x02" {
		t.Errorf("decoded %q (%v)", d, err)
	}
	if _, err := c.(BytesToBytes).Decode([]byte("short")); errs.CodeOf(err) != errs.Codec {
		t.Errorf("short chunk: %v", err)
	}
	c, _ = Build(Config{Name: "pad", Configuration: jsonx.RawMessage(`{"location":"end","nbytes":3}`)}, Spec{})
	if b, _ := c.(BytesToBytes).Encode([]byte{9}); string(b) != "\x09\x00\x00\x00" {
		t.Errorf("end padding: %q", b)
	}
	for cfg, want := range map[string]string{
		`{"nbytes":3}`:                                   "location",
		`{"location":"middle","nbytes":3}`:               "middle",
		`{"location":"end"}`:                             "nbytes",
		`{"location":"end","nbytes":-1}`:                 "between",
		`{"location":"end","nbytes":2,"padding":"QQ=="}`: "1 bytes",
		`{"location":"end","nbytes":2,"paddng":"QQ=="}`:  "unknown member",
	} {
		_, err := Build(Config{Name: "pad", Configuration: jsonx.RawMessage(cfg)}, Spec{})
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != errs.InvalidMetadata || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want INVALID_METADATA saying %q", cfg, err, want)
		}
	}
}

// singleton_dim with its README's example (insert 0, then remove 3) and
// the operations the README says must fail.
func TestSingletonDim(t *testing.T) {
	dt := dtype.MustParseV2("<u2")
	in := Spec{Shape: []int{4, 5, 1, 6}, DType: dt}
	cfg := jsonx.RawMessage(`{"operations":[{"insert":0},{"remove":3}]}`)
	c, err := Build(Config{Name: "singleton_dim", Configuration: cfg}, in)
	if err != nil {
		t.Fatal(err)
	}
	k := c.(ArrayToArray)
	out, err := k.Encoded(in)
	if err != nil || jsonText(out.Shape) != "[1,4,5,6]" {
		t.Fatalf("encoded shape %v (%v)", out.Shape, err)
	}
	a := nd.New(dt, in.Shape)
	for i := range a.Raw() {
		a.Raw()[i] = byte(i)
	}
	e, err := k.Encode(a)
	if err != nil || jsonText(e.Shape()) != "[1,4,5,6]" {
		t.Fatalf("encode: %v %v", e, err)
	}
	d, err := k.Decode(e, in)
	if err != nil || !d.Equal(a) {
		t.Fatalf("decode: %v", err)
	}
	for spec, want := range map[string]string{
		`{"operations":[{"remove":0}]}`:            "size 4, not 1",
		`{"operations":[{"insert":5}]}`:            "cannot insert at 5",
		`{"operations":[{"remove":4}]}`:            "cannot remove dimension 4",
		`{"operations":[{"insert":0,"remove":1}]}`: "exactly one member",
		`{"operations":[{"inset":0}]}`:             "not \"insert\"",
		`{"operations":[{"insert":-1}]}`:           "unsigned integer",
		`{}`:                                       "needs \"operations\"",
	} {
		_, err := Build(Config{Name: "singleton_dim", Configuration: jsonx.RawMessage(spec)}, in)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != errs.InvalidMetadata || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want INVALID_METADATA saying %q", spec, err, want)
		}
	}
}

// conditional: bad configurations are typed errors; a header bit beyond
// the codecs is a corrupt chunk.
func TestConditionalConfigurations(t *testing.T) {
	in := Spec{Shape: []int{4}, DType: dtype.MustParseV2("<f4")}
	for cfg, want := range map[string]string{
		`{}`: `needs "codecs"`,
		`{"codecs":[{"name":"zstd"}],"header_bits":4}`:                    "multiple of 8",
		`{"codecs":[{"name":"zstd"}],"header_bitz":8}`:                    "unknown member",
		`{"codecs":[{"name":"transpose","configuration":{"order":[0]}}]}`: "not a bytes→bytes codec",
		`{"codecs":[{"name":"zstdd"}]}`:                                   "codecs[0]",
	} {
		_, err := Build(Config{Name: "conditional", Configuration: jsonx.RawMessage(cfg)}, in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", cfg, err, want)
		}
	}
	c, err := Build(Config{Name: "conditional", Configuration: jsonx.RawMessage(`{"codecs":[{"name":"zstd"}],"header_bits":16}`)}, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.(BytesToBytes).Decode([]byte{0, 1, 9}); errs.CodeOf(err) != errs.Codec {
		t.Errorf("reserved bit set: %v", err)
	}
	if b, err := c.(BytesToBytes).Decode([]byte{0, 0, 9}); err != nil || string(b) != "\x09" {
		t.Errorf("no codec applied: %q %v", b, err)
	}
}
