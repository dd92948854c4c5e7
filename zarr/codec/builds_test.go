package codec

import "testing"

// Every codec the core build leaves out exists in this (the full) build,
// so the npm package's move to the full build always finds it.
func TestFullOnlyCodecsAreRegistered(t *testing.T) {
	for _, name := range fullOnly {
		if _, ok := registry[name]; !ok {
			t.Errorf("%q is listed as full-only but not registered", name)
		}
		if inOtherBuild(name) {
			t.Errorf("%q is reported as in the other build by the full build", name)
		}
	}
}
