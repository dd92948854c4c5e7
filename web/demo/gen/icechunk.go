package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// copyIcechunkSample copies the committed sample Icechunk repository
// (web/demo/gen/icechunk/history.icechunk, written by the official
// package: see its README.md) into dst. The engine reads Icechunk but
// does not write it, so the sample is not made here. Skipped with a note
// when the repository's sources are not there.
func copyIcechunkSample(dst string) error {
	root, err := repoRoot()
	if err != nil {
		fmt.Println("  (no Icechunk sample:", err, ")")
		return nil
	}
	return copyTree(filepath.Join(root, "web", "demo", "gen", "icechunk", "history.icechunk"), dst)
}

// copyTree copies every file under src to the same place under dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}
