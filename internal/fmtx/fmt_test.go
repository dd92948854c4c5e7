package fmtx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

type testErr struct{ s string }

func (e *testErr) Error() string { return e.s }

type testStringer int

func (s testStringer) String() string { return fmt.Sprintf("S<%d>", int(s)) }

func init() {
	NameType(func(v any) string {
		if _, ok := v.(json.Number); ok {
			return "json.Number"
		}
		return ""
	})
}

// values of each kind the table names.
var kindValues = map[string][]any{
	kInt:      {'a', 'é', 0x10FFFF + 1, '`', '\'', 0, 5, -42, 7, 123456, int8(-128), int8(3), int16(300), int32(-7), int64(math.MinInt64), int64(math.MaxInt64), int64(-1)},
	kUint:     {uint(0), uint(9), uint8(255), uint8(10), byte('"'), byte('\\'), uint16(65535), uint32(0xdeadbeef), uint32(1), uint64(math.MaxUint64), uintptr(12)},
	kFloat:    {0.0, math.Copysign(0, -1), 1.5, -2.25, 1e21, 1e20, 123456789.0, 1e-5, 0.1, 3.0, 100.0, 1.0 / 3, -1e-300, math.Inf(1), math.Inf(-1), math.NaN(), float32(0.1), float32(1e10), float32(-3.5), float64(1 << 53), 2.5e-7},
	kBool:     {true, false},
	kString:   {"", "abc", "héllo", "tab\there", "quote\"s", "\x00\xff\x7f", "日本語", "back`tick", "a\nb", "\u2028", strings.Repeat("x", 20)},
	kBytes:    {[]byte{}, []byte("abc"), []byte{0, 255, 16}, []byte("héllo"), []byte(nil)},
	kError:    {errors.New("boom"), &testErr{"custom \"err\""}, fmt.Errorf("wrapped: %w", io.EOF), &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}},
	kStringer: {testStringer(3), time.Duration(1500) * time.Millisecond, json.Number("12.5"), json.Number("-7")},
	kIntSlice: {[]int{}, []int{1, -2, 3}, []int(nil), []int64{math.MinInt64, 0, 9}, []uint64{math.MaxUint64, 1}},
	kStrSlice: {[]string{}, []string{"a", "b c", "d\"e"}, []string(nil)},
	kAny: {nil, 1.5, 1e21, "s", "q\"uote", true, json.Number("12"),
		[]any{1.0, "x", nil, json.Number("3"), map[string]any{"k": "v"}},
		map[string]any{"b": 1.0, "a": []any{"x", 2.5}, "c": nil, "d": json.Number("4")},
		[]any{}, map[string]any{}, []any{[]any{1.0, 2.0}, []any{}}},
	kNil: {nil},
}

var verbs = []rune{'v', 'd', 's', 'q', 'x', 'X', 'o', 'b', 't', 'f', 'F', 'e', 'E', 'g', 'G', 'T', 'c', 'U', 'p', 'w'}

var flagSets = []string{"", "0", "-", "+", " ", "#", "0-", "+0", " 0", "+ ", "#0", "-+"}
var widths = []string{"", "1", "5", "12", "*", "*neg"}
var precs = []string{"", ".", ".0", ".2", ".10", ".*"}

// TestMatchesFmt compares Sprintf with fmt.Sprintf for every supported
// kind × verb × flags × width × precision, and Errorf's text with
// fmt.Errorf's.
func TestMatchesFmt(t *testing.T) {
	n := 0
	for k, vals := range kindValues {
		for _, verb := range verbs {
			for _, fl := range flagSets {
				for _, w := range widths {
					for _, pr := range precs {
						format := "%" + fl
						var star []any
						switch w {
						case "*":
							format += "*"
							star = append(star, 7)
						case "*neg":
							format += "*"
							star = append(star, -7)
						default:
							format += w
						}
						if pr == ".*" {
							format += ".*"
							star = append(star, 3)
						} else {
							format += pr
						}
						format += string(verb)
						ds, ok := parseFormat(format)
						if !ok || len(ds) != 1 {
							t.Fatalf("parseFormat(%q) = %v, %v", format, ds, ok)
						}
						for _, errorf := range []bool{false, true} {
							if !supported(k, ds[0], errorf) {
								continue
							}
							for _, v := range vals {
								args := append(append([]any{}, star...), v)
								full := "<" + format + ">"
								var want, got string
								if errorf {
									want = fmt.Errorf(full, args...).Error()
									got = Errorf(full, args...).Error()
								} else {
									want = fmt.Sprintf(full, args...)
									got = Sprintf(full, args...)
								}
								n++
								if got != want {
									t.Errorf("%s %q (errorf %v) with %T %#v: got %q, fmt %q", k, format, errorf, v, v, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
	if n < 10000 {
		t.Fatalf("only %d combinations compared", n)
	}
	t.Logf("%d combinations compared with fmt", n)
}

// TestEdgeCases: missing and extra operands, bad widths, a trailing '%',
// bad verbs on basic types, literal %%.
func TestEdgeCases(t *testing.T) {
	cases := []struct {
		format string
		args   []any
	}{
		{"%d %s", []any{1}},
		{"%d", []any{1, "x", 2.5, nil}},
		{"abc%", nil},
		{"100%% sure %d%%", []any{5}},
		{"%5%", nil},
		{"%*d", []any{"x", 5}},
		{"%.*d", []any{"x", 5}},
		{"%.*d", []any{-2, 5}},
		{"%*d", []any{10000000, 5}},
		{"%d", []any{"str"}},
		{"%s", []any{42}},
		{"%s", []any{true}},
		{"%t", []any{1.5}},
		{"%t", []any{uint8(7)}},
		{"%s", []any{nil}},
		{"%d", []any{nil}},
		{"%v", []any{nil}},
		{"", []any{1}},
		{"no verbs", nil},
		{"%v|%v|%v", []any{"a", 1, 2.0}},
		{"%q: %s (did you mean %q?)", []any{"k", "msg", "kk"}},
		{"0x%0*x", []any{4, uint64(0x1f)}},
		{"0x%0*x", []any{16, uint64(math.MaxUint64)}},
		{"%se%s%02d", []any{"1.5", "+", 7}},
		{"%d\x00%v\x00%s\x00%d\x00%d\x00", []any{3, true, "u", int64(5), int64(-1)}},
		{"%.1f GiB", []any{1.25}},
		{"%.1f MiB", []any{1023.96}},
		{"%v", []any{[]any{nil, []int{1}}}},
		{"%-8s|", []any{"ab"}},
		{"%8.3s|", []any{"abcdef"}},
		{"%.2s", []any{"日本語"}},
		{"%x", []any{"日本"}},
		{"%.1x", []any{[]byte{1, 2, 3}}},
		{"%v %v", []any{[]byte{1, 2}, []byte(nil)}},
	}
	for _, c := range cases {
		if got, want := Sprintf(c.format, c.args...), fmt.Sprintf(c.format, c.args...); got != want {
			t.Errorf("Sprintf(%q, %#v) = %q, fmt %q", c.format, c.args, got, want)
		}
		if got, want := string(Appendf([]byte("pre:"), c.format, c.args...)), "pre:"+fmt.Sprintf(c.format, c.args...); got != want {
			t.Errorf("Appendf(%q, %#v) = %q, want %q", c.format, c.args, got, want)
		}
		if got, want := Errorf(c.format, c.args...).Error(), fmt.Errorf(c.format, c.args...).Error(); got != want {
			t.Errorf("Errorf(%q, %#v) = %q, fmt %q", c.format, c.args, got, want)
		}
	}
}

// TestUnsupported: an operand outside the table prints a visible marker.
func TestUnsupported(t *testing.T) {
	type point struct{ X, Y int }
	type code string
	for _, c := range []struct {
		format string
		arg    any
		want   string
	}{
		{"<%v>", point{1, 2}, "<%!v(unsupported)>"},
		{"<%s>", code("x"), "<%!s(unsupported)>"},
		{"<%d>", &point{}, "<%!d(unsupported)>"},
		{"<%v>", []bool{true}, "<%!v(unsupported)>"},
		{"<%T>", point{}, "<?>"},
	} {
		if got := Sprintf(c.format, c.arg); got != c.want {
			t.Errorf("Sprintf(%q, %#v) = %q, want %q", c.format, c.arg, got, c.want)
		}
	}
}

func TestSprint(t *testing.T) {
	for _, args := range [][]any{
		{}, {"a"}, {1}, {1, 2}, {"a", 1, 2, "b", "c", 3.5, nil, true},
		{json.Number("5")}, {errors.New("e"), 4}, {[]any{1.0, "x"}}, {map[string]any{"a": 1.0}},
		{int64(-3)}, {uint8(3)}, {[]byte("x")},
	} {
		if got, want := Sprint(args...), fmt.Sprint(args...); got != want {
			t.Errorf("Sprint(%#v) = %q, fmt %q", args, got, want)
		}
	}
}

func TestTypeName(t *testing.T) {
	for _, vals := range kindValues {
		for _, v := range vals {
			want := "<nil>"
			if v != nil {
				want = reflect.TypeOf(v).String()
			}
			got := TypeName(v)
			known := true
			switch v.(type) {
			case error, testStringer, time.Duration:
				known = false
			}
			if known && got != want {
				t.Errorf("TypeName(%#v) = %q, reflect %q", v, got, want)
			}
			if !known && got != "?" {
				t.Errorf("TypeName(%#v) = %q, want ?", v, got)
			}
		}
	}
}

type isErr struct{ code int }

func (e *isErr) Error() string { return fmt.Sprint("code ", e.code) }

func TestErrorfWraps(t *testing.T) {
	target := &isErr{7}
	e := Errorf("open %q: %w", "k", target)
	if want := fmt.Errorf("open %q: %w", "k", target).Error(); e.Error() != want {
		t.Fatalf("Error() = %q, want %q", e.Error(), want)
	}
	var got *isErr
	if !errors.As(e, &got) || got != target {
		t.Fatal("errors.As does not reach the %w operand")
	}
	if errors.Unwrap(e) != target {
		t.Fatal("Unwrap does not return the %w operand")
	}
	two := Errorf("%w and %w", io.EOF, target)
	if !errors.Is(two, io.EOF) || !errors.As(two, &got) {
		t.Fatal("two %w operands: errors.Is/As do not reach both")
	}
	if want := fmt.Errorf("%w and %w", io.EOF, target).Error(); two.Error() != want {
		t.Fatalf("Error() = %q, want %q", two.Error(), want)
	}
	plain := Errorf("no wrap %v", io.EOF)
	if errors.Unwrap(plain) != nil || errors.Is(plain, io.EOF) {
		t.Fatal("a v-verb operand must not be wrapped")
	}
	wverb := "x %w" // not a constant: vet would flag an int for %w
	bad := Errorf(wverb, 5)
	if want := fmt.Errorf(wverb, 5).Error(); bad.Error() != want || errors.Unwrap(bad) != nil {
		t.Fatalf("%%w with an int: %q, want %q and no wrap", bad.Error(), want)
	}
}
