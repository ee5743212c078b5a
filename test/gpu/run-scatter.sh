#!/usr/bin/env bash
# Runs the scatter cases test/gpu/scatter_cases.py made on a GPU, against
# PyTorch's outputs and gradients (three runs each: the CUDA graph replays).
#   test/gpu/run-scatter.sh CASES_DIR KILN_RUN
set -uo pipefail
pass=0 total=0
for d in "$1"/*/; do
  name=$(basename "$d"); total=$((total + 1))
  args=(--input "$d/input0.npy")
  for k in 1 2; do [ -f "$d/input$k.npy" ] && args+=(--input "$d/input$k.npy"); done
  if [ -f "$d/grads/cotangent0.npy" ]; then
    args+=(--cotangent "$d/grads/cotangent0.npy" --expect-grads "$d/grads")
  fi
  if out=$("$2" "$d/model.so" --device cuda "${args[@]}" --expect "$d/output0.npy" --runs 3 2>&1); then
    pass=$((pass + 1)); echo "$name: OK ($(echo "$out" | grep -c ': OK') comparisons)"
  else
    echo "$name: FAIL"; echo "$out" | tail -5
  fi
done
echo "run-scatter: $pass of $total cases pass"
[ "$pass" = "$total" ]
