package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// image applies a module's data segments to zeroed memory.
func image(t *testing.T, m []byte) (mem []byte, segs int, rest []byte) {
	t.Helper()
	for i := 8; i < len(m); {
		id := m[i]
		n, j, err := uleb(m, i+1)
		if err != nil {
			t.Fatal(err)
		}
		end := j + int(n)
		if id == 11 {
			ss, err := parseData(m[j:end])
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range ss {
				if need := int(s.off) + len(s.data); need > len(mem) {
					mem = append(mem, make([]byte, need-len(mem))...)
				}
				copy(mem[s.off:], s.data)
			}
			segs = len(ss)
		} else {
			rest = append(rest, m[i:end]...)
		}
		i = end
	}
	return mem, segs, rest
}

// TestJoinGoModule builds a small Go program for GOOS=js and checks that
// joining gives the same memory image, the same other sections, far fewer
// segments, and that joining again changes nothing.
func TestJoinGoModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a WebAssembly module")
	}
	dir := t.TempDir()
	src := "package main\n\nimport (\"os\"; \"strconv\"; \"unicode\")\n\nvar table = map[string]int{\"a\": 1, \"b\": 2}\n\nfunc main() { os.Stdout.WriteString(strconv.Itoa(table[os.Args[0]]) + strconv.FormatBool(unicode.IsUpper(rune(len(os.Args))))) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module probe\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wasm := filepath.Join(dir, "p.wasm")
	cmd := exec.Command("go", "build", "-o", wasm, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	m, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	j, before, after, err := join(m, MaxGap)
	if err != nil {
		t.Fatal(err)
	}
	memA, segsA, restA := image(t, m)
	memB, segsB, restB := image(t, j)
	if segsA != before || segsB != after {
		t.Fatalf("counts %d, %d; reported %d, %d", segsA, segsB, before, after)
	}
	if !bytes.Equal(memA, memB) {
		t.Fatal("joined segments give another memory image")
	}
	if !bytes.Equal(restA, restB) {
		t.Fatal("sections other than data changed")
	}
	if after*10 > before {
		t.Fatalf("%d segments joined into %d only", before, after)
	}
	t.Logf("%d segments joined into %d; %d -> %d bytes", before, after, len(m), len(j))
	again, b2, a2, err := join(j, MaxGap)
	if err != nil || !bytes.Equal(again, j) || b2 != after || a2 != after {
		t.Fatalf("joining again changed the module (%v)", err)
	}
}

// TestJoinSegments: gaps up to maxGap are filled, longer gaps, overlaps and
// segments out of order are kept apart.
func TestJoinSegments(t *testing.T) {
	in := []segment{
		{0, []byte{1, 2}}, {4, []byte{3}}, // gap 2: joined
		{100, []byte{4}}, // gap 95 > 8: apart
		{101, []byte{5}}, // adjacent: joined
		{50, []byte{6}},  // out of order: apart
		{50, []byte{7}},  // overlapping: apart
	}
	got := joinSegments(in, 8)
	want := []segment{{0, []byte{1, 2, 0, 0, 3}}, {100, []byte{4, 5}}, {50, []byte{6}}, {50, []byte{7}}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].off != want[i].off || !bytes.Equal(got[i].data, want[i].data) {
			t.Fatalf("segment %d: got %v, want %v", i, got[i], want[i])
		}
	}
	if in[0].data[0] != 1 || len(in[0].data) != 2 {
		t.Fatal("the input was modified")
	}
}

func TestRejectsOtherModules(t *testing.T) {
	for _, m := range [][]byte{nil, []byte("\x00asm\x01\x00\x00\x00"), []byte("\x7fELF....")} {
		if _, _, _, err := join(m, MaxGap); err == nil {
			t.Errorf("join(%q) accepted", m)
		}
	}
	// a passive segment (flag 1)
	m := []byte("\x00asm\x01\x00\x00\x00\x0b\x04\x01\x01\x01\x09")
	if _, _, _, err := join(m, MaxGap); err == nil {
		t.Error("a passive segment was accepted")
	}
}
