package icechunk_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/icechunk"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

// The official package, @earthmover/icechunk 2.2.2 (its WASI build in
// Node), writes repositories (tests/icechunk/gen.mjs) and reads them, and
// icechunk's own test repositories (tests/icechunk/upstream) and the
// committed virtual-chunk ones (tests/icechunk/virtual): what it reads
// (tests/icechunk/oracle.mjs) is what this package must read, at every
// branch, tag and snapshot.

type oracleFile struct {
	Unavailable string            `json:"unavailable"`
	Spec        int               `json:"spec"`
	Reader      string            `json:"reader"`
	Branches    map[string]string `json:"branches"`
	Tags        map[string]string `json:"tags"`
	Versions    []oracleVersion   `json:"versions"`
	WasiError   string            `json:"wasiError"`
}

type oracleVersion struct {
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Snapshot string `json:"snapshot"`
	Same     bool   `json:"same"`
	Ancestry []struct {
		ID      string `json:"id"`
		Parent  string `json:"parent"`
		Message string `json:"message"`
	} `json:"ancestry"`
	Keys map[string]struct {
		SHA256 string `json:"sha256"`
		Size   int    `json:"size"`
		Error  string `json:"error"`
		Absent bool   `json:"absent"`
	} `json:"keys"`
	Arrays map[string]struct {
		Shape  []int  `json:"shape"`
		SHA256 string `json:"sha256"`
		Via    string `json:"via"`
		Error  string `json:"error"`
	} `json:"arrays"`
}

var (
	fixturesOnce sync.Once
	fixturesDir  string
	fixturesErr  error
)

func icechunkTests() string { return filepath.Join(peers.RepoRoot(), "tests", "icechunk") }

// fixtures returns the directory tests/icechunk/fixtures.mjs made (the
// repositories and the oracle's answers), making it if need be.
func fixtures(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		peers.Unavailable(t, "node is not installed")
	}
	if _, err := os.Stat(filepath.Join(icechunkTests(), "node_modules", "@earthmover", "icechunk-wasm32-wasi")); err != nil {
		peers.Unavailable(t, "the official Icechunk package is not installed (cd tests/icechunk && npm ci)")
	}
	fixturesOnce.Do(func() {
		out, err := exec.Command("node", filepath.Join(icechunkTests(), "fixtures.mjs")).Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				err = &errs.Error{Code: errs.Store, Msg: string(ee.Stderr), Err: err}
			}
			fixturesErr = err
			return
		}
		fixturesDir = strings.TrimSpace(string(out))
	})
	if fixturesErr != nil {
		t.Fatalf("tests/icechunk/fixtures.mjs: %v", fixturesErr)
	}
	return fixturesDir
}

func readOracle(t *testing.T, file string) *oracleFile {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var o oracleFile
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return &o
}

// serveTarget serves the virtual chunks' target file as the tests expect
// (tests/icechunk/target-server.mjs): ETag "target-v1", modified
// 2024-01-01, Range requests; the state can be changed to make the file
// look replaced.
type targetServer struct {
	*httptest.Server
	mu           sync.Mutex
	etag, lmDate string
	requests     int
}

func serveTarget(t *testing.T) *targetServer {
	data, err := os.ReadFile(filepath.Join(icechunkTests(), "virtual", "target.bin"))
	if err != nil {
		t.Fatal(err)
	}
	ts := &targetServer{etag: `"target-v1"`, lmDate: "Mon, 01 Jan 2024 00:00:00 GMT"}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.requests++
		etag, lm := ts.etag, ts.lmDate
		ts.mu.Unlock()
		if r.URL.Path != "/virtual/target.bin" {
			http.NotFound(w, r)
			return
		}
		if etag != "" {
			w.Header().Set("ETag", etag)
		}
		if lm != "" {
			w.Header().Set("Last-Modified", lm)
		}
		// (no conditional headers honoured: the reader must check)
		r.Header.Del("If-Match")
		r.Header.Del("If-Unmodified-Since")
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader(string(data)))
	}))
	t.Cleanup(ts.Close)
	return ts
}

const targetPrefix = "https://zarr-wasm-test.example/virtual/"

func (ts *targetServer) options() icechunk.Options {
	return icechunk.Options{
		VirtualChunks: map[string]string{targetPrefix: ts.URL + "/virtual/"},
		Fetcher:       zhttp.NewFetcher(zhttp.Options{Retries: -1}),
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// allKeys lists every key of s by walking List.
func allKeys(t *testing.T, ctx context.Context, s store.Lister, prefix string, out *[]string) {
	names, err := s.List(ctx, prefix)
	if err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	for _, n := range names {
		if strings.HasSuffix(n, "/") {
			allKeys(t, ctx, s, prefix+n, out)
		} else {
			*out = append(*out, prefix+n)
		}
	}
}

// difference returns what only a has and what only b has.
func difference(a, b []string) (onlyA, onlyB []string) {
	in := func(list []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range list {
			m[x] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	for _, x := range a {
		if !mb[x] {
			onlyA = append(onlyA, x)
		}
	}
	for _, x := range b {
		if !ma[x] {
			onlyB = append(onlyB, x)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return onlyA, onlyB
}

func versionOf(v oracleVersion) icechunk.Version {
	switch v.Kind {
	case "branch":
		return icechunk.Version{Branch: v.Name}
	case "tag":
		return icechunk.Version{Tag: v.Name}
	}
	return icechunk.Version{Snapshot: v.Name}
}

// compare checks every version the oracle read against this package's
// reading of the repository in st.
func compare(t *testing.T, st store.Store, o *oracleFile, opt icechunk.Options) {
	ctx := context.Background()
	byID := map[string]oracleVersion{}
	for _, v := range o.Versions {
		if !v.Same {
			byID[v.Snapshot] = v
		}
	}
	checked := 0
	for _, v := range o.Versions {
		name := v.Kind + " " + v.Name
		s, err := icechunk.Open(ctx, st, versionOf(v), opt)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.SnapshotID() != v.Snapshot {
			t.Errorf("%s: snapshot %s, the official package %s", name, s.SnapshotID(), v.Snapshot)
		}
		if s.SpecVersion() != o.Spec {
			t.Errorf("%s: spec %d, the official package %d", name, s.SpecVersion(), o.Spec)
		}
		if v.Same {
			v = byID[v.Snapshot]
		}
		anc, err := s.Ancestry(ctx)
		if err != nil {
			t.Errorf("%s: ancestry: %v", name, err)
		} else if len(anc) != len(v.Ancestry) {
			t.Errorf("%s: %d ancestors, the official package %d", name, len(anc), len(v.Ancestry))
		} else {
			for i, a := range anc {
				w := v.Ancestry[i]
				if a.ID != w.ID || a.Parent != w.Parent || a.Message != w.Message {
					t.Errorf("%s: ancestor %d is %+v, the official package %+v", name, i, a, w)
				}
			}
		}
		var keys []string
		allKeys(t, ctx, s, "", &keys)
		var want []string
		for k := range v.Keys {
			want = append(want, k)
		}
		if extra, missing := difference(keys, want); len(extra)+len(missing) > 0 {
			t.Errorf("%s: keys differ from the official package's: ours only %v, theirs only %v", name, extra, missing)
		}
		for k, w := range v.Keys {
			data, ok, err := s.Get(ctx, k)
			switch {
			case w.Error != "":
				if err == nil {
					t.Errorf("%s: %s read (%d bytes), the official package failed: %s", name, k, len(data), w.Error)
				}
			case err != nil:
				t.Errorf("%s: %s: %v", name, k, err)
			case !ok:
				t.Errorf("%s: %s absent", name, k)
			case sum(data) != w.SHA256:
				t.Errorf("%s: %s differs from the official package's (%d bytes, theirs %d)", name, k, len(data), w.Size)
			}
		}
		for p, w := range v.Arrays {
			a, err := zarr.OpenArray(ctx, s, p)
			if err != nil {
				t.Errorf("%s: open %s: %v", name, p, err)
				continue
			}
			nd, err := a.Read(ctx, zarr.Selection{})
			if w.Error != "" {
				if err == nil {
					t.Errorf("%s: %s read, the official package and zarrita failed: %s", name, p, w.Error)
				} else {
					checked++
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: read %s: %v", name, p, err)
				continue
			}
			if got := sum(nd.Bytes()); got != w.SHA256 {
				t.Errorf("%s: %s: values differ from what the official package and zarrita read (shape %v)", name, p, nd.Shape())
			}
			checked++
		}
	}
	if checked == 0 && len(o.Versions) > 1 {
		t.Errorf("no array compared")
	}
	// branches and tags as the official package lists them
	s, err := icechunk.Open(ctx, st, icechunk.Version{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for kind, want := range map[string]map[string]string{"branch": o.Branches, "tag": o.Tags} {
		list := s.Branches
		if kind == "tag" {
			list = s.Tags
		}
		refs, err := list(ctx)
		if err != nil {
			t.Errorf("%ses: %v", kind, err)
			continue
		}
		got := map[string]string{}
		for _, r := range refs {
			got[r.Name] = r.Snapshot
		}
		if len(got) != len(want) {
			t.Errorf("%ses %v, the official package %v", kind, got, want)
		}
		for n, id := range want {
			if got[n] != id {
				t.Errorf("%s %q at %q, the official package %q", kind, n, got[n], id)
			}
		}
	}
}

// noOracleErrors: in the repositories written for these tests the official
// package reads every key and array (a failure on both sides would pass
// compare unnoticed).
func noOracleErrors(t *testing.T, o *oracleFile) {
	t.Helper()
	for _, v := range o.Versions {
		for k, w := range v.Keys {
			if w.Error != "" {
				t.Errorf("the official package cannot read %s at %s %s: %s", k, v.Kind, v.Name, w.Error)
			}
		}
		for p, w := range v.Arrays {
			if w.Error != "" {
				t.Errorf("the official package and zarrita cannot read %s at %s %s: %s", p, v.Kind, v.Name, w.Error)
			}
		}
	}
}

func dirStore(t *testing.T, dir string) store.Store {
	st, err := zarr.NewDirectoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestWrittenByOfficialPackage: repositories the official package writes
// (spec 2 and 1, every numeric dtype, codecs, sharding, inline, native and
// missing chunks, 2,500 chunks, split manifests, commits, a branch, tags).
func TestWrittenByOfficialPackage(t *testing.T) {
	dir := fixtures(t)
	for _, name := range []string{"features-v2", "features-v1", "split-v2", "weather"} {
		t.Run(name, func(t *testing.T) {
			o := readOracle(t, filepath.Join(dir, "oracle", name+".json"))
			noOracleErrors(t, o)
			compare(t, dirStore(t, filepath.Join(dir, "repos", name)), o, icechunk.Options{})
		})
	}
}

// TestUpstreamRepositories: icechunk's own test repositories, written by
// icechunk 1.x and 2.x (icechunk-python/tests/data).
func TestUpstreamRepositories(t *testing.T) {
	dir := fixtures(t)
	names, _ := filepath.Glob(filepath.Join(icechunkTests(), "upstream", "*-repo-*"))
	if len(names) < 10 {
		t.Fatalf("%d upstream repositories", len(names))
	}
	for _, repo := range names {
		name := filepath.Base(repo)
		t.Run(name, func(t *testing.T) {
			o := readOracle(t, filepath.Join(dir, "oracle", "upstream", name+".json"))
			if o.Unavailable != "" {
				peers.Unavailable(t, "%s: %s", name, o.Unavailable)
			}
			if o.Reader == "native" {
				t.Logf("the official package's WASI build cannot open it (%s): its native build is the oracle", o.WasiError)
			}
			compare(t, dirStore(t, repo), o, icechunk.Options{})
		})
	}
}

// TestVirtualChunks: the committed virtual-chunk repositories, their
// target served over HTTP on 127.0.0.1, read by prefix mapping.
func TestVirtualChunks(t *testing.T) {
	dir := fixtures(t)
	ts := serveTarget(t)
	for _, name := range []string{"repo-v2", "repo-v1"} {
		t.Run(name, func(t *testing.T) {
			o := readOracle(t, filepath.Join(dir, "oracle", "virtual", name+".json"))
			noOracleErrors(t, o)
			compare(t, dirStore(t, filepath.Join(icechunkTests(), "virtual", name)), o, ts.options())
		})
	}
}

// TestOverHTTP reads a generated repository over HTTP (Range requests on
// 127.0.0.1) with the same answers.
func TestOverHTTP(t *testing.T) {
	dir := fixtures(t)
	for _, name := range []string{"features-v2", "features-v1"} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(dir, "repos", name))))
			defer srv.Close()
			hs, err := zhttp.NewStore(srv.URL, zhttp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var st store.Store = hs
			o := readOracle(t, filepath.Join(dir, "oracle", name+".json"))
			if o.Spec == 1 {
				// listing branches needs a listing: over plain HTTP, not there
				s, err := icechunk.Open(context.Background(), st, icechunk.Version{Branch: "dev"}, icechunk.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Branches(context.Background()); errs.CodeOf(err) != errs.Unsupported {
					t.Errorf("Branches over HTTP of a spec-1 repository: %v, want UNSUPPORTED", err)
				}
				st = listingStore{hs, dirStore(t, filepath.Join(dir, "repos", name))}
			}
			compare(t, st, o, icechunk.Options{})
		})
	}
}

// listingStore reads through HTTP and lists through a directory (for the
// spec-1 branch listing only).
type listingStore struct {
	*zhttp.Store
	dir store.Store
}

func (l listingStore) List(ctx context.Context, prefix string) ([]string, error) {
	return l.dir.(store.Lister).List(ctx, prefix)
}

// Can: it lists (the HTTP store says it cannot, the server being plain).
func (l listingStore) Can(c store.Capability) bool { return c == store.CanList || l.Store.Can(c) }

// TestConsistency: a reader keeps the snapshot it opened while the
// official package commits to its branch (reads running meanwhile all see
// the old values); Refresh sees the new head with the values the official
// package reads back.
func TestConsistency(t *testing.T) {
	dir := fixtures(t)
	ctx := context.Background()
	repo := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(dir, "repos", "features-v2")+"/.", repo).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	o := readOracle(t, filepath.Join(dir, "oracle", "features-v2.json"))
	var old oracleVersion
	for _, v := range o.Versions {
		if v.Kind == "branch" && v.Name == "main" {
			old = v
		}
	}
	const path = "dtypes/int32"
	st := dirStore(t, repo)
	s, err := icechunk.Open(ctx, st, icechunk.Version{Branch: "main"}, icechunk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	arr, err := zarr.OpenArray(ctx, s, path)
	if err != nil {
		t.Fatal(err)
	}
	read := func(a *zarr.Array) string {
		nd, err := a.Read(ctx, zarr.Selection{})
		if err != nil {
			t.Error(err)
			return ""
		}
		return sum(nd.Bytes())
	}
	if got := read(arr); got != old.Arrays[path].SHA256 {
		t.Fatalf("before the commit: values differ from the official package's")
	}

	// read while the official package commits
	done, commitDone := make(chan struct{}), make(chan struct{})
	var reads int
	var stale []string
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			default:
			}
			a, err := zarr.OpenArray(ctx, s, path)
			if err != nil {
				stale = append(stale, err.Error())
				return
			}
			if got := read(a); got != old.Arrays[path].SHA256 {
				stale = append(stale, got)
			}
			reads++
			if reads >= 10000 {
				return
			}
			select {
			case <-commitDone:
				return
			default:
			}
		}
	}()
	cmd := exec.Command("node", filepath.Join(icechunkTests(), "commit.mjs"), repo, "main", path, "7")
	cmd.Env = append(os.Environ(), "NAPI_RS_FORCE_WASI=1")
	out, err := cmd.Output()
	close(commitDone)
	<-done
	if err != nil {
		t.Fatalf("commit.mjs: %v", err)
	}
	var commit struct{ Snapshot, SHA256 string }
	if err := json.Unmarshal(out, &commit); err != nil {
		t.Fatalf("commit.mjs: %v: %s", err, out)
	}
	if len(stale) > 0 || reads == 0 {
		t.Fatalf("%d reads during the commit, %d did not see the opened snapshot: %v", reads, len(stale), stale)
	}
	if s.SnapshotID() != old.Snapshot || read(arr) != old.Arrays[path].SHA256 {
		t.Fatal("the store opened before the commit changed")
	}
	s2, err := s.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s2.SnapshotID() != commit.Snapshot {
		t.Fatalf("refreshed to %s, the new head is %s", s2.SnapshotID(), commit.Snapshot)
	}
	arr2, err := zarr.OpenArray(ctx, s2, path)
	if err != nil {
		t.Fatal(err)
	}
	if read(arr2) != commit.SHA256 {
		t.Fatal("after Refresh: values differ from what the official package reads back")
	}
	anc, err := s2.Ancestry(ctx)
	if err != nil || len(anc) < 2 || anc[0].ID != commit.Snapshot || anc[0].Parent != old.Snapshot || anc[0].Message != "consistency commit 7" {
		t.Fatalf("ancestry after the commit: %+v %v", anc, err)
	}
	// the old store still reads the old snapshot, a tag is where it was
	if read(arr) != old.Arrays[path].SHA256 {
		t.Fatal("the old store changed after Refresh")
	}
	t.Logf("%d reads while the official package committed", reads)
}

// TestVirtualReadsMerged: the engine's own reads (Array.Read, as the Go
// library and the command line read) fetch the virtual chunks of one file
// that are read together in one request (zarr/urlfetch merges them), with
// the official package's values.
func TestVirtualReadsMerged(t *testing.T) {
	dir := fixtures(t)
	ts := serveTarget(t)
	ctx := context.Background()
	o := readOracle(t, filepath.Join(dir, "oracle", "virtual", "repo-v2.json"))
	v := o.Versions[0]
	// (a window long enough for a loaded machine's goroutines to meet in)
	opt := ts.options()
	opt.Window = 200 * time.Millisecond
	s, err := icechunk.Open(ctx, dirStore(t, filepath.Join(icechunkTests(), "virtual", "repo-v2")), versionOf(v), opt)
	if err != nil {
		t.Fatal(err)
	}
	requests := func() int {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return ts.requests
	}
	merged := 0
	for _, p := range []string{"virt/plain", "virt/etag", "virt/mtime", "virt/mixed"} {
		w := v.Arrays[p]
		// the files its chunks are in, as the manifest says
		chunks, files := 0, map[string]bool{}
		for k := range v.Keys {
			if strings.HasPrefix(k, p+"/c/") {
				loc, _, err := s.Locate(ctx, k)
				if err != nil {
					t.Fatalf("%s: %v", k, err)
				}
				chunks++
				if loc.URL != "" {
					files[loc.URL] = true
				}
			}
		}
		a, err := zarr.OpenArray(ctx, s, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		before := requests()
		nd, err := a.Read(ctx, zarr.Selection{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := sum(nd.Bytes()); got != w.SHA256 {
			t.Errorf("%s: values differ from the official package's", p)
		}
		n := requests() - before
		if n > len(files) {
			t.Errorf("%s: %d requests for %d chunks in %d files", p, n, chunks, len(files))
		}
		if chunks > len(files) {
			merged++
		}
	}
	if merged == 0 {
		t.Errorf("no array has several virtual chunks in one file: the test checks nothing")
	}
}
