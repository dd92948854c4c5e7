package codec

import (
	"errors"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The reshape codec's configuration rules (zarr-extensions codecs/reshape):
// each bad configuration is a typed error that says what is wrong.
func TestReshapeConfigurations(t *testing.T) {
	in := Spec{Shape: []int{4, 6, 3}, DType: dtype.MustParseV2("<u2")}
	good := map[string][]int{
		`{"shape":[-1]}`:         {72},
		`{"shape":[[0,1],3]}`:    {24, 3},
		`{"shape":[[0],[1,2]]}`:  {4, 18},
		`{"shape":[4,-1,[2]]}`:   {4, 6, 3},
		`{"shape":[[0,1,2]]}`:    {72},
		`{"shape":[2,2,18]}`:     {2, 2, 18},
		`{"shape":[[],[0,1,2]]}`: {1, 72},
	}
	for cfg, want := range good {
		c, err := Build(Config{Name: "reshape", Configuration: jsonx.RawMessage(cfg)}, in)
		if err != nil {
			t.Errorf("%s: %v", cfg, err)
			continue
		}
		out, err := c.(ArrayToArray).Encoded(in)
		if err != nil || jsonText(out.Shape) != jsonText(want) {
			t.Errorf("%s: shape %v (%v), want %v", cfg, out.Shape, err, want)
		}
	}
	bad := map[string]string{
		`{"shape":[-1,-1]}`:         "more than once",
		`{"shape":[5,-1]}`:          "cannot hold",
		`{"shape":[10]}`:            "has 10 elements",
		`{"shape":[[1],[0]]}`:       "must increase",
		`{"shape":[[0,2],6]}`:       "do not match",
		`{"shape":[0]}`:             "positive",
		`{"shape":["x"]}`:           "a size, -1 or a list",
		`{"shape":[[7]]}`:           "input dimension 7",
		`{}`:                        "needs \"shape\"",
		`{"shape":[-1],"shap":[1]}`: "unknown member",
	}
	for cfg, want := range bad {
		_, err := Build(Config{Name: "reshape", Configuration: jsonx.RawMessage(cfg)}, in)
		var e *errs.Error
		if err == nil || !errors.As(err, &e) || e.Code != errs.InvalidMetadata || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want INVALID_METADATA saying %q", cfg, err, want)
		}
	}
	_, err := Build(Config{Name: "reshape", Configuration: jsonx.RawMessage(`{"shape":[-1],"shap":[1]}`)}, in)
	if !strings.Contains(err.Error(), `"shape"`) {
		t.Errorf("unknown member: %v does not suggest \"shape\"", err)
	}
	_, err = Build(Config{Name: "zarrs.squeeze", Configuration: jsonx.RawMessage(`{"axis":[0]}`)}, in)
	if errs.CodeOf(err) != errs.InvalidMetadata || !strings.Contains(err.Error(), "axis") {
		t.Errorf("squeeze with a configuration member: %v", err)
	}
}

func jsonText(v []int) string {
	b, _ := jsonx.MarshalStrict(v)
	return string(b)
}
