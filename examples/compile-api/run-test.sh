#!/usr/bin/env bash
# usage: run-test.sh BUILD_DIR WORK MODEL_DIR
# Installs kiln from BUILD_DIR into a scratch prefix, builds compile-model
# against the installed package, compiles MODEL_DIR/model.pt2 in-process with
# it and runs the model with the installed kiln-run against PyTorch's output;
# bad input must give exit 2 with a message and no output file.
set -euo pipefail
BUILD_DIR=$1; WORK=$2; MODEL_DIR=$3
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/../build-against-install.sh" "$BUILD_DIR" "$WORK" "$HERE" -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}"
out=$("$WORK/build/compile-model" "$MODEL_DIR/model.pt2" "$WORK/model.so")
echo "$out"
grep -q "^imported: [1-9]" <<<"$out" || { echo "no imported module"; exit 1; }
grep -q "^lowered: [1-9]" <<<"$out" || { echo "no lowered module"; exit 1; }
"$WORK/prefix/bin/kiln-run" "$WORK/model.so" --input "$MODEL_DIR/input0.npy" --expect "$MODEL_DIR/output0.npy"
# Bad input: a missing archive, and an unknown target.
set +e
err=$("$WORK/build/compile-model" "$WORK/missing.pt2" "$WORK/bad.so" 2>&1); rc=$?
set -e
[[ $rc == 2 && "$err" == *missing.pt2* ]] || { echo "missing archive: exit $rc: $err"; exit 1; }
set +e
err=$("$WORK/build/compile-model" "$MODEL_DIR/model.pt2" "$WORK/bad.so" tpu 2>&1); rc=$?
set -e
[[ $rc == 2 && "$err" == *"unknown target 'tpu'"* ]] || { echo "unknown target: exit $rc: $err"; exit 1; }
[[ ! -e "$WORK/bad.so" ]] || { echo "a failed compile left $WORK/bad.so"; exit 1; }
echo "compile API example: OK"
