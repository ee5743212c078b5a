#!/usr/bin/env bash
# Configures (once) and builds kiln into build/ with clang-22, ninja and ccache.
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths under the checkout hash as relative ones, so a fresh clone elsewhere hits the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
BUILD=${KILN_BUILD_DIR:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
cmake --build "$BUILD" -j "$(nproc)"
