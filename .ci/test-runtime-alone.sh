#!/usr/bin/env bash
# Builds the runtime alone (-DKILN_BUILD_COMPILER=OFF: no MLIR or LLVM) in its
# own small build folder and runs its unit tests and the layering check there.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
BUILD=${KILN_RUNTIME_BUILD_DIR:-build-runtime}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DKILN_BUILD_COMPILER=OFF -DKILN_ENABLE_PYTHON=OFF
fi
cmake --build "$BUILD" -j "$(nproc)"
# Nothing of MLIR or LLVM may have reached the runtime's build.
if grep -qiE '(^|[/ ])(mlir|llvm-[0-9]+/include)' "$BUILD/compile_commands.json"; then
  echo "test-runtime-alone: MLIR/LLVM include paths in the runtime-only build:" >&2
  grep -iE 'mlir|llvm-[0-9]+/include' "$BUILD/compile_commands.json" | head -5 >&2
  exit 1
fi
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"
