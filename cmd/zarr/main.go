// Command zarr inspects Zarr stores on the local file system with the Go
// engine: "zarr info DIR" prints the hierarchy with shapes, data types,
// chunks, codecs and attributes; "zarr cat DIR/ARRAY [SELECTION]" prints
// values.
package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

func main() {
	if len(os.Args) < 3 || (os.Args[1] != "info" && os.Args[1] != "cat") {
		fmt.Fprintln(os.Stderr, "usage: zarr info STORE_DIR [PATH]\n       zarr cat STORE_DIR PATH [SELECTION]")
		os.Exit(2)
	}
	ctx := context.Background()
	s, err := zarr.NewDirectoryStore(os.Args[2])
	if err != nil {
		fail(err)
	}
	path := ""
	if len(os.Args) > 3 {
		path = os.Args[3]
	}
	switch os.Args[1] {
	case "info":
		n, err := zarr.Open(ctx, s, path)
		if err != nil {
			fail(err)
		}
		name := path
		if name == "" {
			name = filepath.Base(os.Args[2])
		}
		if err := printTree(ctx, name, n, ""); err != nil {
			fail(err)
		}
	case "cat":
		arr, err := zarr.OpenArray(ctx, s, path)
		if err != nil {
			fail(err)
		}
		selText := ""
		if len(os.Args) > 4 {
			selText = os.Args[4]
		}
		sel, err := zarr.ParseSelection(selText)
		if err != nil {
			fail(err)
		}
		nd, err := arr.Read(ctx, sel)
		if err != nil {
			fail(err)
		}
		fmt.Printf("shape %v\n", nd.Shape())
		for _, v := range values(nd) {
			fmt.Println(v)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "zarr:", err)
	os.Exit(1)
}

func printTree(ctx context.Context, name string, n zarr.Node, indent string) error {
	switch x := n.(type) {
	case *zarr.Array:
		codecs := make([]string, len(x.Codecs()))
		for i, c := range x.Codecs() {
			codecs[i] = c.Name
		}
		chunks := fmt.Sprint(x.Chunks())
		if x.ChunkSizes() != nil {
			chunks = fmt.Sprint(x.ChunkSizes())
		}
		fmt.Printf("%s%s  array v%d  shape %v  dtype %s  chunks %s  codecs %s%s\n", indent, name, x.ZarrFormat(),
			x.Shape(), x.DType(), chunks, strings.Join(codecs, ","), attrText(x.Attrs()))
	case *zarr.Group:
		fmt.Printf("%s%s/  group v%d%s\n", indent, name, x.ZarrFormat(), attrText(x.Attrs()))
		kids, err := x.Children(ctx)
		if err != nil {
			return err
		}
		for _, k := range kids {
			if k.Err != nil {
				fmt.Printf("%s  %s  cannot be opened: %v\n", indent, k.Name, k.Err)
				continue
			}
			if err := printTree(ctx, k.Name, k.Node, indent+"  "); err != nil {
				return err
			}
		}
	}
	return nil
}

func attrText(a map[string]any) string {
	if len(a) == 0 {
		return ""
	}
	b, err := jsonx.Marshal(a, "")
	if err != nil {
		return fmt.Sprintf("  attrs %v", a)
	}
	return "  attrs " + string(b)
}

// values formats each element for printing.
func values(nd *zarr.NDArray) []string {
	dt := nd.DType()
	if s, err := nd.Strings(); err == nil {
		return s
	}
	if objs, err := nd.Objects(); err == nil {
		out := make([]string, len(objs))
		for i, o := range objs {
			out[i] = fmt.Sprint(o)
		}
		return out
	}
	b := nd.Bytes()
	out := make([]string, 0, nd.Len())
	for i := 0; i < nd.Len(); i++ {
		e := b[i*dt.Size : (i+1)*dt.Size]
		switch dt.Kind {
		case dtype.Float:
			out = append(out, fmt.Sprint(dt.LoadFloat64(e)))
		case dtype.Int, dtype.Datetime, dtype.Timedelta:
			out = append(out, fmt.Sprint(dt.LoadInt64(e)))
		case dtype.Uint:
			out = append(out, fmt.Sprint(dt.LoadUint64(e)))
		case dtype.Bool:
			out = append(out, fmt.Sprint(e[0] != 0))
		case dtype.Complex:
			h := dt.Size / 2
			re, im := 0.0, 0.0
			if h == 4 {
				re = float64(math.Float32frombits(binary.LittleEndian.Uint32(e)))
				im = float64(math.Float32frombits(binary.LittleEndian.Uint32(e[4:])))
			} else {
				re = math.Float64frombits(binary.LittleEndian.Uint64(e))
				im = math.Float64frombits(binary.LittleEndian.Uint64(e[8:]))
			}
			out = append(out, fmt.Sprint(complex(re, im)))
		default:
			out = append(out, fmt.Sprintf("% x", e))
		}
	}
	return out
}
