package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// An Entry is one extension of the zarr-extensions registry: a folder under
// one of its extension points, on the main branch (registered) or on a pull
// request's branch (proposed).
type Entry struct {
	Kind string `json:"kind"` // the extension point's folder: codecs, data-types, ...
	Name string `json:"name"`
	// PR is the pull request that proposes the entry (0: registered on main),
	// Open whether that pull request is still open.
	PR   int  `json:"pr,omitempty"`
	Open bool `json:"open,omitempty"`
	// Samples are the entry's sample arrays (folders holding a zarr.json).
	Samples []string `json:"samples,omitempty"`
}

// Registry is what walking a checkout of the registry found.
type Registry struct {
	Commit  string  `json:"commit"` // main's commit
	Entries []Entry `json:"entries"`
}

// extensionPoints are the registry's folders that hold extensions.
var extensionPoints = []string{"codecs", "data-types", "chunk-grids", "chunk-key-encodings", "storage-transformers"}

// walk lists the entries of a git mirror of zarr-extensions: the folders of
// main, then those only pull requests add (each pull request's branch head;
// a name two pull requests propose is kept from the newer one). A pull
// request is open when GitHub still keeps its merge ref.
func walk(gitDir string) (*Registry, error) {
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", gitDir}, args...)...).Output()
		return string(out), err
	}
	commit, err := git("rev-parse", "main")
	if err != nil {
		return nil, fmt.Errorf("%s: no main branch: %v", gitDir, err)
	}
	reg := &Registry{Commit: strings.TrimSpace(commit)}
	seen := map[string]int{}
	add := func(ref string, pr int, open bool) error {
		files, err := git("ls-tree", "-r", "--name-only", ref)
		if err != nil {
			return err
		}
		found := map[string]*Entry{}
		var order []string
		for _, f := range strings.Split(strings.TrimSpace(files), "\n") {
			parts := strings.Split(f, "/")
			if len(parts) < 3 || !contains(extensionPoints, parts[0]) {
				continue
			}
			key := parts[0] + "/" + parts[1]
			e := found[key]
			if e == nil {
				e = &Entry{Kind: parts[0], Name: parts[1], PR: pr, Open: open}
				found[key] = e
				order = append(order, key)
			}
			if path.Base(f) == "zarr.json" && len(parts) > 3 {
				e.Samples = append(e.Samples, path.Dir(strings.Join(parts[2:], "/")))
			}
		}
		for _, key := range order {
			if i, ok := seen[key]; ok {
				if reg.Entries[i].PR == 0 || reg.Entries[i].PR > pr {
					continue
				}
				reg.Entries[i] = *found[key]
				continue
			}
			seen[key] = len(reg.Entries)
			reg.Entries = append(reg.Entries, *found[key])
		}
		return nil
	}
	if err := add("main", 0, false); err != nil {
		return nil, err
	}
	refs, err := git("for-each-ref", "--format=%(refname)", "refs/pull")
	if err != nil {
		return nil, err
	}
	heads := map[int]bool{}
	merges := map[int]bool{}
	re := regexp.MustCompile(`^refs/pull/(\d+)/(head|merge)$`)
	sc := bufio.NewScanner(strings.NewReader(refs))
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if m[2] == "head" {
			heads[n] = true
		} else {
			merges[n] = true
		}
	}
	var prs []int
	for n := range heads {
		prs = append(prs, n)
	}
	sort.Ints(prs)
	for _, n := range prs {
		if err := add(fmt.Sprintf("refs/pull/%d/head", n), n, merges[n]); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(reg.Entries, func(i, j int) bool {
		a, b := reg.Entries[i], reg.Entries[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	return reg, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func loadRegistry(file string) (*Registry, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var r Registry
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return &r, nil
}

func saveRegistry(file string, r *Registry) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}
