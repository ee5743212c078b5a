#!/usr/bin/env bash
# Packs the OpInfo entries suites for a GPU machine that has no LLVM: every
# archive of test/data/opinfo-entries (float32) and opinfo-entries-dtypes
# (16-bit and integer), both IRs, compiled here for CUDA in plain float32
# (run.py --target cuda --compile-only: the .so files and compiled.json,
# which records the archives that do not compile for CUDA), and kiln-run with
# the runtime and the libraries it needs. Suite entries-grad compiles the
# gradient suite's archives with --grad (run_grad.py --target cuda
# --compile-only). The samples, cotangents and PyTorch's outputs and
# gradients are the suites' own files, which the GPU machine's checkout has.
#   test/gpu/opinfo-pack.sh BUILD_DIR OUT.tar.xz [--gpu-arch=sm_NN] [SUITE...]
# SUITEs (entries, entries-dtypes, entries-grad) default to "entries
# entries-dtypes"; run there with test/gpu/opinfo-run.sh.
set -euo pipefail
build=$(cd "$1" && pwd); tarball=$(realpath -m "$2"); shift 2
arch=sm_90
if [[ ${1:-} == --gpu-arch=* ]]; then arch=${1#--gpu-arch=}; shift; fi
suites=("$@"); ((${#suites[@]})) || suites=(entries entries-dtypes)
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
python3 "$src/test/gpu/pack_util.py" copy-kiln-run "$build" "$out"
for s in "${suites[@]}"; do
  if [[ $s == entries-grad ]]; then  # gradients: kiln-compile --grad, run_grad.py's own runner
    python3 "$src/test/opinfo/run_grad.py" --target cuda --gpu-arch "$arch" --compile-only \
      --kiln-compile "$build/bin/kiln-compile" --work "$out/$s" --jobs "${JOBS:-2}"
  else
    python3 "$src/test/opinfo/run.py" --target cuda --gpu-arch "$arch" --compile-only \
      --kiln-compile "$build/bin/kiln-compile" --data "$src/test/data/opinfo-$s" --work "$out/$s" \
      --jobs "${JOBS:-2}"
  fi
  rm -rf "$out/$s/cases" "$out/$s/results" "$out/$s/forward" "$out/$s/gradients"  # the checkout there has them
done
tar -C "$out" -cJf "$tarball" .
echo "opinfo-pack: ${suites[*]} in $tarball ($(du -h "$tarball" | cut -f1))"
