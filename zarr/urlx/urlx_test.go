package urlx

import "testing"

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a/b c/d", "a/b%20c/d"},
		{"ümlaut?#%", "%C3%BCmlaut%3F%23%25"},
		{"x-y_z.~!$&'()*+,;=:@", "x-y_z.~!$&'()*+,;=:@"},
	} {
		got := EscapePath(c.in)
		if got != c.want {
			t.Errorf("EscapePath(%q) = %q, want %q", c.in, got, c.want)
		}
		if back, err := Unescape(got); err != nil || back != c.in {
			t.Errorf("Unescape(%q) = %q %v", got, back, err)
		}
	}
	for _, bad := range []string{"%", "%4", "%zz"} {
		if _, err := Unescape(bad); err == nil {
			t.Errorf("Unescape(%q): no error", bad)
		}
	}
}
