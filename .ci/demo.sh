#!/usr/bin/env bash
# Sets up, builds, then compiles an example model shipped in the repo, runs it
# and compares with PyTorch's own output.
set -euo pipefail
cd "$(dirname "$0")/.."
.ci/setup.sh
.ci/build.sh
B=${KILN_BUILD_DIR:-build}
M=test/data/corpus/convnet
mkdir -p "$B/demo"
"$B/bin/kiln-compile" "$M/model.pt2" -o "$B/demo/convnet.so" --timing
"$B/bin/kiln-run" "$B/demo/convnet.so" --input "$M/input0.npy" --expect "$M/output0.npy" \
  --output-dir "$B/demo/out" --bench 50
