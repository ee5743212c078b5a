#!/usr/bin/env bash
# GPU faults and concurrency, on a GPU machine, with a pack from test/gpu/pack.sh:
#  1. kiln-gpu-fault-check on every corpus case of the pack: two host threads
#     sharing one loaded model give the results of runs made one at a time;
#     running out of GPU memory is an error status (RESOURCE_EXHAUSTED), and
#     the model and the process are usable once memory is back;
#  2. the two-thread check again under compute-sanitizer memcheck and racecheck;
#  3. kiln-run with cuDNN or cuBLASLt missing (KILN_CUDNN / KILN_CUBLASLT naming no
#     library): exit 3 and a message naming the library;
#  4. a plugin kernel that throws inside a CUDA model: exit 3, the plugin's message;
#  5. a kernel launch that fails (KILN_FAULT_LAUNCH): an error status, the same
#     model runs again in the process; kiln-run exits 3.
# One line per check and a count; exits 1 if any check fails.
#   test/gpu/faults.sh PACK_DIR [REPO_ROOT]
set -uo pipefail
. "$(dirname "$0")/pack-env.sh" "$@"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
check=$pack/bin/kiln-gpu-fault-check kiln_run=$pack/bin/kiln-run
plugins=()
for p in "$pack"/lib/plugins/libkiln_example_ops.so; do [ -f "$p" ] && plugins+=(--plugin "$p"); done
pass=0 total=0
result() { # result OK|FAIL LINE
  total=$((total + 1)); [ "$1" == OK ] && pass=$((pass + 1)); echo "$2: $1"
}
case_args() { # case_args DIR: the model, its weights and plugins, samples -- PyTorch's outputs
  local dir=$1
  args=("$dir/cuda.so" --weights "$repo/$(cat "$dir/weights.txt")" "${plugins[@]}")
  for f in $(ls -v "$dir"/input*.npy); do args+=("$f"); done
  args+=(--)
  for f in $(ls -v "$dir"/output*.npy); do args+=("$f"); done
}

for dir in "$pack"/models/*/; do
  case=$(basename "$dir")
  [ -f "$dir/inputs.json" ] || [ ! -f "$dir/cuda.so" ] && continue
  rtol=1e-4
  case $case in squeezenet1_1*|mobilenet_v3_small*) rtol=1e-3 ;; esac
  case_args "$dir"
  text=$("$check" "${args[@]}" --rtol $rtol --atol 1e-5 --random 3 2>&1); rc=$?
  echo "$text" | sed "s/^/$case: /"
  result "$([ $rc == 0 ] && echo OK || echo FAIL)" "$case: fault check (threads, out of memory)"
  for tool in memcheck racecheck; do
    text=$("$sanitizer" --tool $tool --error-exitcode 86 --print-limit 5 "$check" "${args[@]}" \
      --rtol $rtol --atol 1e-5 --random 2 --only threads 2>&1); rc=$?
    [ $rc != 0 ] && echo "$text" | tail -n 8 | sed "s/^/$case $tool: /"
    result "$([ $rc == 0 ] && echo OK || echo FAIL)" "$case: two threads under compute-sanitizer $tool (exit $rc)"
  done
done

# A kernel launch that fails (the runtime's KILN_FAULT_LAUNCH makes the 2nd
# launch of the process fail): an error status, then the model runs again; and
# kiln-run's exit code for it.
for c in mlp convnet; do
  dir=$pack/models/$c
  [ -f "$dir/cuda.so" ] || { result FAIL "$c not in the pack"; continue; }
  case_args "$dir"
  text=$(KILN_FAULT_LAUNCH=2 "$check" "${args[@]}" --only launch 2>&1); rc=$?
  echo "$text" | sed "s/^/$c: /"
  result "$([ $rc == 0 ] && echo OK || echo FAIL)" "$c: a failed launch, then the model runs again"
  cmd=("$kiln_run" "$dir/cuda.so" --device cuda --weights "$repo/$(cat "$dir/weights.txt")" --input "$dir/input0.npy")
  text=$(KILN_FAULT_LAUNCH=2 "${cmd[@]}" 2>&1); rc=$?
  echo "$c kiln-run with a failed launch: $(echo "$text" | tail -n 1 | cut -c1-240)"
  result "$([ $rc == 3 ] && echo OK || echo FAIL)" "$c kiln-run with a failed launch: exit $rc (want 3)"
done

# A library the model needs is missing: the run fails with exit 3 naming it.
missing() { # missing VAR LIBRARY-WORD CASE
  local dir=$pack/models/$3
  [ -f "$dir/cuda.so" ] || { result FAIL "$3 not in the pack"; return; }
  local cmd=("$kiln_run" "$dir/cuda.so" --device cuda --weights "$repo/$(cat "$dir/weights.txt")")
  for f in $(ls -v "$dir"/input*.npy); do cmd+=(--input "$f"); done
  text=$(env "$1=/nonexistent/lib$2.so" "${cmd[@]}" 2>&1); rc=$?
  echo "$3 without $2: $(echo "$text" | tail -n 1 | cut -c1-240)"
  result "$([ $rc == 3 ] && echo "$text" | grep -qi "$2" && echo OK || echo FAIL)" \
    "$3 without $2: exit $rc (want 3) naming $2"
}
missing KILN_CUDNN cudnn convnet
missing KILN_CUBLASLT cublasLt attention  # its linear layers are cuBLASLt GEMMs with a bias epilogue

# A plugin kernel that throws between the model's kernels.
dir=$pack/models/custom_op
if [ -f "$dir/cuda.so" ] && [ -f "$pack/lib/faults/libkiln_throwing_ops.so" ]; then
  text=$("$kiln_run" "$dir/cuda.so" --device cuda --weights "$repo/$(cat "$dir/weights.txt")" \
    --plugin "$pack/lib/faults/libkiln_throwing_ops.so" --input "$dir/input0.npy" 2>&1); rc=$?
  echo "custom_op with a throwing plugin: $(echo "$text" | tail -n 1 | cut -c1-240)"
  result "$([ $rc == 3 ] && echo "$text" | grep -q "failed on purpose" && echo OK || echo FAIL)" \
    "custom_op with a throwing plugin: exit $rc (want 3)"
else
  result FAIL "custom_op or the throwing plugin not in the pack"
fi
echo "faults: $pass of $total checks pass on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
[ $pass == $total ]
