package main

import "testing"

// Expected texts are what JavaScript's String(x) and toPrecision give
// (ECMAScript's Number::toString rules).
func TestJSNumberText(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{1e21, "1e+21"}, {1e20, "100000000000000000000"}, {1e-7, "1e-7"}, {0.000001, "0.000001"},
		{1.5e-7, "1.5e-7"}, {-0.5, "-0.5"}, {123456789012, "123456789012"}, {0, "0"},
		{1.7976931348623157e308, "1.7976931348623157e+308"}, {5e-324, "5e-324"}, {0.30000000000000004, "0.30000000000000004"},
	} {
		if got := jsNumber(c.x); got != c.want {
			t.Errorf("jsNumber(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	// float32 elements: the fewest digits whose toPrecision rounding (a tie
	// to the larger magnitude) reads back as the float32.
	for _, c := range []struct {
		x    float32
		want string
	}{{-4.30078125, "-4.3007813"}, {0.1, "0.1"}, {3.4028235e38, "3.4028235e+38"}, {1e-45, "1e-45"}, {16777216, "16777216"}} {
		if got := numberText(float64(c.x), 32); got != c.want {
			t.Errorf("numberText(float32 %v) = %q, want %q", c.x, got, c.want)
		}
	}
}
