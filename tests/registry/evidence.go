package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The evidence a row of the table rests on: the compatibility corpus
// (tests/compat), whose arrays other implementations wrote. Its Go test
// (zarr/compat_test.go) fails unless every array not listed in refused.txt
// reads with the values its writer states, and unless every array written
// back matches what written.txt says of it (same bytes as the writer's, or
// decoded by the writer's library to the same elements); so a row built
// from these files says what the tests found, and changes when they do.

type corpusCase struct {
	Source string         `json:"source"`
	Store  string         `json:"store"`
	Path   string         `json:"path"`
	DType  string         `json:"dtype"`
	Shape  []int          `json:"shape"`
	Expect map[string]any `json:"expect"`
}

func (c corpusCase) key() string { return c.Store + "/" + c.Path }

// A use is one corpus array that names an extension, and what the tests
// found when reading it and writing it back.
type use struct {
	key, source string
	read        string // "checked", "unchecked" or "refused"
	readWhy     string // the refusal's code and message
	write       string // "same", "peer", "refused", "" (not written back)
	writeWhy    string
}

// corpus is every extension name the corpus arrays use, by extension point.
type corpus map[string]map[string][]use

func loadCorpus(compatDir string) (corpus, error) {
	var cases []corpusCase
	for _, name := range []string{"cases.json", "cases-extra.json"} {
		raw, err := os.ReadFile(filepath.Join(compatDir, name))
		if err != nil {
			return nil, err
		}
		var part []corpusCase
		if err := json.Unmarshal(raw, &part); err != nil {
			return nil, err
		}
		cases = append(cases, part...)
	}
	refused, err := listing(filepath.Join(compatDir, "refused.txt"))
	if err != nil {
		return nil, err
	}
	written, err := listing(filepath.Join(compatDir, "written.txt"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	out := corpus{}
	for _, c := range cases {
		dir := filepath.Join(compatDir, "data", c.Store, filepath.FromSlash(c.Path))
		names, err := namesOf(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.key(), err)
		}
		u := use{key: c.key(), source: c.Source, read: "checked"}
		if why, ok := refused[c.key()]; ok {
			u.read, u.readWhy = "refused", reason(why)
		} else if _, ok := c.Expect["unchecked"]; ok {
			u.read = "unchecked"
		}
		if w, ok := written[c.key()]; ok {
			result, why, _ := strings.Cut(w, " ")
			u.write, u.writeWhy = strings.ToLower(result), why
		}
		for kind, list := range names {
			if out[kind] == nil {
				out[kind] = map[string][]use{}
			}
			for _, n := range dedupe(list) {
				out[kind][n] = append(out[kind][n], u)
			}
		}
	}
	return out, nil
}

// reason is a listed refusal's "CODE CODE: message" as "CODE: message".
func reason(s string) string {
	code, rest, _ := strings.Cut(s, " ")
	rest = strings.TrimPrefix(rest, code+": ")
	for strings.HasPrefix(rest, ": ") {
		rest = rest[2:]
	}
	return code + ": " + rest
}

// addExamples adds what the registry's documents state (examples/*.tsv:
// the chunk keys of keys.tsv, which zarr's TestRegistryKeyExamples writes
// and reads under each encoding; the grid of grids.tsv, which
// TestRegistryGridExample reads and writes) as uses of those extensions,
// one per line (its first column names the extension).
func addExamples(out corpus, kind, file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if out[kind] == nil {
		out[kind] = map[string][]use{}
	}
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, "\t")
		out[kind][name] = append(out[kind][name],
			use{key: fmt.Sprintf("%s:%d", filepath.Base(file), i+1), source: "examples", read: "checked", write: "same"})
	}
	return nil
}

// addMLDtypes adds ml_dtypes' tables (tests/testdata/ml_dtypes: the value
// of every bit pattern of a small float type, and how float64 and float32
// values round to it) as a use of that type and of its complex_ pair, for
// the names the registry lists. zarr/dtype's TestLowPrecAgainstMLDtypes and
// TestComplexLowPrecAgainstMLDtypes fail unless the engine decodes and
// encodes each as the table says.
func addMLDtypes(out corpus, dir string, registered func(string) bool) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no ml_dtypes tables in %s", dir)
	}
	if out["data-types"] == nil {
		out["data-types"] = map[string][]use{}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		for _, n := range []string{name, "complex_" + name} {
			if registered(n) {
				out["data-types"][n] = append(out["data-types"][n],
					use{key: "ml_dtypes:" + n, source: "ml_dtypes", read: "checked", write: "same"})
			}
		}
	}
	return nil
}

// listing reads a "store/path REST" file (refused.txt, written.txt).
func listing(file string) (map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		out[key] = rest
	}
	return out, sc.Err()
}

func dedupe(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// namesOf lists the extension names an array's metadata uses, by extension
// point: in a zarr.json every codec (inside sharding's, optional's and
// n5_default's lists too), the data type (and the types inside it), the
// chunk grid and the chunk-key encoding; in a .zarray its numcodecs codecs
// under their v3 names ("numcodecs.<id>").
func namesOf(dir string) (map[string][]string, error) {
	names := map[string][]string{}
	if raw, err := os.ReadFile(filepath.Join(dir, "zarr.json")); err == nil {
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, err
		}
		codecNames(doc["codecs"], names)
		dtypeNames(doc["data_type"], names)
		if n := extName(doc["chunk_grid"]); n != "" {
			names["chunk-grids"] = append(names["chunk-grids"], n)
		}
		if n := extName(doc["chunk_key_encoding"]); n != "" {
			names["chunk-key-encodings"] = append(names["chunk-key-encodings"], n)
		}
		if st, ok := doc["storage_transformers"].([]any); ok {
			for _, s := range st {
				names["storage-transformers"] = append(names["storage-transformers"], extName(s))
			}
		}
		return names, nil
	}
	raw, err := os.ReadFile(filepath.Join(dir, ".zarray"))
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	v2 := func(c any) {
		if m, ok := c.(map[string]any); ok {
			if id, ok := m["id"].(string); ok {
				names["codecs"] = append(names["codecs"], "numcodecs."+id)
			}
		}
	}
	v2(doc["compressor"])
	if fs, ok := doc["filters"].([]any); ok {
		for _, f := range fs {
			v2(f)
		}
	}
	return names, nil
}

// extName is the name of an extension object ({"name", "configuration"} or
// a bare name).
func extName(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		n, _ := x["name"].(string)
		return n
	}
	return ""
}

func codecNames(v any, names map[string][]string) {
	list, _ := v.([]any)
	for _, c := range list {
		n := extName(c)
		if n == "" {
			continue
		}
		names["codecs"] = append(names["codecs"], n)
		m, _ := c.(map[string]any)
		cfg, _ := m["configuration"].(map[string]any)
		for _, k := range []string{"codecs", "index_codecs", "mask_codecs", "data_codecs"} {
			codecNames(cfg[k], names)
		}
	}
}

func dtypeNames(v any, names map[string][]string) {
	n := extName(v)
	if n == "" {
		return
	}
	names["data-types"] = append(names["data-types"], n)
	m, _ := v.(map[string]any)
	cfg, _ := m["configuration"].(map[string]any)
	if _, ok := cfg["name"]; ok {
		dtypeNames(cfg, names) // optional's inner type
	}
	if fields, ok := cfg["fields"].([]any); ok {
		for _, f := range fields {
			switch x := f.(type) {
			case map[string]any:
				dtypeNames(x["data_type"], names)
			case []any:
				if len(x) == 2 {
					dtypeNames(x[1], names)
				}
			}
		}
	}
}
