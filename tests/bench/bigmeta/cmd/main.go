// Command cmd writes the metadata benchmark's files (package bigmeta) into
// a directory, and with -time also times native Go on them the way
// tests/bench/metadata.mjs times WebAssembly (printing JSON: median wall
// and CPU seconds of each task):
//
//	go run ./tests/bench/bigmeta/cmd -out DIR [-time -runs 3]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/zarr-wasm/zarr-wasm/tests/bench/bigmeta"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
)

func main() {
	out := flag.String("out", "", "directory to write into")
	size := flag.Int("zmetadata-bytes", 200_000_000, "size of the .zmetadata")
	nrefs := flag.Int("refs", 1_000_000, "references in refs.json")
	timeIt := flag.Bool("time", false, "time native Go on the files and print JSON")
	runs := flag.Int("runs", 3, "runs to take the median of")
	flag.Parse()
	if *out == "" {
		log.Fatal("-out is required")
	}
	if err := bigmeta.WriteFiles(*out, *size, *nrefs); err != nil {
		log.Fatal(err)
	}
	if !*timeIt {
		return
	}
	ctx := context.Background()
	zmeta, err := os.ReadFile(filepath.Join(*out, "zmetadata", ".zmetadata"))
	if err != nil {
		log.Fatal(err)
	}
	refsJSON, err := os.ReadFile(filepath.Join(*out, "refs.json"))
	if err != nil {
		log.Fatal(err)
	}
	res := map[string]map[string]float64{
		"consolidated": measure(*runs, func() error {
			s := zarr.NewMemoryStore()
			s.Set(ctx, ".zmetadata", zmeta)
			s.Set(ctx, ".zgroup", []byte(`{"zarr_format": 2}`))
			g, err := zarr.OpenGroup(ctx, s, "")
			if err != nil {
				return err
			}
			_, err = g.Open(ctx, "group_3/var_7")
			return err
		}),
		"kerchunk": measure(*runs, func() error {
			s, err := refs.FromJSON(ctx, refsJSON, refs.Options{BaseURL: "https://host/refs.json"})
			if err != nil {
				return err
			}
			if _, _, err := s.Get(ctx, "data/.zarray"); err != nil {
				return err
			}
			names, err := s.List(ctx, "")
			if err == nil && len(names) != 2 {
				err = fmt.Errorf("listed %v", names)
			}
			return err
		}),
	}
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
}

// measure returns the median wall and CPU seconds of runs calls of f.
func measure(runs int, f func() error) map[string]float64 {
	var walls, cpus []float64
	for i := 0; i < runs; i++ {
		c0 := cpu()
		t0 := time.Now()
		if err := f(); err != nil {
			log.Fatal(err)
		}
		walls = append(walls, time.Since(t0).Seconds())
		cpus = append(cpus, cpu()-c0)
	}
	return map[string]float64{"wall": median(walls), "cpu": median(cpus)}
}

func cpu() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
