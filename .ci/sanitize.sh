#!/usr/bin/env bash
# Sanitizer jobs of the test command (docs/testing.md): the runtime, kiln-run and
# the runtime's tests built with ASan+UBSan and with TSan, in their own folders
# (runtime-only builds: the compiler is not rebuilt; ccache is shared).
#   asan: every runtime GoogleTest, then the end-to-end and kiln-run lit tests
#         with the sanitized kiln-run running models compiled by build/.
#   tsan: the concurrency tests (test/unittests/runtime/ConcurrencyTest.cpp).
#   .ci/sanitize.sh [asan] [tsan]        (default: both; needs build/ built first)
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
MAIN=${KILN_BUILD_DIR:-build}
JOBS=${KILN_JOBS:-$(nproc)}
KINDS=${*:-asan tsan}

configure() { # DIR SANITIZERS
  [ -f "$1/build.ninja" ] && return 0
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DKILN_BUILD_COMPILER=OFF -DKILN_ENABLE_PYTHON=OFF -DKILN_CUDA_SDPA_KERNELS=OFF \
    -DKILN_SANITIZE="$2" >/dev/null
}

for kind in $KINDS; do
  start=$(date +%s)
  case $kind in
  asan)
    configure build-asan address,undefined
    cmake --build build-asan -j "$JOBS"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export LSAN_OPTIONS=suppressions=$PWD/test/sanitizers/lsan.supp:print_suppressions=0
    ctest --test-dir build-asan --output-on-failure -j "$JOBS"
    # Models compiled by the normal build, run by the sanitized kiln-run, leaks
    # checked (a run that fails part-way frees what it had allocated).
    /usr/lib/llvm-22/bin/lit -q -j "$JOBS" --param kiln_run_dir="$PWD/build-asan/bin" \
      "$MAIN/test/e2e" "$MAIN/test/tools/kiln-run"
    unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
    ;;
  tsan)
    configure build-tsan thread
    cmake --build build-tsan -j "$JOBS" --target kiln-concurrency-tests
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/test/sanitizers/tsan.supp \
      build-tsan/bin/kiln-concurrency-tests
    ;;
  *) echo "sanitize.sh: unknown job '$kind' (asan, tsan)" >&2; exit 2 ;;
  esac
  echo "sanitize.sh: $kind took $(( $(date +%s) - start )) s"
done
