#!/usr/bin/env bash
# The corpus round trip on a GPU: every case test/gpu/pack.sh packed (each
# shared corpus case compiled with --target=cuda, its sample inputs and
# PyTorch's float32 outputs) runs through `kiln-run --device cuda --expect`,
# with CUDA graphs (the default; three runs, so replays are checked) and
# once kernel by kernel; one line per
# case and a count. Tolerances are the corpus README's: |kiln - torch| <=
# 1e-5 + rtol * |torch| elementwise, rtol 1e-4, 1e-3 for the 224x224 CNNs,
# for the plain float32 build (--cuda-tf32=none). Where the default build
# differs (TF32 convolutions, as PyTorch's defaults), it runs too, against
# PyTorch's TF32 test precision: rtol = atol = 5e-3.
# A case that did not compile for CUDA is a FAIL line with the compiler's
# first error.
# With KILN_SANITIZER=memcheck|racecheck|synccheck|initcheck every kiln-run
# runs under CUDA's compute-sanitizer with that tool: a case passes only if
# its numbers match and the tool reports no error (docs/testing.md).
#   test/gpu/run-corpus.sh PACK_DIR [REPO_ROOT]
# Needs nothing but bash and the packed kiln-run; with python3 there, the
# cuDNN of PyTorch's pip packages is found for the convolutions (unless
# KILN_CUDNN is set or the loader finds libcudnn.so.9). REPO_ROOT (the
# checkout whose test/data/corpus holds the .pt2 archives the models read
# their weights from) defaults to PACK_DIR/../..
set -uo pipefail
. "$(dirname "$0")/pack-env.sh" "$@"
kiln_run=$pack/bin/kiln-run
san=()
if [ -n "${KILN_SANITIZER:-}" ]; then
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  san=("$sanitizer" --tool "$KILN_SANITIZER" --error-exitcode 86 --print-limit 5)
fi
# Plugins pack.sh carried (custom ops that run on the host between kernels).
plugins=()
for p in "$pack"/lib/plugins/*.so; do [ -f "$p" ] && plugins+=(--plugin "$p"); done
pass=0 total=0
for dir in "$pack"/models/*/; do
  case=$(basename "$dir")
  [ -f "$dir/inputs.json" ] && continue  # synthetic cases have no PyTorch numbers (check.py runs them)
  total=$((total + 1))
  if [ -f "$dir/compile-error.txt" ]; then
    echo "$case: FAIL (does not compile for CUDA: $(grep -m1 -i error "$dir/compile-error.txt" | cut -c1-200))"
    continue
  fi
  # 224x224 images: PyTorch itself needs rtol 1e-3 across devices for these CNNs.
  rtol=1e-4
  case $case in squeezenet1_1*|mobilenet_v3_small*) rtol=1e-3 ;; esac
  args=("$dir/cuda.so" "${plugins[@]}" --device cuda --weights "$repo/$(cat "$dir/weights.txt")" --rtol "$rtol" --atol 1e-5)
  for f in $(ls -v "$dir"/input*.npy); do args+=(--input "$f"); done
  for f in $(ls -v "$dir"/output*.npy); do args+=(--expect "$f"); done
  ok=1 detail=""
  for mode in graphs no-graphs; do
    # With graphs, three runs: the first captures, the later ones replay the
    # captured graph, and --expect checks the last run's outputs.
    extra=(--runs 3); [ $mode == no-graphs ] && extra=(--no-cuda-graphs)
    if ! text=$("${san[@]}" "$kiln_run" "${args[@]}" "${extra[@]}" 2>&1); then ok=0; fi
    # "output0 vs 'path': max abs err E (..., rel ...): OK": keep what follows the path.
    detail+="$mode: $(echo "$text" | sed -n "s/^.* vs '[^']*': //p" | tr '\n' ';' | sed 's/;$//')"
    [ $ok == 1 ] || detail+=" [$(echo "$text" | grep -v " vs '" | tail -n 3 | tr '\n' ' ')]"
    detail+="  "
  done
  if [ -f "$dir/cuda-tf32.so" ]; then
    tf=("$dir/cuda-tf32.so" "${args[@]:1}" --rtol 5e-3 --atol 5e-3)
    if ! text=$("${san[@]}" "$kiln_run" "${tf[@]}" 2>&1); then ok=0; fi
    detail+="tf32 (5e-3): $(echo "$text" | sed -n "s/^.* vs '[^']*': //p" | tr '\n' ';' | sed 's/;$//')"
  fi
  if [ $ok == 1 ]; then pass=$((pass + 1)); echo "$case: PASS (rtol $rtol) $detail"
  else echo "$case: FAIL (rtol $rtol) $detail"; fi
done
echo "run-corpus${KILN_SANITIZER:+ (compute-sanitizer --tool $KILN_SANITIZER)}: $pass of $total cases pass on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
[ $pass == $total ] && [ $total -gt 0 ]
