package zarr_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
)

// TestCompatWriteBack writes every array of the compatibility corpus that
// reads with its writer's values back with zarr-wasm: the same metadata
// document, the writer's values (its inputs for lossy codecs), and compares
// the chunks with the writer's. Each array's outcome must be the one
// tests/compat/written.txt lists (regenerate it with
// ZARR_COMPAT_WRITTEN=$PWD/tests/compat/written.txt go test -run
// TestCompatWriteBack ./zarr/ after checking each change):
//
//	SAME             every chunk is the writer's bytes
//	PEER <codec>     chunks differ only in their compressed bytes: numcodecs
//	                 (tests/compat/peer_decode.py) decodes ours and the
//	                 writer's to the same bytes; or (PEER zarr-python.n5)
//	                 zarr-python reads the N5 array we wrote with the
//	                 writer's values (tests/compat/check_n5.py)
//	DIFFERS <why>    neither (a compressor numcodecs does not have, ...)
//	REFUSED <error>  the write is refused with a typed error
//
// docs/extensions.md counts SAME and PEER as writes checked against the
// writer (tests/registry).
func TestCompatWriteBack(t *testing.T) {
	ctx := context.Background()
	cases := loadCompatCases(t)
	refused := loadRefused(t)
	root := t.TempDir()
	results := map[string]string{}
	var jobs []peerJob
	var n5Jobs []n5Job
	pending := map[string]*pendingCase{}
	for i, c := range cases {
		if _, ok := refused[c.key()]; ok {
			continue
		}
		diff, got, err := readCompat(t, ctx, c)
		if err != nil || diff != "" {
			continue // TestCompatCorpus reports it
		}
		values, ok := writerValues(t, c, got)
		if !ok {
			continue
		}
		src := filepath.Join(compatDir(), "data", c.Store, filepath.FromSlash(c.Path))
		dst := filepath.Join(root, fmt.Sprint(i))
		result, differing := writeBack(ctx, src, dst, values)
		if result != "" {
			results[c.key()] = strings.TrimSpace(result)
			continue
		}
		if _, err := os.Stat(filepath.Join(src, "attributes.json")); err == nil {
			// an N5 array: zarr-python reads what we wrote
			n5Jobs = append(n5Jobs, n5Job{ID: c.key(), Root: root, Path: fmt.Sprint(i), DType: c.DType,
				Expected: filepath.Join(compatDir(), "data", "expected", filepath.FromSlash(c.Expect["raw"].(string)))})
			continue
		}
		outer, ok := outerNumcodecs(src)
		if !ok {
			results[c.key()] = "DIFFERS " + strings.Join(chainNames(src), ", ") + ": chunk bytes differ and numcodecs has no decoder for the outermost codec"
			continue
		}
		p := &pendingCase{codec: outer["id"].(string), chunks: len(differing)}
		pending[c.key()] = p
		for _, name := range differing {
			ours, _ := os.ReadFile(filepath.Join(dst, name))
			theirs, _ := os.ReadFile(filepath.Join(src, name))
			job := peerJob{ID: c.key() + " " + name, Codec: outer,
				Ours: base64.StdEncoding.EncodeToString(ours), Theirs: base64.StdEncoding.EncodeToString(theirs)}
			if outer["id"] == "jpeg" {
				job.Input = base64.StdEncoding.EncodeToString(values.Bytes()) // a one-chunk array
			}
			jobs = append(jobs, job)
		}
	}
	if len(jobs) > 0 {
		py := peers.RequirePython(t, "numcodecs", "PIL")
		in, _ := json.Marshal(jobs)
		cmd := exec.Command(py, filepath.Join(compatDir(), "peer_decode.py"))
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("peer_decode.py: %v", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			key, rest, _ := strings.Cut(line, " ")
			_, verdict, _ := strings.Cut(rest, " ")
			p := pending[key]
			if p == nil {
				t.Fatalf("peer_decode.py: unexpected line %q", line)
			}
			if strings.HasPrefix(verdict, "OK") {
				p.ok++
			} else if p.failure == "" {
				p.failure = strings.TrimPrefix(verdict, "FAIL ")
			}
		}
		for key, p := range pending {
			switch {
			case p.ok == p.chunks && p.codec == "jpeg":
				results[key] = "PEER Pillow.jpeg"
			case p.ok == p.chunks:
				results[key] = "PEER numcodecs." + p.codec
			case p.failure != "":
				results[key] = "DIFFERS numcodecs." + p.codec + ": " + p.failure
			default:
				results[key] = "DIFFERS numcodecs." + p.codec + " gave no answer"
			}
		}
	}
	if len(n5Jobs) > 0 {
		py := peers.RequirePython(t, "zarr.n5")
		in, _ := json.Marshal(n5Jobs)
		cmd := exec.Command(py, filepath.Join(compatDir(), "check_n5.py"))
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("check_n5.py: %v", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			key, verdict, _ := strings.Cut(line, " ")
			if strings.HasPrefix(verdict, "OK") {
				results[key] = "PEER zarr-python.n5"
			} else {
				results[key] = "DIFFERS zarr-python.n5: " + strings.TrimPrefix(verdict, "FAIL ")
			}
		}
	}
	var all []string
	tally := map[string]int{}
	for k, r := range results {
		all = append(all, k+" "+r)
		verdict, _, _ := strings.Cut(r, " ")
		tally[verdict]++
	}
	sort.Strings(all)
	t.Logf("written back: %v", tally)
	if out := os.Getenv("ZARR_COMPAT_WRITTEN"); out != "" {
		head := "# Arrays of tests/compat/cases.json written back by zarr-wasm (zarr/compat_write_test.go), with the outcome:\n" +
			"# SAME, PEER <numcodecs codec that decodes ours and the writer's to the same bytes>, DIFFERS <why>, REFUSED <error>.\n"
		_ = os.WriteFile(out, []byte(head+strings.Join(all, "\n")+"\n"), 0o644)
	}
	listed, err := listingFile(filepath.Join(compatDir(), "written.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range results {
		if listed[k] != r {
			t.Errorf("%s written back: %s; tests/compat/written.txt says %q", k, r, listed[k])
		}
	}
	for k := range listed {
		if _, ok := results[k]; !ok {
			t.Errorf("%s is in tests/compat/written.txt but was not written back", k)
		}
	}
}

type peerJob struct {
	ID     string         `json:"id"`
	Codec  map[string]any `json:"codec"`
	Ours   string         `json:"ours"`
	Theirs string         `json:"theirs"`
	Input  string         `json:"input,omitempty"` // jpeg: the samples both encoded
}

// n5Job is an N5 array written back, for tests/compat/check_n5.py.
type n5Job struct {
	ID       string `json:"id"`
	Root     string `json:"root"`
	Path     string `json:"path"`
	DType    string `json:"dtype"`
	Expected string `json:"expected"`
}

type pendingCase struct {
	codec   string
	chunks  int
	ok      int
	failure string
}

// listingFile reads "store/path REST" lines.
func listingFile(file string) (map[string]string, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		if os.IsNotExist(err) {
			return map[string]string{}, nil
		}
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, rest, _ := strings.Cut(line, " ")
		out[k] = rest
	}
	return out, nil
}

// writerValues is what the writer encoded: the values read (checked equal
// to the writer's) or, for lossy codecs, the writer's inputs.
func writerValues(t *testing.T, c compatCase, got *zarr.NDArray) (*zarr.NDArray, bool) {
	e := c.Expect
	if _, ok := e["unchecked"]; ok {
		return nil, false
	}
	if in, ok := e["input"]; ok {
		// the writer's inputs, stated beside the values it stored
		a, err := zarr.NDArrayFromBytes(got.DType(), got.Shape(), expectedFile(t, in))
		return a, err == nil
	}
	if _, ok := e["decimal"]; ok {
		// the writer's inputs as float64: back to the array's float type
		w, _ := floats(dtype.MustParseV2("<f8"), expectedFile(t, e["raw"]))
		dt := got.DType()
		if dt.Kind != dtype.Float || dt.Format != "" || (dt.Size != 4 && dt.Size != 8) {
			return nil, false
		}
		b := make([]byte, len(w)*dt.Size)
		for i, v := range w {
			if dt.Size == 4 {
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
			} else {
				binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
			}
		}
		a, err := zarr.NDArrayFromBytes(dt, got.Shape(), b)
		return a, err == nil
	}
	for _, k := range []string{"atol", "rtol", "relerr"} {
		if _, ok := e[k]; ok {
			a, err := zarr.NDArrayFromBytes(got.DType(), got.Shape(), expectedFile(t, e["raw"]))
			return a, err == nil
		}
	}
	return got, true
}

var metadataFiles = []string{"zarr.json", ".zarray", ".zattrs", "attributes.json"}

// writeBack writes values through the array whose metadata is in src into
// dst and compares the chunks: "SAME", "DIFFERS ...", "REFUSED ...", or ""
// with the chunks whose bytes differ.
func writeBack(ctx context.Context, src, dst string, values *zarr.NDArray) (string, []string) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "DIFFERS " + err.Error(), nil
	}
	for _, f := range metadataFiles {
		if b, err := os.ReadFile(filepath.Join(src, f)); err == nil {
			_ = os.WriteFile(filepath.Join(dst, f), b, 0o644)
		}
	}
	s, err := zarr.NewDirectoryStore(dst)
	if err != nil {
		return "DIFFERS " + err.Error(), nil
	}
	arr, err := zarr.OpenArray(ctx, s, "")
	if err == nil {
		arr.Concurrency = 1 // one chunk at a time: a refusal names the same item every run
		err = arr.Write(ctx, nil, values)
	}
	if err != nil {
		return "REFUSED " + firstWords(err), nil
	}
	theirs, ours := chunkFiles(src), chunkFiles(dst)
	if strings.Join(theirs, ",") != strings.Join(ours, ",") {
		return fmt.Sprintf("DIFFERS chunk keys %v, the writer's %v", ours, theirs), nil
	}
	var differing []string
	for _, name := range theirs {
		a, _ := os.ReadFile(filepath.Join(src, name))
		b, _ := os.ReadFile(filepath.Join(dst, name))
		if !bytes.Equal(a, b) {
			differing = append(differing, name)
		}
	}
	if len(differing) == 0 {
		return "SAME", nil
	}
	return "", differing
}

// chunkFiles lists the files under dir other than metadata, sorted.
func chunkFiles(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		for _, m := range append(metadataFiles, ".zgroup") {
			if rel == m {
				return nil
			}
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out
}

// chainNames lists the codecs of a zarr.json other than bytes (or a
// .zarray's filters and compressor).
func chainNames(dir string) []string {
	var doc struct {
		Codecs     []map[string]any `json:"codecs"`
		Filters    []map[string]any `json:"filters"`
		Compressor map[string]any   `json:"compressor"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "zarr.json"))
	if err != nil {
		raw, _ = os.ReadFile(filepath.Join(dir, ".zarray"))
	}
	_ = json.Unmarshal(raw, &doc)
	var out []string
	for _, c := range doc.Codecs {
		if n, _ := c["name"].(string); n != "bytes" {
			out = append(out, n)
		}
	}
	for _, c := range append(doc.Filters, doc.Compressor) {
		if id, ok := c["id"].(string); ok {
			out = append(out, "numcodecs."+id)
		}
	}
	return out
}

// outerNumcodecs returns the numcodecs configuration of the array's
// outermost codec (the v2 compressor, the last v3 codec) when numcodecs has
// it.
func outerNumcodecs(dir string) (map[string]any, bool) {
	if raw, err := os.ReadFile(filepath.Join(dir, ".zarray")); err == nil {
		var doc map[string]any
		if json.Unmarshal(raw, &doc) != nil {
			return nil, false
		}
		c, ok := doc["compressor"].(map[string]any)
		if ok && c["id"] == "zstd" {
			delete(c, "checksum") // as below
		}
		return c, ok
	}
	raw, err := os.ReadFile(filepath.Join(dir, "zarr.json"))
	if err != nil {
		return nil, false
	}
	var doc struct {
		Codecs []struct {
			Name          string         `json:"name"`
			Configuration map[string]any `json:"configuration"`
		} `json:"codecs"`
	}
	if json.Unmarshal(raw, &doc) != nil || len(doc.Codecs) == 0 {
		return nil, false
	}
	last := doc.Codecs[len(doc.Codecs)-1]
	cfg := map[string]any{}
	for k, v := range last.Configuration {
		cfg[k] = v
	}
	switch last.Name {
	case "jpeg":
		cfg = map[string]any{"id": "jpeg"} // Pillow decodes it (peer_decode.py)
	case "zstd", "gzip", "numcodecs.zstd", "numcodecs.gzip":
		// (numcodecs 0.11's Zstd has no checksum setting: a frame's
		// checksum is checked when present)
		cfg = map[string]any{"id": strings.TrimPrefix(last.Name, "numcodecs."), "level": cfg["level"]}
	case "blosc":
		shuffle := map[any]int{"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}[cfg["shuffle"]]
		cfg = map[string]any{"id": "blosc", "cname": cfg["cname"], "clevel": cfg["clevel"], "shuffle": shuffle, "blocksize": cfg["blocksize"]}
	default:
		id, ok := strings.CutPrefix(last.Name, "numcodecs.")
		if !ok {
			return nil, false
		}
		cfg["id"] = id
	}
	return cfg, true
}
