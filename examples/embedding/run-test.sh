#!/usr/bin/env bash
# Installs kiln from BUILD_DIR into a scratch prefix, builds this example
# against the installed CMake package, and runs a kiln pipeline through it.
set -euo pipefail
BUILD_DIR=$1; WORK=$2
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/../build-against-install.sh" "$BUILD_DIR" "$WORK" "$HERE" -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}"
out=$("$WORK/build/embed-kiln" "$HERE/relu.mlir" kiln-lower-to-linalg)
grep -q "linalg.generic" <<<"$out" || { echo "no linalg.generic in:"; echo "$out"; exit 1; }
grep -q "arith.maximumf" <<<"$out" || { echo "relu was not lowered:"; echo "$out"; exit 1; }
out=$("$WORK/build/embed-kiln" "$HERE/relu.mlir" kiln-cpu-pipeline)
grep -q "llvm.func @forward" <<<"$out" || { echo "no llvm.func in:"; echo "$out"; exit 1; }
echo "embedding example: OK"
