// Command firstreads writes zarr.OpenFirstReads — the keys opening a node
// asks the store for at once — into npm/lib/core.js, whose open() asks for
// them while the engine is still starting. One list, in Go; the JS copy is
// a marked region of core.js. Run from anywhere in the module:
//
//	go run ./internal/firstreads          rewrite the region (make codes)
//	go run ./internal/firstreads -check   fail if it is not current (make check-codes)
package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/genregion"
	"github.com/zarr-wasm/zarr-wasm/zarr"
)

var region = genregion.Region{
	Path:    "npm/lib/core.js",
	Comment: "//",
	Begin:   "Generated from zarr.OpenFirstReads (zarr/open.go) by internal/firstreads (make codes): do not edit.",
	End:     "End of the generated first reads.",
}

func main() {
	genregion.Main("firstreads", run)
}

func run(root string, check bool) error {
	err := genregion.Update(root, check, []string{region.Path}, func(_ string, old []byte) ([]byte, error) {
		return region.Replace(old, render())
	})
	if _, ok := err.(*genregion.Stale); ok {
		return errors.New(err.Error() + " with zarr.OpenFirstReads (run make codes)")
	}
	return err
}

// render is the JS object mapping open's kind option to the keys it reads first.
func render() string {
	var b strings.Builder
	b.WriteString("/** The keys open() reads first under a node's path, by the kind asked for (the engine's list). */\nconst firstReads = Object.freeze({\n")
	for _, kind := range []string{"", "array", "group"} {
		names := zarr.OpenFirstReads(kind)
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = strconv.Quote(n)
		}
		b.WriteString("  " + strconv.Quote(kind) + ": [" + strings.Join(quoted, ", ") + "],\n")
	}
	b.WriteString("});\n")
	return b.String()
}
