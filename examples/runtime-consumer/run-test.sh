#!/usr/bin/env bash
# usage: run-test.sh BUILD_DIR WORK KILN_COMPILE MODEL.pt2 EXPECTED
# Installs kiln from BUILD_DIR into a scratch prefix, builds this example
# against the package's runtime component with MLIR made unfindable (the
# component must not need it), compiles MODEL.pt2 and runs it through the C
# ABI; the output must contain EXPECTED.
set -euo pipefail
BUILD_DIR=$1; WORK=$2; KILN_COMPILE=$3; MODEL=$4; EXPECTED=$5
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/../build-against-install.sh" "$BUILD_DIR" "$WORK" "$HERE" -DCMAKE_C_COMPILER="${CC:-clang-22}" \
  -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=TRUE
"$KILN_COMPILE" "$MODEL" -o "$WORK/model.so"
out=$("$WORK/build/run-model" "$WORK/model.so")
echo "$out"
grep -qF -- "$EXPECTED" <<<"$out" || { echo "expected '$EXPECTED' in the output"; exit 1; }
echo "runtime consumer: OK"
