# zarr-wasm: `make` builds, `make test` runs every suite, `make bench` runs
# the benchmarks beside the reference implementations.
PYTHON ?= /usr/bin/python3
GO ?= go
NODE ?= node
NPM ?= npm

.PHONY: all build test test-go vet fixtures bench fuzz
.PHONY: wasm npm-deps test-js test-node test-browser bench-js pack codecs-wasm check-codecs-wasm FORCE

all: build wasm

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./jsbridge/ ./wasm/

test: vet check-codecs-wasm test-go test-js test-demo

test-go: npm-deps
	$(GO) test -count=1 ./...

# Regenerate the fixtures other implementations write (committed).
fixtures:
	$(PYTHON) tests/fixtures/v2/gen.py

bench: bench-js
	$(GO) test -run '^$$' -bench . -benchtime 2s ./zarr/...

# Short fuzzing runs of every fuzz target (the seed corpora run in `make test`).
fuzz:
	for pkg in $$($(GO) list ./zarr/...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 30s -fuzzminimizetime 10x $$pkg || exit 1; \
	  done; \
	done

# ---- WebAssembly module and the npm package (npm/) ----------------------
# The .wasm is built lean (no net/http in it; -s -w, -trimpath); Go's
# wasm_exec.js is copied from the toolchain that built it (not committed).
WASM_FLAGS = -trimpath -ldflags="-s -w"

wasm: npm/zarr.wasm npm/wasm_exec.js

npm/zarr.wasm: FORCE
	GOOS=js GOARCH=wasm $(GO) build $(WASM_FLAGS) -o $@ ./wasm

npm/wasm_exec.js: FORCE
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $@

FORCE:

# libzstd's decompressor and zlib's inflate as WebAssembly, base64 in
# npm/lib/codecs-module.js (committed, so building needs only Go).
# codecs-wasm regenerates it; check-codecs-wasm rebuilds it and fails if the
# committed file differs (needs Debian's clang, lld, wasi-libc,
# libclang-rt-14-dev-wasm32).
codecs-wasm:
	npm/codecs/build.sh

check-codecs-wasm:
	@if ! command -v clang >/dev/null || [ ! -f /usr/lib/wasm32-wasi/libc.a ]; then \
	  if [ "$$ZARR_WASM_REQUIRE_PEERS" = 1 ]; then echo "check-codecs-wasm: clang or wasi-libc missing" >&2; exit 1; fi; \
	  echo "check-codecs-wasm: skipped (no clang/wasi-libc)"; exit 0; \
	fi; \
	tmp=$$(mktemp); npm/codecs/build.sh "$$tmp" >/dev/null && cmp -s "$$tmp" npm/lib/codecs-module.js; st=$$?; rm -f "$$tmp"; \
	if [ $$st -ne 0 ]; then echo "npm/lib/codecs-module.js is not what npm/codecs/build.sh builds (run make codecs-wasm)" >&2; exit 1; fi; \
	echo "check-codecs-wasm: npm/lib/codecs-module.js rebuilds byte for byte"

# devDependencies of the JS suites (zarrita, playwright-core, vite), from
# npm/package-lock.json.
# npm packages of the package's suites and of the Go tests' peers
# (zarrita.js as an oracle, hyparquet-writer for Parquet reference sets).
npm-deps: npm/node_modules/.package-lock.json tests/oracle/node_modules/.package-lock.json tests/refs/node_modules/.package-lock.json

%/node_modules/.package-lock.json: %/package-lock.json
	cd $* && $(NPM) ci --no-audit --no-fund

# The npm tarball (npm/zarr-wasm-VERSION.tgz), with the .wasm inside.
pack: wasm
	cd npm && $(NPM) pack

test-js: test-node test-browser

# Node suites: fixtures through FileSystemStore and FetchStore, the JS API,
# stores, CLI, and the differential test against zarrita.js.
test-node: wasm npm-deps
	$(NODE) --test tests/node/*.test.mjs

# Debian's chromium driven by playwright-core: the package as it ships and
# bundled by Vite.
test-browser: wasm npm-deps
	$(NODE) --test tests/browser/*.test.mjs

# zarr-wasm vs zarrita.js on the same in-memory store (prints MB/s).
bench-js: wasm npm-deps
	$(NODE) tests/bench/bench.mjs

# ---- Demo viewer (web/demo) ---------------------------------------------
# `make demo` builds the .wasm, writes the sample data (web/demo/gen, into
# the gitignored web/demo/data) and serves the page on 127.0.0.1 (the first
# free port from 8080; the URL is printed).
DEMO_DATA = web/demo/data/.stamp
DEMO_ADDR ?= 127.0.0.1:8080

.PHONY: demo demo-data test-demo

demo: wasm demo-data
	$(GO) run ./web/demo/serve -addr $(DEMO_ADDR)

demo-data: $(DEMO_DATA)

$(DEMO_DATA): web/demo/gen/main.go go.mod $(shell find zarr -name "*.go" ! -name "*_test.go" 2>/dev/null)
	$(GO) run ./web/demo/gen -out web/demo/data
	touch $@

# Debian's chromium loads the demo from web/demo/serve and checks what it
# draws (screenshots in tests/demo/out/).
test-demo: wasm npm-deps demo-data
	$(NODE) --test tests/demo/*.test.mjs
