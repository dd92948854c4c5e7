# zarr-wasm: `make` builds, `make test` runs every suite, `make bench` runs
# the benchmarks beside the reference implementations.
PYTHON ?= /usr/bin/python3
GO ?= go
NODE ?= node
NPM ?= npm

.PHONY: all build test test-go vet fixtures bench fuzz
.PHONY: bench-startup wasm npm-deps test-js test-node test-browser test-zarrita-suite bench-js pack codecs-wasm check-codecs-wasm check-core-linked notices check-notices codes check-codes seaweedfs FORCE

all: build wasm

build:
	$(GO) build ./...

# vet also checks the format strings of internal/fmtx (the engine's own
# fmt) and of every wrapper of it; vet knows %w only for fmt.Errorf, so its
# complaint about fmtx.Errorf's %w is left out (internal/fmtx's
# TestCallSites checks %w). The go command's own progress lines (modules it
# downloads into an empty cache: `go: downloading ...`) are not findings.
FMTX = github.com/zarr-wasm/zarr-wasm/internal/fmtx
VET = $(GO) vet -printf.funcs=$(FMTX).Sprintf,$(FMTX).Errorf,$(FMTX).Appendf,$(FMTX).Sprint
VET_FILTER = 2>&1 | grep -v -e '^\#' -e '^go: downloading ' -e 'fmtx.Errorf does not support error-wrapping directive %w' | { ! grep .; }

vet:
	$(VET) ./... $(VET_FILTER)
	GOOS=js GOARCH=wasm $(VET) ./jsbridge/ ./wasm/ $(VET_FILTER)
	GOOS=js GOARCH=wasm $(VET) -tags zarrcore ./jsbridge/ ./wasm/ $(VET_FILTER)
	GOOS=js GOARCH=wasm $(VET) -tags zarrcore,zarricechunk ./jsbridge/ ./wasm/ $(VET_FILTER)

test: vet check-codecs-wasm check-core-linked check-notices check-codes seaweedfs test-go test-js test-demo

test-go: npm-deps
	$(GO) test -count=1 ./...

# SeaweedFS, the real S3 server (it verifies signatures) the object-store
# tests start: built once per machine into a cache folder the tests find
# ($$XDG_CACHE_HOME/zarr-wasm, or $$ZARR_WASM_CACHE), from the Go module
# proxy; the first build takes several minutes.
seaweedfs:
	GO=$(GO) bash tests/s3/build-seaweedfs.sh >/dev/null

# Regenerate the fixtures other implementations write (committed).
fixtures:
	$(PYTHON) tests/fixtures/v2/gen.py

bench: bench-js
	$(GO) test -run '^$$' -bench . -benchtime 2s ./zarr/...

# Short fuzzing runs of every fuzz target (the seed corpora run in `make test`).
# Each target runs with the engine's memory budget at 64 MiB, and an input
# that allocates more than 1 GiB in all fails it (tests/fuzzmem).
fuzz:
	for pkg in $$($(GO) list ./zarr/...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 30s -fuzzminimizetime 10x $$pkg || exit 1; \
	  done; \
	done

# ---- WebAssembly module and the npm package (npm/) ----------------------
# The .wasm is built lean (no net/http in it; -s -w, -trimpath); Go's
# wasm_exec.js is copied from the toolchain that built it (not committed).
# Inlining is off (-l) in the standard library's packages that reads do
# not loop in (encoding/json, fmt, reflect, time, strconv, ...): 8 % less
# brotli for the core build. The engine, every codec's package (lz4, bz2,
# xz, klauspost's and the standard library's compress and hash packages),
# the runtime and the small helpers hot loops call (encoding/binary, math,
# slices, ...) keep it.
WASM_INLINED = github.com/zarr-wasm/zarr-wasm/... github.com/pierrec/lz4/v4/... github.com/dsnet/compress/... \
  github.com/klauspost/compress/... github.com/ulikunitz/xz/... compress/... hash/... bufio runtime encoding/binary math math/bits \
  internal/byteorder unicode/utf8 slices bytes strings sync sync/atomic internal/runtime/maps internal/bytealg syscall/js
# Of the engine, the packages that only parse metadata, build errors and
# account memory per chunk are not inlined either (-6 KB brotli for the
# core build; parsing a v3 and a v2 array's metadata in WebAssembly, with
# / without it, 0.88-1.14x in 5 interleaved pairs, median 0.96x, load
# 1.3-1.4: no measurable cost). zarr/jsonx keeps inlining (its scanner reads large
# consolidated metadata). Later -gcflags patterns win.
WASM_COLD = github.com/zarr-wasm/zarr-wasm/zarr/meta github.com/zarr-wasm/zarr-wasm/zarr/errs github.com/zarr-wasm/zarr-wasm/zarr/budget \
  github.com/zarr-wasm/zarr-wasm/zarr/urlx github.com/zarr-wasm/zarr-wasm/zarr/icechunk github.com/zarr-wasm/zarr-wasm/internal/...
WASM_GCFLAGS = -gcflags=all=-l $(foreach p,$(WASM_INLINED),-gcflags=$(p)=) $(foreach p,$(WASM_COLD),-gcflags=$(p)=-l)
WASM_FLAGS = -trimpath -ldflags="-s -w" $(WASM_GCFLAGS)

# Three builds of the engine: zarr-core.wasm (reading, the common codecs;
# what the package loads first), zarr-icechunk.wasm (the core build and
# Icechunk repositories; loaded instead of it when IcechunkStore.open comes
# first) and zarr.wasm (everything; loaded when an array, a write or a
# reference set needs it).
wasm: npm/zarr.wasm npm/zarr-core.wasm npm/zarr-icechunk.wasm npm/wasm_exec.js

# internal/wasmdata then joins the module's static data into a few dozen
# segments (Go's linker writes one per run of non-zero bytes, ~60,000):
# the same memory at instantiation, 6-7 % less brotli.
npm/zarr.wasm: FORCE
	GOOS=js GOARCH=wasm $(GO) build $(WASM_FLAGS) -o $@ ./wasm
	$(GO) run ./internal/wasmdata $@

npm/zarr-core.wasm: FORCE
	GOOS=js GOARCH=wasm $(GO) build $(WASM_FLAGS) -tags zarrcore -o $@ ./wasm
	$(GO) run ./internal/wasmdata $@

npm/zarr-icechunk.wasm: FORCE
	GOOS=js GOARCH=wasm $(GO) build $(WASM_FLAGS) -tags zarrcore,zarricechunk -o $@ ./wasm
	$(GO) run ./internal/wasmdata $@

npm/wasm_exec.js: FORCE
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $@

FORCE:

# libzstd's and libdeflate's decoders (and Blosc's, glue.c), and (a second
# module, for writing) libzstd's and zlib's encoders, as WebAssembly: npm/lib/codecs.wasm and
# npm/lib/codecs-encode.wasm (committed, so building needs only Go).
# codecs-wasm regenerates them; check-codecs-wasm rebuilds them and fails if
# a committed file differs (needs Debian's clang, lld, wasi-libc,
# libclang-rt-14-dev-wasm32, and a deb-src line for libdeflate's source).
codecs-wasm:
	npm/codecs/build.sh

# check-core-linked builds the core module with its symbols and fails if
# it links what a read-only page should not download: github.com/pierrec/lz4
# (its package initialisation formats with fmt and reflect; Blosc's own LZ4
# decoder reads there), TensorStore specs' code (zarr/tsspec: only opening a
# spec, a full-build call, links its parsers), Icechunk (zarr/icechunk: 49 KB
# brotli; IcechunkStore.open starts the Icechunk build), encoding/json (the engine's
# JSON is zarr/jsonx), fmt (the engine formats with internal/fmtx; fmt's
# package init stays, as compress/flate and runtime/debug import it) and
# what only fmt and encoding/json reached: internal/fmtsort, time's parser
# and Time.GoString. (time's formatter stays: context.Context's Deadline
# puts time.Time in interfaces, and the runtime's panic printer calls
# String through one.) And reflect: the structs the core build's code
# decodes and encodes describe their fields to zarr/jsonx (jsonx.Fielder);
# reflect's package init stays (fmt and encoding/binary import it), with
# the one function its variables' initialisation calls (rtypeOf). The
# Icechunk build is held to the same list, less zarr/icechunk.
CORE_FORBIDDEN = pkg:github.com/pierrec/lz4/v4 pkg:github.com/zarr-wasm/zarr-wasm/zarr/tsspec pkg:github.com/zarr-wasm/zarr-wasm/zarr/icechunk pkg:encoding/json \
  pkg:fmt pkg:internal/fmtsort func:time.parse* func:time.Parse* func:time.Time.GoString pkg:reflect:rtypeOf

check-core-linked:
	@tmp=$$(mktemp -d); \
	GOOS=js GOARCH=wasm $(GO) build -trimpath $(WASM_GCFLAGS) -tags zarrcore -o $$tmp/core.wasm ./wasm && \
	$(NODE) tests/wasm/linked.mjs $$tmp/core.wasm $(CORE_FORBIDDEN); st=$$?; \
	if [ $$st -eq 0 ]; then \
	  GOOS=js GOARCH=wasm $(GO) build -trimpath $(WASM_GCFLAGS) -tags zarrcore,zarricechunk -o $$tmp/icechunk.wasm ./wasm && \
	  $(NODE) tests/wasm/linked.mjs $$tmp/icechunk.wasm $(filter-out pkg:github.com/zarr-wasm/zarr-wasm/zarr/icechunk,$(CORE_FORBIDDEN)); st=$$?; fi; \
	rm -rf $$tmp; \
	if [ $$st -ne 0 ]; then echo "check-core-linked: the core or Icechunk build links what it should not (above)" >&2; exit 1; fi; \
	echo "check-core-linked: the core build links none of $(CORE_FORBIDDEN); the Icechunk build none but zarr/icechunk"

# npm/LICENSE and npm/THIRD_PARTY_NOTICES.md (every Go module and C library
# compiled into the package, with its licence) are generated by
# npm/notices.sh; check-notices fails when they are not current.
notices:
	npm/notices.sh

check-notices:
	npm/notices.sh --check

# The error codes: zarr/errs/errs.go lists them; npm/lib/errors.js's codes,
# npm/index.d.ts's ZarrErrorCode and zarr/zarr.go's Code constants are
# generated from it (internal/errcodes). npm/lib/core.js's firstReads is
# generated from zarr.OpenFirstReads (internal/firstreads), and the viewer's
# modulepreload list in web/demo/index.html from its imports
# (internal/modulepreload). check-codes fails
# when they are not current.
codes:
	$(GO) run ./internal/errcodes
	$(GO) run ./internal/firstreads
	$(GO) run ./internal/modulepreload

check-codes:
	$(GO) run ./internal/errcodes -check
	$(GO) run ./internal/firstreads -check
	$(GO) run ./internal/modulepreload -check

check-codecs-wasm:
	@if ! command -v clang >/dev/null || [ ! -f /usr/lib/wasm32-wasi/libc.a ] || ! apt-cache showsrc libdeflate 2>/dev/null | grep -q '^Package: libdeflate'; then \
	  if [ "$$ZARR_WASM_REQUIRE_PEERS" = 1 ]; then echo "check-codecs-wasm: clang, wasi-libc or libdeflate's Debian source (a deb-src line) missing" >&2; exit 1; fi; \
	  echo "check-codecs-wasm: skipped (no clang/wasi-libc, or no deb-src line for libdeflate's source)"; exit 0; \
	fi; \
	tmp=$$(mktemp); tmp2=$$(mktemp); npm/codecs/build.sh "$$tmp" "$$tmp2" >/dev/null && cmp -s "$$tmp" npm/lib/codecs.wasm && cmp -s "$$tmp2" npm/lib/codecs-encode.wasm; st=$$?; rm -f "$$tmp" "$$tmp2"; \
	if [ $$st -ne 0 ]; then echo "npm/lib/codecs.wasm or codecs-encode.wasm is not what npm/codecs/build.sh builds (run make codecs-wasm)" >&2; exit 1; fi; \
	echo "check-codecs-wasm: npm/lib/codecs.wasm and codecs-encode.wasm rebuild byte for byte"

# devDependencies of the JS suites (zarrita, playwright-core, vite), from
# npm/package-lock.json.
# npm packages of the package's suites and of the Go tests' peers
# (zarrita.js as an oracle, hyparquet-writer for Parquet reference sets,
# the official Icechunk package as the oracle of Icechunk repositories).
npm-deps: npm/node_modules/.package-lock.json tests/oracle/node_modules/.package-lock.json tests/refs/node_modules/.package-lock.json tests/zarrita-suite/node_modules/.package-lock.json \
  tests/icechunk/node_modules/.package-lock.json

%/node_modules/.package-lock.json: %/package-lock.json
	cd $* && $(NPM) ci --no-audit --no-fund

# The npm tarball (npm/zarr-wasm-VERSION.tgz), with the .wasm inside.
pack: wasm
	cd npm && $(NPM) pack

test-js: test-node test-browser test-zarrita-suite

# Node suites: fixtures through FileSystemStore and FetchStore, the JS API,
# stores, CLI, and the differential test against zarrita.js.
test-node: wasm npm-deps
	$(NODE) --test tests/node/*.test.mjs

# zarrita.js's own tests (vitest) against this package: each test's
# outcome compared with tests/zarrita-suite/expected.tsv.
test-zarrita-suite: wasm npm-deps
	$(NODE) tests/zarrita-suite/run.mjs

# Debian's chromium driven by playwright-core: the package as it ships and
# bundled by Vite.
test-browser: wasm npm-deps
	$(NODE) --test tests/browser/*.test.mjs

# zarr-wasm vs zarrita.js on the same in-memory store (prints MB/s).
bench-js: wasm npm-deps
	$(NODE) tests/bench/bench.mjs
	$(NODE) tests/bench/metadata.mjs

# Startup (a fresh Node process, a fresh Chromium page) and the download
# beside zarrita.js, alone (the same sections end `make bench-js`).
bench-startup: wasm npm-deps
	$(NODE) tests/bench/startup.mjs

# ---- Demo viewer (web/demo) ---------------------------------------------
# `make demo` builds the .wasm, writes the sample data (web/demo/gen, into
# the gitignored web/demo/data) and serves the page on 127.0.0.1 (the first
# free port from 8080; the URL is printed).
DEMO_DATA = web/demo/data/.stamp
DEMO_ADDR ?= 127.0.0.1:8080

.PHONY: demo demo-data demo-deps test-demo

# The page's run-time libraries and data (web/demo/package.json: Natural
# Earth coastlines from world-atlas, proj4), served with it.
DEMO_DEPS = web/demo/node_modules/.package-lock.json
demo-deps: $(DEMO_DEPS)

demo: wasm demo-data demo-deps
	$(GO) run ./web/demo/serve -addr $(DEMO_ADDR)

demo-data: $(DEMO_DATA)

$(DEMO_DATA): $(wildcard web/demo/gen/*.go) $(shell find web/demo/gen/icechunk -type f 2>/dev/null) go.mod $(shell find zarr -name "*.go" ! -name "*_test.go" 2>/dev/null)
	$(GO) run ./web/demo/gen -out web/demo/data
	touch $@

# Debian's chromium loads the demo from web/demo/serve and checks what it
# draws (screenshots in tests/demo/out/).
test-demo: wasm npm-deps demo-data demo-deps
	$(NODE) --test tests/demo/*.test.mjs
