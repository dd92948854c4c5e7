package icechunk_test

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/hostread"
	"github.com/zarr-wasm/zarr-wasm/zarr/icechunk"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

// runLocated runs a located plan as the npm package's executor does: each
// fetch from the repository's store (Key), by URL (checking the version
// the plan names) or from the plan itself (Data); each chunk decoded by
// the engine and copied into the result.
func runLocated(t *testing.T, ctx context.Context, arr *zarr.Array, s *icechunk.Store, p *hostread.Plan, fetcher icechunk.ValidatingFetcher) []byte {
	t.Helper()
	out := nd.New(arr.DType(), p.FullShape)
	if p.Fill != nil {
		b := out.Raw()
		for i := 0; i < len(b); i += len(p.Fill) {
			copy(b[i:], p.Fill)
		}
	}
	for _, f := range p.Fetches {
		var data []byte
		r := store.Span(f.Range.Offset, f.Range.Length)
		switch {
		case f.Data != nil:
			data = f.Data
		case f.URL != "":
			d, ok, etag, _, err := fetcher.FetchWithValidators(ctx, f.URL, r)
			if err != nil || !ok {
				t.Fatalf("fetch %s: %v (found %v)", f.URL, err, ok)
			}
			if f.ETag != "" && strings.Trim(etag, `"`) != strings.Trim(f.ETag, `"`) {
				t.Fatalf("%s: ETag %s, the plan wants %s", f.URL, etag, f.ETag)
			}
			data = d
		default:
			d, ok, err := store.GetRange(ctx, s.Source(), f.Key, r)
			if err != nil || !ok {
				t.Fatalf("fetch %s: %v (found %v)", f.Key, err, ok)
			}
			data = d
		}
		for _, c := range f.Chunks {
			chunk, err := arr.DecodeChunk(c.Coords, data[c.Offset:c.Offset+c.Length])
			if err != nil {
				t.Fatalf("decode %v: %v", c.Coords, err)
			}
			nd.Copy(out, c.Out, chunk, c.In)
		}
	}
	return out.Bytes()
}

// TestLocatedPlans: the read plan of an array of a snapshot (what the npm
// package's executor fetches) gives the values the official package reads,
// for inline, native and virtual chunks; the virtual chunks of one file are
// fetched together, as the one coalescing policy merges them.
func TestLocatedPlans(t *testing.T) {
	dir := fixtures(t)
	ts := serveTarget(t)
	fetcher := zhttp.NewFetcher(zhttp.Options{Retries: -1})
	ctx := context.Background()
	host := hostread.Host{MinWorkerRead: -1}
	cases := []struct{ name, oracle, repo string }{
		{"virtual-v2", filepath.Join(dir, "oracle", "virtual", "repo-v2.json"), filepath.Join(icechunkTests(), "virtual", "repo-v2")},
		{"virtual-v1", filepath.Join(dir, "oracle", "virtual", "repo-v1.json"), filepath.Join(icechunkTests(), "virtual", "repo-v1")},
		{"features-v2", filepath.Join(dir, "oracle", "features-v2.json"), filepath.Join(dir, "repos", "features-v2")},
		{"split-v2", filepath.Join(dir, "oracle", "split-v2.json"), filepath.Join(dir, "repos", "split-v2")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := readOracle(t, tc.oracle)
			v := o.Versions[0]
			opt := ts.options()
			opt.Fetcher = fetcher
			s, err := icechunk.Open(ctx, dirStore(t, tc.repo), versionOf(v), opt)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for p := range v.Arrays {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			planned, merged := 0, 0
			for _, p := range paths {
				w := v.Arrays[p]
				arr, err := zarr.OpenArray(ctx, s, p)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				plan, err := hostread.Located(ctx, arr, zarr.Selection{}, host, s)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if plan.Engine != "" {
					if !strings.Contains(plan.Engine, "sharded") && plan.Engine != "variable-length data type" {
						t.Errorf("%s: the engine reads it: %s", p, plan.Engine)
					}
					continue
				}
				planned++
				before := ts.requests
				if got := sum(runLocated(t, ctx, arr, s, plan, fetcher)); got != w.SHA256 {
					t.Errorf("%s: the plan's values differ from the official package's", p)
				}
				// (the test's files are 4 KiB: one request each, however
				// many chunks it holds)
				files := map[string]bool{}
				urls, chunks := 0, 0
				for _, f := range plan.Fetches {
					if f.URL != "" {
						urls++
						chunks += len(f.Chunks)
						files[f.URL] = true
					}
				}
				if urls != len(files) || ts.requests-before != urls {
					t.Errorf("%s: %d URL fetches and %d requests for %d chunks in %d files", p, urls, ts.requests-before, chunks, len(files))
				}
				if chunks > urls {
					merged++
				}
			}
			if strings.HasPrefix(tc.name, "virtual") && merged == 0 {
				t.Errorf("no virtual chunks of one file were fetched together")
			}
			if planned == 0 {
				t.Errorf("no array planned")
			}
		})
	}
}
