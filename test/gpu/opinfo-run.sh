#!/usr/bin/env bash
# On a GPU machine: runs what test/gpu/opinfo-pack.sh packed with
# `kiln-run --device cuda` against the suites' PyTorch outputs, one
# results.json per suite for test/opinfo/report.py --cuda-entries-results /
# --cuda-dtypes-results (docs/op-coverage.md's CUDA section). Each kiln-run
# process runs BATCH programs (default 25: `kiln-run --batch`, so CUDA is set
# up once per process, not once per program), JOBS processes at a time
# (default: the cores); with DEADLINE=S, no program starts after S seconds of
# a suite (those left count as not run) and results.json is written all the same.
# Suite entries-grad (run_grad.py) compares each program's gradients with
# torch.autograd's (report.py --cuda-grad-results).
#   test/gpu/opinfo-run.sh PACK.tar.xz OUT_DIR [SUITE...]
# Needs python3 (standard library) and the repository's test/data/opinfo-*.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
pack=$(mktemp -d); out=$(realpath -m "$2"); tarball=$1; shift 2
tar -C "$pack" -xJf "$tarball"
. "$src/test/gpu/pack-env.sh" "$pack" "$src"
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
suites=("$@"); ((${#suites[@]})) || suites=($(cd "$pack" && ls -d entries* 2>/dev/null))
for s in "${suites[@]}"; do
  runner=("$src/test/opinfo/run.py" --data "$src/test/data/opinfo-$s")
  [[ $s == entries-grad ]] && runner=("$src/test/opinfo/run_grad.py")
  python3 "${runner[@]}" --prebuilt "$pack/$s" --device cuda --device-name "${gpu:-a GPU}" \
    --kiln-run "$pack/bin/kiln-run" --work "$pack/work-$s" \
    --jobs "${JOBS:-$(nproc)}" --batch "${BATCH:-25}" --deadline "${DEADLINE:-0}"
  cp "$pack/work-$s/results.json" "$out/$s-results.json"
done
rm -rf "$pack"
