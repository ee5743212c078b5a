#!/usr/bin/env bash
# Builds kiln's libFuzzer targets (KILN_FUZZ=ON, in build-fuzz/) and runs each for a while.
#
#   .ci/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]     (default: 60 s, every target)
#   KILN_FUZZ_RUNS=1000000 .ci/fuzz.sh 0 TARGET...    (a number of executions instead)
#
# Each target keeps a growing corpus in build-fuzz/fuzz/corpus/<target>/, seeded
# from the repository's archives, .npy files, manifests and schemas; crashes go
# to build-fuzz/fuzz/artifacts/. Runs at nice 19 on one core: fuzzing is
# CPU-heavy and machines are shared. Prints the executions each target reached.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
# The instrumented objects are built with -g, and ccache then hashes the build
# folder's path too (hash_dir): a worktree's build-fuzz/ missed every object
# another checkout had built. Without it, the objects are shared like the rest.
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
SECONDS_EACH=${1:-60}
shift || true
BUILD=${KILN_FUZZ_BUILD_DIR:-build-fuzz}
ALL="fuzz-pt2-import fuzz-eager-load fuzz-pt2-weights fuzz-npy fuzz-schema fuzz-manifest"
TARGETS=${*:-$ALL}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit -DKILN_FUZZ=ON -DKILN_CUDA_SDPA_KERNELS=OFF \
    -DKILN_ENABLE_PYTHON=OFF >/dev/null
fi
# shellcheck disable=SC2086
nice -n 10 cmake --build "$BUILD" -j "${KILN_FUZZ_JOBS:-2}" --target $TARGETS

FUZZ=$BUILD/fuzz
mkdir -p "$FUZZ/artifacts"
seed() { # seed TARGET FILE...
  local dir=$FUZZ/seeds/$1; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp -n "$f" "$dir/$(echo "$f" | tr / _)"; done
}
# Small archives only: an execution's cost grows with the archive, and the
# repository's small test graphs (shapes, composites, errors) reach more of the
# importer per second than a few large models do.
# Members no reader opens (sample inputs, version markers) are dropped from all
# but the 6 smallest, so edits of raw members land on members kiln reads.
small_archives=$( (find test/data "${KILN_BUILD_DIR:-build}/test/data/models" -name '*.pt2' -size -100k 2>/dev/null || true) | sort)
for t in fuzz-pt2-import fuzz-eager-load fuzz-pt2-weights; do
  # shellcheck disable=SC2086
  python3 test/fuzz/trim_seeds.py "$FUZZ/seeds/$t" 6 $small_archives
done
# shellcheck disable=SC2046
seed fuzz-npy $(find test/data/corpus -name '*.npy' -size -64k | sort)
# shellcheck disable=SC2046
seed fuzz-schema $(find test/fuzz/seeds/schema -type f | sort)
# shellcheck disable=SC2046
seed fuzz-manifest $(find test/fuzz/seeds/manifest -type f | sort)

# Inputs that once failed (test/fuzz/regressions/<target>/, each also a test of
# the normal suite) seed their target too.
for t in $TARGETS; do
  # shellcheck disable=SC2046
  seed $t $(find test/fuzz/regressions/$t -type f 2>/dev/null | sort)
done

status=0
for t in $TARGETS; do
  mkdir -p "$FUZZ/corpus/$t"
  log=$FUZZ/$t.log
  if [ -n "${KILN_FUZZ_RUNS:-}" ]; then
    limit="-runs=$KILN_FUZZ_RUNS"
    echo "== $t for $KILN_FUZZ_RUNS executions"
  else
    limit="-max_total_time=$SECONDS_EACH"
    echo "== $t for ${SECONDS_EACH}s"
  fi
  start=$(date +%s)
  if ! nice -n 19 "$FUZZ/$t" "$limit" -rss_limit_mb=3072 -timeout=20 \
      -max_len=400000 -print_final_stats=1 -artifact_prefix="$FUZZ/artifacts/$t-" \
      "$FUZZ/corpus/$t" "$FUZZ/seeds/$t" >"$log" 2>&1; then
    echo "   FOUND A FAILURE: see $log and $FUZZ/artifacts/"
    grep -m3 -E "ERROR: |runtime error|==ERROR" "$log" || true
    status=1
  fi
  grep -E "^stat::number_of_executed_units|Done [0-9]+ runs" "$log" | tail -1 | sed 's/^/   /'
  echo "   $(( $(date +%s) - start )) s"
done
exit $status
