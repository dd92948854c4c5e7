package zarr_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// The compatibility corpus (tests/compat, written by tests/compat/gen.py from
// numcodecs' codec vectors and zarrs' test data, with the values their
// authors state): every array is read whole and compared. An array that
// reads with other values fails the test; one that is refused must be listed
// in tests/compat/refused.txt with its error code, and a listed array that
// now reads must leave the list.

type compatCase struct {
	Source string         `json:"source"`
	Store  string         `json:"store"`
	Path   string         `json:"path"`
	DType  string         `json:"dtype"`
	Shape  []int          `json:"shape"`
	Expect map[string]any `json:"expect"`
}

func compatDir() string { return filepath.Join(peers.RepoRoot(), "tests", "compat") }

// loadCompatCases reads cases.json (gen.py) and cases-extra.json
// (gen_extra.py).
func loadCompatCases(t *testing.T) []compatCase {
	var all []compatCase
	for _, name := range []string{"cases.json", "cases-extra.json"} {
		raw, err := os.ReadFile(filepath.Join(compatDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		var cases []compatCase
		if err := jsonx.UnmarshalStrict(raw, &cases); err != nil {
			t.Fatal(err)
		}
		all = append(all, cases...)
	}
	return all
}

// loadRefused reads refused.txt: "source store/path CODE reason".
func loadRefused(t *testing.T) map[string]string {
	f, err := os.Open(filepath.Join(compatDir(), "refused.txt"))
	if err != nil {
		if os.IsNotExist(err) {
			return map[string]string{}
		}
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 {
			t.Fatalf("refused.txt: bad line %q", line)
		}
		out[fields[0]] = fields[1]
	}
	return out
}

func (c compatCase) key() string { return c.Store + "/" + c.Path }

func expectedFile(t *testing.T, name any) []byte {
	b, err := os.ReadFile(filepath.Join(compatDir(), "data", "expected", name.(string)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// floats returns the elements of little-endian data of t as float64 (ints,
// uints, floats of every format; complex as re, im), or false.
func floats(t *dtype.DataType, b []byte) ([]float64, bool) {
	switch t.Kind {
	case dtype.Complex:
		t = t.ComplexPart()
	case dtype.Int, dtype.Uint, dtype.Float, dtype.Datetime, dtype.Timedelta:
	default:
		return nil, false
	}
	if t.Size == 0 || len(b)%t.Size != 0 {
		return nil, false
	}
	var out []float64
	for i := 0; i+t.Size <= len(b); i += t.Size {
		out = append(out, t.LoadFloat64(b[i:i+t.Size]))
	}
	return out, true
}

// checkCompat reads one case and returns "" when the values are right, the
// difference otherwise; err when the array is refused.
func checkCompat(t *testing.T, ctx context.Context, c compatCase) (string, error) {
	diff, _, err := readCompat(t, ctx, c)
	return diff, err
}

// readCompat is checkCompat that also returns what it read.
func readCompat(t *testing.T, ctx context.Context, c compatCase) (string, *zarr.NDArray, error) {
	s, err := zarr.NewDirectoryStore(filepath.Join(compatDir(), "data", c.Store))
	if err != nil {
		return "", nil, err
	}
	arr, err := zarr.OpenArray(ctx, s, c.Path)
	if err != nil {
		return "", nil, err
	}
	got, err := arr.Read(ctx, nil)
	if err != nil {
		return "", nil, err
	}
	if fmt.Sprint(got.Shape()) != fmt.Sprint(c.Shape) {
		return fmt.Sprintf("shape %v, want %v", got.Shape(), c.Shape), got, nil
	}
	e := c.Expect
	if why, ok := e["unchecked"]; ok {
		return "unchecked: " + why.(string), got, nil
	}
	if m, ok := e["mask"]; ok && got.DType().Variable() {
		// optional of a variable-size type: nil exactly where the mask is 0
		mask := expectedFile(t, m)
		have, _ := got.Objects()
		if len(have) != len(mask) {
			return fmt.Sprintf("%d values, mask of %d", len(have), len(mask)), got, nil
		}
		for i, present := range mask {
			if (have[i] != nil) != (present == 1) {
				return fmt.Sprintf("value %d is %#v, the mask says present=%v", i, have[i], present == 1), got, nil
			}
		}
	} else if ok {
		// optional: the mask beside the values, values compared where present
		mask := expectedFile(t, m)
		gm, err1 := got.Field("mask")
		gd, err2 := got.Field("data")
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("no mask and data fields: %v %v", err1, err2), got, nil
		}
		if string(gm.Bytes()) != string(mask) {
			return fmt.Sprintf("mask %v, want %v", gm.Bytes(), mask), got, nil
		}
		want := expectedFile(t, e["raw"])
		size := gd.DType().Size
		if len(want) != len(mask)*size || len(gd.Bytes()) != len(want) {
			return fmt.Sprintf("%d bytes of values, want %d", len(gd.Bytes()), len(want)), got, nil
		}
		for i, present := range mask {
			if present == 1 && string(gd.Bytes()[i*size:(i+1)*size]) != string(want[i*size:(i+1)*size]) {
				return fmt.Sprintf("value %d differs", i), got, nil
			}
		}
		return "", got, nil
	}
	if v, ok := e["values"]; ok {
		var want []map[string]any
		if err := jsonx.UnmarshalStrict(expectedFile(t, v), &want); err != nil {
			t.Fatal(err)
		}
		var have []any
		if got.DType().Variable() {
			have, _ = got.Objects()
		} else {
			strs, err := got.Strings()
			if err != nil {
				return fmt.Sprintf("values: %v", err), got, nil
			}
			for _, s := range strs {
				have = append(have, s)
			}
		}
		if len(have) != len(want) {
			return fmt.Sprintf("%d values, want %d", len(have), len(want)), got, nil
		}
		for i, w := range want {
			if !sameTagged(have[i], w) {
				return fmt.Sprintf("value %d = %#v, want %v", i, have[i], w), got, nil
			}
		}
		return "", got, nil
	}
	want := expectedFile(t, e["raw"])
	if d, ok := e["decimal"]; ok {
		w, _ := floats(dtype.MustParseV2("<f8"), want)
		h, ok := floats(got.DType(), got.Bytes())
		if !ok || len(h) != len(w) {
			return "values are not numbers", got, nil
		}
		tol := 1.5 * math.Pow(10, -d.(float64))
		for i := range w {
			if !(math.Abs(h[i]-w[i]) < tol) {
				return fmt.Sprintf("value %d = %v, want %v to %v decimals", i, h[i], w[i], d), got, nil
			}
		}
		return "", got, nil
	}
	for _, k := range []string{"atol", "rtol", "relerr"} {
		tv, ok := e[k]
		if !ok {
			continue
		}
		tol := tv.(float64)
		w, okw := floats(got.DType(), want)
		h, okh := floats(got.DType(), got.Bytes())
		if !okw || !okh {
			return "unchecked: lossy codec on a type compared only as numbers", got, nil
		}
		if len(w) != len(h) {
			return fmt.Sprintf("%d values, want %d", len(h), len(w)), got, nil
		}
		if k == "rtol" {
			big := 0.0
			for _, x := range w {
				if !math.IsInf(x, 0) && !math.IsNaN(x) {
					big = max(big, math.Abs(x))
				}
			}
			tol *= big
		}
		for i := range w {
			lim := tol
			if k == "relerr" {
				lim = tol * math.Abs(w[i])
			}
			same := h[i] == w[i] || (math.IsNaN(h[i]) && math.IsNaN(w[i]))
			if !same && !(math.Abs(h[i]-w[i]) <= lim) {
				return fmt.Sprintf("value %d = %v, want %v within %s %v", i, h[i], w[i], k, tv), got, nil
			}
		}
		return "", got, nil
	}
	if string(got.Bytes()) != string(want) {
		at := 0
		for at < min(len(want), len(got.Bytes())) && want[at] == got.Bytes()[at] {
			at++
		}
		return fmt.Sprintf("bytes differ from byte %d of %d (got %d bytes)", at, len(want), len(got.Bytes())), got, nil
	}
	return "", got, nil
}

func TestCompatCorpus(t *testing.T) {
	ctx := context.Background()
	cases := loadCompatCases(t)
	refused := loadRefused(t)
	type tally struct{ total, read, unchecked, refused int }
	by := map[string]*tally{}
	var reasons = map[string]int{}
	var newRefusals, nowRead, all []string
	for _, c := range cases {
		tl := by[c.Source]
		if tl == nil {
			tl = &tally{}
			by[c.Source] = tl
		}
		tl.total++
		diff, err := checkCompat(t, ctx, c)
		listed, isListed := refused[c.key()]
		switch {
		case err != nil:
			tl.refused++
			code := string(errs.CodeOf(err))
			reasons[c.Source+": "+firstWords(err)]++
			line := fmt.Sprintf("%s %s %s", c.key(), code, firstWords(err))
			all = append(all, line)
			if !isListed || listed != code {
				newRefusals = append(newRefusals, line)
			}
		case strings.HasPrefix(diff, "unchecked: "):
			tl.unchecked++
			tl.read++
			if isListed {
				nowRead = append(nowRead, c.key())
			}
		case diff != "":
			t.Errorf("%s (%s): read wrong values: %s", c.key(), c.Source, diff)
		default:
			tl.read++
			if isListed {
				nowRead = append(nowRead, c.key())
			}
		}
	}
	sum := tally{}
	var sources []string
	for s, tl := range by {
		sources = append(sources, s)
		sum.total += tl.total
		sum.read += tl.read
		sum.unchecked += tl.unchecked
		sum.refused += tl.refused
	}
	sort.Strings(sources)
	for _, s := range sources {
		tl := by[s]
		t.Logf("%-10s %4d of %4d arrays read (%d without a value check), %d refused", s, tl.read, tl.total, tl.unchecked, tl.refused)
	}
	t.Logf("all        %4d of %4d arrays read, %d refused", sum.read, sum.total, sum.refused)
	var rs []string
	for r, n := range reasons {
		rs = append(rs, fmt.Sprintf("%4d  %s", n, r))
	}
	sort.Strings(rs)
	t.Logf("refusals:\n%s", strings.Join(rs, "\n"))
	if out := os.Getenv("ZARR_COMPAT_REFUSED"); out != "" {
		// regenerate the list: ZARR_COMPAT_REFUSED=path go test -run TestCompatCorpus
		_ = os.WriteFile(out, []byte(strings.Join(all, "\n")+"\n"), 0o644)
	}
	for _, r := range newRefusals {
		t.Errorf("refused, and not in tests/compat/refused.txt with that code: %s", r)
	}
	for _, k := range nowRead {
		t.Errorf("%s reads now: remove it from tests/compat/refused.txt", k)
	}
}

// firstWords is an error's message without the per-array location, to
// group refusals by reason.
func firstWords(err error) string {
	msg := err.Error()
	var e *errs.Error
	if errors.As(err, &e) {
		msg = string(e.Code) + ": " + e.Msg
		if e.Err != nil {
			msg += ": " + e.Err.Error()
		}
	}
	msg = strings.ReplaceAll(msg, "\n", " ")
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return msg
}

// sameTagged compares a decoded value with a tagged expectation
// (tests/codecs/tagged.py). A missing string (nil) equals "": zarr-python 3
// reads an unwritten string as "", zarr-python 2 as None.
func sameTagged(h any, w map[string]any) bool {
	v := w["v"]
	switch w["t"] {
	case "none":
		return h == nil || h == ""
	case "str":
		s, ok := h.(string)
		return (ok && s == v.(string)) || (h == nil && v.(string) == "")
	case "bool":
		b, ok := h.(bool)
		return ok && b == v.(bool)
	case "bytes":
		want, _ := base64.StdEncoding.DecodeString(v.(string))
		b, ok := h.([]byte)
		return ok && string(b) == string(want)
	case "int", "float":
		want, err := strconv.ParseFloat(v.(string), 64)
		if err != nil {
			return false
		}
		f, ok := number(h)
		if w["t"] == "int" && ok {
			if i, err := strconv.ParseInt(v.(string), 10, 64); err == nil {
				if n, isInt := h.(int64); isInt {
					return n == i
				}
			}
		}
		return ok && (f == want || (math.IsNaN(f) && math.IsNaN(want)))
	case "list":
		items := v.([]any)
		l, ok := h.([]any)
		if !ok || len(l) != len(items) {
			return false
		}
		for i, x := range items {
			if !sameTagged(l[i], x.(map[string]any)) {
				return false
			}
		}
		return true
	case "dict":
		pairs := v.([]any)
		m, ok := h.(map[string]any)
		if !ok || len(m) != len(pairs) {
			return false
		}
		for _, p := range pairs {
			kv := p.([]any)
			if !sameTagged(m[kv[0].(string)], kv[1].(map[string]any)) {
				return false
			}
		}
		return true
	}
	return false
}

// number converts a decoded numeric value to float64.
func number(h any) (float64, bool) {
	switch x := h.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint32:
		return float64(x), true
	case int16:
		return float64(x), true
	case uint16:
		return float64(x), true
	case int8:
		return float64(x), true
	case uint8:
		return float64(x), true
	case jsonx.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
