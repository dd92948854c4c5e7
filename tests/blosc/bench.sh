#!/usr/bin/env bash
# Benchmark zarr/blosc decoding natively, as GOOS=js GOARCH=wasm under Node,
# and c-blosc (python-blosc) on the same 4 MiB float32 data and the same
# c-blosc-written chunks, then print a table of medians.
#
# The three are run in interleaved rounds (c-blosc, Go native, Go wasm, then
# again), so that a machine whose load changes over time affects all of
# them alike; the table shows the median MB/s over the rounds and the median
# of the per-round ratios.
#
# Usage: tests/blosc/bench.sh [ROUNDS]     (default 5; run from anywhere inside the repo)
# Env:   BLOSC_BENCH_DIR  work directory (default /tmp/blosc-bench)
#        BENCHTIME        go -benchtime per benchmark and round (default 1s)
# Needs: go, node, /usr/bin/python3 with python3-blosc and python3-numpy.
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
ROUNDS=${1:-5}
D=${BLOSC_BENCH_DIR:-/tmp/blosc-bench}
BENCHTIME=${BENCHTIME:-1s}
PY=/usr/bin/python3
mkdir -p "$D"
export BLOSC_BENCH_DIR="$D"
rm -f "$D"/native.txt "$D"/wasm.txt "$D"/cblosc-round*.json
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs); $(go version); node $(node --version)"

# benchmark data (Go writes it; everyone reads it) and the wasm test binary
go test -run '^TestWriteBenchData$' -count=1 ./zarr/blosc >/dev/null
GOOS=js GOARCH=wasm go test -c -o "$D/blosc.test.wasm" ./zarr/blosc
go test -c -o "$D/blosc.test" ./zarr/blosc

for r in $(seq 1 "$ROUNDS"); do
    echo "# round $r/$ROUNDS: c-blosc"
    # compresses the data with c-blosc (writes $D/cblosc-<config>.blosc) and times decompression
    $PY tests/blosc/bench_cblosc.py "$D" 3 >/dev/null
    mv "$D/cblosc.json" "$D/cblosc-round$r.json"
    echo "# round $r/$ROUNDS: Go native"
    (cd zarr/blosc && "$D/blosc.test" -test.run '^$' -test.bench '^Benchmark(Decode|DecodeParallel|Encode)$' \
        -test.benchtime "$BENCHTIME" -test.count 1) >> "$D/native.txt"
    echo "# round $r/$ROUNDS: Go js/wasm in Node"
    (cd zarr/blosc && "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" "$D/blosc.test.wasm" \
        -test.run '^$' -test.bench '^BenchmarkDecode$' -test.benchtime "$BENCHTIME" -test.count 1) >> "$D/wasm.txt"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
$PY tests/blosc/bench_table.py "$D"
