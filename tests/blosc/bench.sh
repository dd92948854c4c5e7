#!/usr/bin/env bash
# Benchmark zarr/blosc decoding natively, as GOOS=js GOARCH=wasm under Node,
# and c-blosc (python-blosc) on the same 4 MiB float32 data and the same
# c-blosc-written chunks, then print a table of medians.
#
# Usage: tests/blosc/bench.sh [COUNT]      (run from anywhere inside the repo)
# Env:   BLOSC_BENCH_DIR  work directory (default /tmp/blosc-bench)
#        BENCHTIME        go -benchtime (default 1s)
# Needs: go, node, /usr/bin/python3 with python3-blosc and python3-numpy.
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
COUNT=${1:-5}
D=${BLOSC_BENCH_DIR:-/tmp/blosc-bench}
BENCHTIME=${BENCHTIME:-1s}
PY=/usr/bin/python3
mkdir -p "$D"
export BLOSC_BENCH_DIR="$D"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

echo "# 1. benchmark data -> $D/data.f32"
go test -run '^TestWriteBenchData$' -count=1 ./zarr/blosc >/dev/null

echo "# 2. c-blosc: compress (writes $D/cblosc-*.blosc) and time decompression"
$PY tests/blosc/bench_cblosc.py "$D" "$((COUNT + 2))" | tee "$D/cblosc.txt"

echo "# 3. Go native: go test -bench (decodes the c-blosc chunks)"
go test -run '^$' -bench '^Benchmark(Decode|DecodeParallel|Encode)$' -benchtime "$BENCHTIME" -count "$COUNT" ./zarr/blosc | tee "$D/native.txt" | grep -E '^Benchmark' || true

echo "# 4. Go js/wasm under Node $(node --version)"
GOOS=js GOARCH=wasm go test -c -o "$D/blosc.test.wasm" ./zarr/blosc
(cd zarr/blosc && "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" "$D/blosc.test.wasm" \
    -test.run '^$' -test.bench '^BenchmarkDecode$' -test.benchtime "$BENCHTIME" -test.count "$COUNT") \
    | tee "$D/wasm.txt" | grep -E '^Benchmark' || true

echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
$PY tests/blosc/bench_table.py "$D"
