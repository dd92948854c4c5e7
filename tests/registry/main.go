// Command registry writes docs/extensions.md: one row per extension of the
// Zarr extension registry (github.com/zarr-developers/zarr-extensions),
// saying whether this engine reads and writes it and what that was checked
// against, or why it is refused.
//
//	go run ./tests/registry walk GITDIR   # list the registry's entries (entries.json)
//	go run ./tests/registry               # write docs/extensions.md
//
// walk reads a git mirror of the registry (the main branch, and the branch
// of every pull request that proposes an entry) and writes entries.json
// beside this file, so the table is built without the network. The table
// itself comes from entries.json, the compatibility corpus's listings
// (tests/compat: what reads, what is refused, what written back matches
// the writer's bytes) and, for an entry no corpus array uses, the typed
// error the engine gives for a document naming it. Its test fails when
// docs/extensions.md is not what this writes.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

func entriesFile() string { return filepath.Join(repoRoot(), "tests", "registry", "entries.json") }
func tableFile() string   { return filepath.Join(repoRoot(), "docs", "extensions.md") }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "registry:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 2 && args[0] == "walk":
		reg, err := walk(args[1])
		if err != nil {
			return err
		}
		return saveRegistry(entriesFile(), reg)
	case len(args) == 0:
		doc, err := table()
		if err != nil {
			return err
		}
		return os.WriteFile(tableFile(), doc, 0o644)
	}
	return fmt.Errorf("usage: registry [walk GITDIR]")
}
