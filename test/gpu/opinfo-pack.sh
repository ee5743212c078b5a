#!/usr/bin/env bash
# Packs the OpInfo entries suites for a GPU machine that has no LLVM: every
# archive of test/data/opinfo-entries (float32) and opinfo-entries-dtypes
# (16-bit and integer), both IRs, compiled here for CUDA in plain float32
# (run.py --target cuda --compile-only: the .so files and compiled.json,
# which records the archives that do not compile for CUDA), and kiln-run with
# the runtime and the libraries it needs. The samples and PyTorch's outputs
# are the suites' own .npy files, which the GPU machine's checkout has.
#   test/gpu/opinfo-pack.sh BUILD_DIR OUT.tar.xz [--gpu-arch=sm_NN] [SUITE...]
# SUITEs default to "entries entries-dtypes"; run there with test/gpu/opinfo-run.sh.
set -euo pipefail
build=$(cd "$1" && pwd); tarball=$(realpath -m "$2"); shift 2
arch=sm_90
if [[ ${1:-} == --gpu-arch=* ]]; then arch=${1#--gpu-arch=}; shift; fi
suites=("$@"); ((${#suites[@]})) || suites=(entries entries-dtypes)
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
python3 "$src/test/gpu/pack_util.py" copy-kiln-run "$build" "$out"
for s in "${suites[@]}"; do
  python3 "$src/test/opinfo/run.py" --target cuda --gpu-arch "$arch" --compile-only \
    --kiln-compile "$build/bin/kiln-compile" --data "$src/test/data/opinfo-$s" --work "$out/$s" \
    --jobs "${JOBS:-2}"
  rm -rf "$out/$s/cases" "$out/$s/results"  # the checkout there has the cases
done
tar -C "$out" -cJf "$tarball" .
echo "opinfo-pack: ${suites[*]} in $tarball ($(du -h "$tarball" | cut -f1))"
