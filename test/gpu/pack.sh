#!/usr/bin/env bash
# Packs what test/gpu/check.py needs on a GPU machine that has no LLVM: every
# corpus case compiled for CUDA (and for a generic x86-64 CPU, the reference of
# the differential check), its sample inputs and PyTorch's outputs, kiln-run,
# libkiln_runtime and the shared libraries they need beyond glibc. Models are
# compiled with external weights: they are read from the case's .pt2, whose
# path relative to the repository root is written to weights.txt (the GPU
# machine has the repository).
#   test/gpu/pack.sh BUILD_DIR OUT_DIR [--gpu-arch=sm_NN] [CORPUS_DIR]...
# CORPUS_DIRs default to test/data/corpus (e.g. add ../shared/corpus for the
# larger cases).
set -euo pipefail
build=$(cd "$1" && pwd); out=$2; shift 2
arch=--gpu-arch=sm_90
if [[ ${1:-} == --gpu-arch=* ]]; then arch=$1; shift; fi
src=$(cd "$(dirname "$0")/../.." && pwd)
corpora=("$@")
((${#corpora[@]})) || corpora=("$src/test/data/corpus")
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib" "$out/models"
# kiln-run, the runtime and the libraries they link besides libc/libstdc++ (the
# GPU image may lack them).
python3 "$src/test/gpu/pack_util.py" copy-kiln-run "$build" "$out"
cp "$build/bin/kiln-gpu-graph-check" "$build/bin/kiln-gpu-fault-check" "$out/bin/"
cp "$src/test/gpu/check.py" "$src/bench/cudnn_env.py" "$out/"
# The example plugin (kilntest::scaled_gelu): the custom_op case's op runs on
# the host between kernels through the runtime's dispatcher.
plugin=()
if [ -f "$build/lib/libkiln_example_ops.so" ]; then
  mkdir -p "$out/lib/plugins"
  cp "$build/lib/libkiln_example_ops.so" "$out/lib/plugins/"
  plugin=(--plugin "$build/lib/libkiln_example_ops.so")
fi
# A plugin whose kernel throws (test/gpu/faults.sh: a failure between kernels).
# Kept out of lib/plugins, whose plugins every corpus run loads.
throwing=$build/test/unittests/runtime/dispatch/plugins/libkiln_throwing_ops.so
if [ -f "$throwing" ]; then mkdir -p "$out/lib/faults" && cp "$throwing" "$out/lib/faults/"; fi
compiled=0
declare -A seen
for case_dir in $(for c in "${corpora[@]}"; do ls -d "$c"/*/; done); do
  case=$(basename "$case_dir")
  [ -n "${seen[$case]:-}" ] && continue  # the first corpus that has a case wins
  seen[$case]=1
  for variant in model model.core; do
    [ -f "$case_dir/$variant.pt2" ] || continue
    name=$case${variant#model}
    dst="$out/models/$name"
    mkdir -p "$dst"
    # The CPU build is check.py's differential reference; a case without one
    # (e.g. an op only a plugin provides) is still compiled for CUDA.
    "$build/bin/kiln-compile" "$case_dir/$variant.pt2" "${plugin[@]}" --weights=external --cpu=x86-64-v2 -o "$dst/cpu.so" \
      2>/dev/null || echo "pack: $name does not compile for the CPU"
    # cuda.so multiplies in plain float32 (--cuda-tf32=none), so PyTorch's
    # float32 tolerances apply; cuda-tf32.so is the default build (TF32
    # convolutions, as PyTorch's defaults), kept where it differs.
    if ! "$build/bin/kiln-compile" "$case_dir/$variant.pt2" "${plugin[@]}" --weights=external --target=cuda "$arch" --cuda-tf32=none \
        -o "$dst/cuda.so" 2>"$dst/compile-error.txt"; then
      echo "pack: $name FAILS to compile for CUDA:"; cat "$dst/compile-error.txt"; continue
    fi
    rm -f "$dst/compile-error.txt"
    "$build/bin/kiln-compile" "$case_dir/$variant.pt2" "${plugin[@]}" --weights=external --target=cuda "$arch" -o "$dst/cuda-tf32.so"
    if cmp -s "$dst/cuda.so" "$dst/cuda-tf32.so"; then rm "$dst/cuda-tf32.so"; fi
    realpath --relative-to="$src" "$case_dir/$variant.pt2" > "$dst/weights.txt"
    cp "$case_dir"/input*.npy "$case_dir"/output*.npy "$dst/"
    compiled=$((compiled + 1))
  done
done
# Synthetic cases (an aten .mlir and the shapes of its random inputs), built
# with cuBLAS GEMMs and with generated GEMM kernels, in plain float32
# (--cuda-tf32=none: check.py's 1e-4 tolerance assumes no TF32).
for case_dir in "$src"/test/gpu/cases/*/; do
  case=$(basename "$case_dir"); dst="$out/models/$case"
  mkdir -p "$dst"
  "$build/bin/kiln-compile" "$case_dir/model.mlir" --cpu=x86-64-v2 -o "$dst/cpu.so"
  "$build/bin/kiln-compile" "$case_dir/model.mlir" --target=cuda "$arch" --cuda-tf32=none -o "$dst/cuda.so"
  "$build/bin/kiln-compile" "$case_dir/model.mlir" --target=cuda "$arch" --cuda-tf32=none --cuda-gemm=kernel \
    -o "$dst/cuda-kernel-gemm.so"
  cp "$case_dir/inputs.json" "$dst/"
  compiled=$((compiled + 1))
done
# More sample batches of the dynamic MLP (PyTorch's outputs for batch 1, 8 and 1024).
if [ -d "$out/models/mlp_dynamic" ]; then
  for b in 1 8 1024; do
    mkdir -p "$out/models/mlp_dynamic/batch$b"
    cp "$src/test/data/mlp_dynamic_batches/input_b$b.npy" "$out/models/mlp_dynamic/batch$b/input0.npy"
    cp "$src/test/data/mlp_dynamic_batches/output_b$b.npy" "$out/models/mlp_dynamic/batch$b/output0.npy"
  done
fi
echo "pack: $compiled models in $out ($(du -sh "$out" | cut -f1))"
