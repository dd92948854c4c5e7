package clitext

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

var fixtures = filepath.Join("..", "..", "tests", "fixtures")

// TestCatPrintsFixtureValues reads back what Cat prints for the v2 and v3
// fixture cases (numbers, booleans, complex numbers, datetimes, strings)
// and compares it with the values zarr-python wrote (cases.json).
func TestCatPrintsFixtureValues(t *testing.T) {
	ctx := context.Background()
	token := regexp.MustCompile(`"(?:[^"\\]|\\.)*"|[^\s\[\]]+`)
	checked := 0
	for _, set := range []string{"v2", "v3"} {
		cases, err := conformance.Load(filepath.Join(fixtures, set, "cases.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			var typestr string
			if jsonx.UnmarshalStrict(c.DType, &typestr) != nil || (c.Bytes == nil && c.Strings == nil) {
				continue
			}
			check := elementCheck(typestr)
			if check == nil && c.Strings == nil {
				continue
			}
			s, err := zarr.NewDirectoryStore(filepath.Join(fixtures, set, "data", c.Store))
			if err != nil {
				t.Fatal(err)
			}
			a, err := zarr.OpenArray(ctx, s, c.Path)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			text, err := Cat(ctx, a, c.Selection, true)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			head, body, _ := strings.Cut(text, "\n")
			if want := "shape " + tuple(c.Shape) + "  dtype "; !strings.HasPrefix(head, want) {
				t.Errorf("%s: %q, want it to start %q", c.Name, head, want)
			}
			tokens := token.FindAllString(body, -1)
			n := 1
			for _, d := range c.Shape {
				n *= d
			}
			if len(tokens) != n {
				t.Errorf("%s: %d values printed, want %d", c.Name, len(tokens), n)
				continue
			}
			checked++
			if c.Strings != nil {
				for i, tok := range tokens {
					got, err := strconv.Unquote(tok)
					if err != nil || got != c.Strings[i] {
						t.Errorf("%s: element %d printed %s, zarr-python wrote %q", c.Name, i, tok, c.Strings[i])
						break
					}
				}
				continue
			}
			raw, _ := base64.StdEncoding.DecodeString(*c.Bytes)
			if n == 0 {
				continue
			}
			size := len(raw) / n
			for i, tok := range tokens {
				if !check(tok, raw[i*size:(i+1)*size]) {
					t.Errorf("%s: element %d printed %s, zarr-python wrote % x", c.Name, i, tok, raw[i*size:(i+1)*size])
					break
				}
			}
		}
	}
	if checked < 300 {
		t.Errorf("only %d cases checked", checked)
	}
}

// elementCheck says whether a printed element is the little-endian value
// of a data type (a v2 typestr or a v3 name), or is nil for other types.
func elementCheck(typestr string) func(tok string, b []byte) bool {
	names := map[string]string{"bool": "b1", "int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8", "uint8": "u1", "uint16": "u2",
		"uint32": "u4", "uint64": "u8", "float32": "f4", "float64": "f8", "complex64": "c8", "complex128": "c16"}
	if n, ok := names[typestr]; ok {
		typestr = n
	}
	m := regexp.MustCompile(`^[<>|]?([biufcMm])(\d+)(\[\w+\])?$`).FindStringSubmatch(typestr)
	if m == nil {
		return nil
	}
	kind, size := m[1][0], m[2]
	switch kind {
	case 'b':
		return func(tok string, b []byte) bool {
			return tok == map[bool]string{true: "True", false: "False"}[b[0] != 0]
		}
	case 'i', 'M', 'm':
		return func(tok string, b []byte) bool {
			v, err := strconv.ParseInt(tok, 10, 64)
			var u uint64
			for k := len(b) - 1; k >= 0; k-- {
				u = u<<8 | uint64(b[k])
			}
			shift := 64 - 8*len(b)
			return err == nil && v == int64(u<<shift)>>shift
		}
	case 'u':
		return func(tok string, b []byte) bool {
			v, err := strconv.ParseUint(tok, 10, 64)
			var u uint64
			for k := len(b) - 1; k >= 0; k-- {
				u = u<<8 | uint64(b[k])
			}
			return err == nil && v == u
		}
	case 'f':
		switch size {
		case "4":
			return func(tok string, b []byte) bool {
				return sameFloat(tok, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 32)
			}
		case "8":
			return func(tok string, b []byte) bool {
				return sameFloat(tok, math.Float64frombits(binary.LittleEndian.Uint64(b)), 64)
			}
		}
	case 'c':
		part := regexp.MustCompile(`^(-?(?:[^+-]|[eE][+-])+)([+-])((?:[^+-]|[eE][+-])+)j$`)
		return func(tok string, b []byte) bool {
			m := part.FindStringSubmatch(tok)
			if m == nil {
				return false
			}
			half, bits := len(b)/2, 64
			get := func(e []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(e)) }
			if half == 4 {
				bits = 32
				get = func(e []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(e))) }
			}
			im := get(b[half:])
			if m[2] == "-" {
				im = -im
			}
			return sameFloat(m[1], get(b[:half]), bits) && sameFloat(m[3], im, bits)
		}
	}
	return nil
}

// sameFloat says whether tok (NumPy's nan, inf, -inf, -0.0, or a number)
// reads back as x at the given precision.
func sameFloat(tok string, x float64, bits int) bool {
	switch tok {
	case "nan":
		return math.IsNaN(x)
	case "inf":
		return math.IsInf(x, 1)
	case "-inf":
		return math.IsInf(x, -1)
	}
	v, err := strconv.ParseFloat(tok, bits)
	return err == nil && v == x && math.Signbit(v) == math.Signbit(x)
}

// The float texts NumPy gives (repr of numpy.float32 / float64 scalars),
// where they agree with the JSON number forms Cat writes.
func TestFloatText(t *testing.T) {
	for _, c := range []struct {
		x    float64
		bits int
		want string
	}{
		{float64(float32(-4.30078125)), 32, "-4.3007812"}, // a tie: NumPy's shortest digits round to even
		{float64(float32(0.1)), 32, "0.1"},
		{float64(float32(-3.51953125)), 32, "-3.5195312"},
		{float64(float32(3.4028235e38)), 32, "3.4028235e+38"},
		{0.30000000000000004, 64, "0.30000000000000004"},
		{math.NaN(), 64, "nan"}, {math.Inf(-1), 32, "-inf"}, {math.Copysign(0, -1), 64, "-0.0"},
		{1e21, 64, "1e+21"}, {5e-324, 64, "5e-324"},
	} {
		if got := floatText(c.x, c.bits); got != c.want {
			t.Errorf("floatText(%v, %d) = %q, want %q", c.x, c.bits, got, c.want)
		}
	}
}

// TestTree: the lines of a consolidated v2 hierarchy, as written by hand
// from what zarr-python stored (tests/fixtures/v2/gen.py).
func TestTree(t *testing.T) {
	ctx := context.Background()
	s, err := zarr.NewDirectoryStore(filepath.Join(fixtures, "v2", "data", "consolidated.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := zarr.Open(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(Tree(ctx, n, "consolidated.zarr"), "\n")
	for _, want := range []string{
		`consolidated.zarr/  group v2 (consolidated)  attrs {"description":"consolidated store","nan":"NaN"}`,
		"│   │   └── y  array v2  shape (4, 5)  dtype int16 (>i2)  chunks (2, 2)  codecs bytes(endian=big), numcodecs.zlib(level=1)",
		`│   └── x  array v2  shape (8,)  dtype float64 (<f8)  chunks (3,)  codecs bytes(endian=little), numcodecs.zlib(level=1)  attrs {"units":"K"}`,
		"└── z  array v2  shape (6,)  dtype v2:U3 (<U3)  chunks (4,)  codecs bytes(endian=little), numcodecs.zlib(level=1)",
	} {
		found := false
		for _, l := range lines {
			found = found || l == want
		}
		if !found {
			t.Errorf("no line\n%s\nin\n%s", want, strings.Join(lines, "\n"))
		}
	}
}
