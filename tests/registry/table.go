package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

var kinds = []struct{ folder, title string }{
	{"codecs", "Codecs"},
	{"data-types", "Data types"},
	{"chunk-grids", "Chunk grids"},
	{"chunk-key-encodings", "Chunk-key encodings"},
	{"storage-transformers", "Storage transformers"},
}

var sourceNames = map[string]string{
	"numcodecs":   "numcodecs' test vectors",
	"zarrs":       "zarrs' test data",
	"snapshots":   "zarrs' snapshots",
	"registry":    "the registry's sample data",
	"zarr-python": "zarr-python 2.13's N5 arrays",
	"pillow":      "Pillow's (libtiff's, libjpeg's) chunks",
	"numpy":       "chunks NumPy and numcodecs compute as the READMEs define them",
	"examples":    "what the registry's documents state",
	"ml_dtypes":   "ml_dtypes 0.5.4's tables",
}

// uncounted are the sources that are one table per extension, not arrays:
// no count is shown.
var uncounted = map[string]bool{"ml_dtypes": true}

// table renders docs/extensions.md.
func table() ([]byte, error) {
	reg, err := loadRegistry(entriesFile())
	if err != nil {
		return nil, err
	}
	uses, err := loadCorpus(filepath.Join(repoRoot(), "tests", "compat"))
	if err != nil {
		return nil, err
	}
	for kind, file := range map[string]string{"chunk-key-encodings": "keys.tsv", "chunk-grids": "grids.tsv"} {
		if err := addExamples(uses, kind, filepath.Join(repoRoot(), "tests", "registry", "examples", file)); err != nil {
			return nil, err
		}
	}
	registered := func(name string) bool {
		for _, e := range reg.Entries {
			if e.Kind == "data-types" && e.Name == name {
				return true
			}
		}
		return false
	}
	if err := addMLDtypes(uses, filepath.Join(repoRoot(), "tests", "testdata", "ml_dtypes"), registered); err != nil {
		return nil, err
	}
	var b strings.Builder
	head, err := intro(reg)
	if err != nil {
		return nil, err
	}
	b.WriteString(head)
	for _, k := range kinds {
		inRegistry := map[string]bool{}
		var rows []row
		for _, e := range reg.Entries {
			if e.Kind != k.folder {
				continue
			}
			inRegistry[e.Name] = true
			rows = append(rows, makeRow(k.folder, e.Name, registryCell(e), usesOf(uses[k.folder], e.Name, inRegistry)))
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", k.title)
		writeRows(&b, rows, "In the registry")
		var others []string
		for n := range uses[k.folder] {
			if !inRegistry[n] && !inRegistry[family(n)] {
				others = append(others, n)
			}
		}
		if len(others) == 0 {
			continue
		}
		sort.Strings(others)
		var extra []row
		for _, n := range others {
			extra = append(extra, makeRow(k.folder, n, "–", uses[k.folder][n]))
		}
		fmt.Fprintf(&b, "\nNames the corpus's writers use that the registry does not list:\n\n")
		writeRows(&b, extra, "")
	}
	return []byte(b.String()), nil
}

// intro is page.md (the page's prose) with the registry's commit.
func intro(reg *Registry) (string, error) {
	page, err := os.ReadFile(filepath.Join(repoRoot(), "tests", "registry", "page.md"))
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(string(page), "{{commit}}", reg.Commit[:8]), nil
}

func registryCell(e Entry) string {
	if e.PR == 0 {
		return "registered"
	}
	state := "closed"
	if e.Open {
		state = "open"
	}
	return fmt.Sprintf("proposed ([#%d](https://github.com/zarr-developers/zarr-extensions/pull/%d), %s)", e.PR, e.PR, state)
}

type row struct {
	name, registry, read, write, checked, notes string
}

func writeRows(b *strings.Builder, rows []row, registryTitle string) {
	if registryTitle != "" {
		fmt.Fprintf(b, "| Extension | %s | Read | Write | Checked against | Notes |\n|---|---|---|---|---|---|\n", registryTitle)
	} else {
		b.WriteString("| Extension | Read | Write | Checked against | Notes |\n|---|---|---|---|---|\n")
	}
	for _, r := range rows {
		if registryTitle != "" {
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s |\n", r.name, r.registry, r.read, r.write, r.checked, r.notes)
		} else {
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", r.name, r.read, r.write, r.checked, r.notes)
		}
	}
}

// family is the registry entry naming a family of types: "r" for r8, r16, ...
func family(name string) string {
	if len(name) > 1 && name[0] == 'r' && strings.Trim(name[1:], "0123456789") == "" {
		return "r"
	}
	return name
}

// usesOf gathers the corpus's uses of an entry (of each member of a family).
func usesOf(m map[string][]use, name string, inRegistry map[string]bool) []use {
	out := append([]use(nil), m[name]...)
	for n, us := range m {
		if n != name && family(n) == name {
			out = append(out, us...)
		}
	}
	return out
}

// makeRow sums up what the corpus found for one extension name.
func makeRow(kind, name, registry string, us []use) row {
	r := row{name: name, registry: registry}
	readBy := map[string]int{}
	same, peer := map[string]int{}, map[string]int{}
	peerTool := map[string]string{}
	readRefusals, writeRefusals, differs := map[string]int{}, map[string]int{}, map[string]int{}
	unchecked := 0
	for _, u := range us {
		switch u.read {
		case "checked":
			readBy[u.source]++
		case "unchecked":
			unchecked++
		case "refused":
			if names(u.readWhy, name) {
				readRefusals[u.readWhy]++
			}
		}
		switch u.write {
		case "same":
			same[u.source]++
		case "peer":
			peer[u.source]++
			tool, _, _ := strings.Cut(u.writeWhy, ".")
			peerTool[u.source] = tool
		case "differs":
			if names(u.writeWhy, name) {
				differs[u.writeWhy]++
			}
		case "refused":
			if names(u.writeWhy, name) {
				writeRefusals[u.writeWhy]++
			}
		}
	}
	var notes []string
	r.read = mark(len(readBy) > 0, len(readRefusals) > 0)
	r.write = mark(len(same)+len(peer) > 0, len(writeRefusals) > 0)
	var checked []string
	if len(readBy) > 0 {
		checked = append(checked, "read: "+counts(readBy, sourceNames, uncounted))
	}
	if len(same)+len(peer) > 0 {
		var parts []string
		for _, src := range sortedKeys(merge(same, peer)) {
			var how []string
			if uncounted[src] {
				parts = append(parts, sourceNames[src])
				continue
			}
			if same[src] > 0 && src == "examples" {
				how = append(how, fmt.Sprintf("%d", same[src]))
			} else if same[src] > 0 {
				how = append(how, fmt.Sprintf("%d the writer's bytes", same[src]))
			}
			if peer[src] > 0 {
				how = append(how, fmt.Sprintf("%d read by %s as the writer's", peer[src], peerTool[src]))
			}
			parts = append(parts, sourceNames[src]+" ("+strings.Join(how, ", ")+")")
		}
		checked = append(checked, "written back: "+strings.Join(parts, ", "))
	}
	r.checked = strings.Join(checked, "; ")
	for _, why := range sortedKeys(readRefusals) {
		notes = append(notes, fmt.Sprintf("read refused (%d): %s", readRefusals[why], cell(why)))
	}
	for _, why := range sortedKeys(writeRefusals) {
		notes = append(notes, fmt.Sprintf("write refused (%d): %s", writeRefusals[why], cell(why)))
	}
	for _, why := range sortedKeys(differs) {
		notes = append(notes, fmt.Sprintf("written back unlike the writer (%d): %s", differs[why], cell(why)))
	}
	if unchecked > 0 && len(readBy) == 0 {
		notes = append(notes, fmt.Sprintf("%d arrays read without a value check", unchecked))
	}
	if len(us) == 0 {
		code, msg := probe(kind, name)
		if code == "" {
			notes = append(notes, "the engine opens an array naming it; no other implementation's array here")
		} else if code == errs.Unsupported {
			r.read, r.write = "✗", "✗"
			notes = append(notes, cell(string(code)+": "+msg))
		} else {
			notes = append(notes, "known to the engine; no other implementation's array here")
		}
	}
	r.notes = strings.Join(notes, "; ")
	return r
}

// modelNames are the engine's names of registry entries its messages use.
var modelNames = map[string]string{"lzw": "imagecodecs_lzw"}

// names reports whether a refusal's message is about the extension: it
// quotes its name, or names it.
func names(why, name string) bool {
	if model, ok := modelNames[name]; ok && names(why, model) {
		return true
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:] // numcodecs.pickle: "pickle ..."
	}
	word := regexp.QuoteMeta(strings.ToLower(name))
	if name == "r" {
		word = `r\d+`
	}
	return regexp.MustCompile(`(^|[^a-z0-9_])` + word + `($|[^a-z0-9_])`).MatchString(strings.ToLower(why))
}

func mark(ok, refused bool) string {
	switch {
	case ok && refused:
		return "partly"
	case ok:
		return "✓"
	case refused:
		return "✗"
	}
	return "–"
}

// counts lists sources by label with their counts (none for those in bare).
func counts(m map[string]int, label map[string]string, bare map[string]bool) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		name := k
		if label != nil && label[k] != "" {
			name = label[k]
		}
		if bare[k] {
			parts = append(parts, name)
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", name, m[k]))
	}
	return strings.Join(parts, ", ")
}

func merge(a, b map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range a {
		out[k] += v
	}
	for k, v := range b {
		out[k] += v
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// cell makes a message fit a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// probe opens a one-chunk array whose metadata names the extension (with
// no configuration) and returns the engine's error code and message ("" if
// it opens).
func probe(kind, name string) (errs.Code, string) {
	doc := map[string]any{
		"zarr_format": 3, "node_type": "array", "shape": []int{4}, "data_type": "uint8",
		"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": []int{4}}},
		"chunk_key_encoding": map[string]any{"name": "default"},
		"fill_value":         0,
		"codecs":             []any{map[string]any{"name": "bytes"}},
	}
	ext := map[string]any{"name": name}
	switch kind {
	case "codecs":
		var firstErr error
		for _, chain := range [][]any{{ext, doc["codecs"].([]any)[0]}, {ext}, {doc["codecs"].([]any)[0], ext}} {
			doc["codecs"] = chain
			err := open(doc)
			if err == nil {
				return "", ""
			}
			if firstErr == nil || errs.CodeOf(err) == errs.Unsupported {
				firstErr = err
			}
		}
		return errs.CodeOf(firstErr), message(firstErr)
	case "data-types":
		doc["data_type"] = name
	case "chunk-grids":
		doc["chunk_grid"] = ext
	case "chunk-key-encodings":
		doc["chunk_key_encoding"] = ext
	case "storage-transformers":
		doc["storage_transformers"] = []any{ext}
	}
	err := open(doc)
	if err == nil {
		return "", ""
	}
	return errs.CodeOf(err), message(err)
}

func open(doc map[string]any) error {
	raw, _ := json.Marshal(doc)
	s := zarr.NewMemoryStore()
	ctx := context.Background()
	if err := s.Set(ctx, "a/zarr.json", raw); err != nil {
		return err
	}
	_, err := zarr.OpenArray(ctx, s, "a")
	return err
}

// message is an error's text without its code and the probe's own location.
func message(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		msg := e.Msg
		if e.Err != nil {
			msg += ": " + e.Err.Error()
		}
		return strings.TrimPrefix(msg, ": ")
	}
	return err.Error()
}
