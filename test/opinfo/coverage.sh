#!/bin/sh
# Runs the OpInfo suites and regenerates docs/op-coverage.md (one command).
# usage: test/opinfo/coverage.sh [BUILD_DIR]   (default: build)
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
tools="--kiln-compile $build/bin/kiln-compile --kiln-run $build/bin/kiln-run"
python3 "$here/run.py" $tools --work "$build/test/opinfo" || true
python3 "$here/run.py" $tools --data "$root/test/data/opinfo-entries" \
    --baseline "$here/baseline-entries.json" --work "$build/test/opinfo-entries" || true
python3 "$here/run.py" $tools --data "$root/test/data/opinfo-entries-dtypes" \
    --baseline "$here/baseline-entries-dtypes.json" --work "$build/test/opinfo-entries-dtypes" || true
python3 "$here/run_grad.py" $tools --work "$build/test/opinfo-entries-grad" || true
python3 "$here/run_vmap.py" $tools --work "$build/test/opinfo-vmap" || true
python3 "$here/report.py" --results "$build/test/opinfo/results.json" \
    --entries-results "$build/test/opinfo-entries/results.json" \
    --dtypes-results "$build/test/opinfo-entries-dtypes/results.json" \
    --grad-results "$build/test/opinfo-entries-grad/results.json" \
    --vmap-results "$build/test/opinfo-vmap/results.json"
