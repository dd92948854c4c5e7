# zarr-wasm: `make` builds, `make test` runs every suite, `make bench` runs
# the benchmarks beside the reference implementations.
PYTHON ?= /usr/bin/python3
GO ?= go

.PHONY: all build test test-go vet fixtures bench fuzz

all: build

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...

test: vet test-go

test-go:
	$(GO) test -count=1 ./...

# Regenerate the fixtures other implementations write (committed).
fixtures:
	$(PYTHON) tests/fixtures/v2/gen.py

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./zarr/...

# Short fuzzing runs of every fuzz target (the seed corpora run in `make test`).
fuzz:
	for pkg in $$($(GO) list ./zarr/...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 30s -fuzzminimizetime 10x $$pkg || exit 1; \
	  done; \
	done
