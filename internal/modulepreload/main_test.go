package main

import (
	"slices"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/internal/genregion"
)

// TestGeneratedCurrent fails when web/demo/index.html's module list is not
// what the viewer imports (make codes).
func TestGeneratedCurrent(t *testing.T) {
	genregion.CheckCurrent(t, run)
}

// TestStaticImports: the statement forms the viewer and the package use,
// and import() left out.
func TestStaticImports(t *testing.T) {
	src := `import * as zarr from "zarr-wasm";
import { a,
  b } from "./x.js";
export { ZipStore } from "./lib/zip.js";
export const app = { name: "./not-a-module.js" };
export * from "./all.js";
import "./side.js";
  const m = await import("./lazy.js");
import(/* @vite-ignore */ name).then(() => "./not.js");
// import { c } from "./comment-mid-line.js" is not at a line start here
`
	var got []string
	for _, m := range staticImport.FindAllStringSubmatch(src, -1) {
		got = append(got, m[1])
	}
	want := []string{"zarr-wasm", "./x.js", "./lib/zip.js", "./all.js", "./side.js"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
