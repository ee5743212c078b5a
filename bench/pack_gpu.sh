#!/usr/bin/env bash
# Builds, on the build machine, what bench/gpu_vs_torch.py needs on a GPU
# machine that has PyTorch but no LLVM: each config of bench/gpu_models.py
# exported and compiled with --target=cuda --weights=external (the weights
# are re-created there from the same seed), kiln-compile's wall time, the
# weights' digest, kiln-run and the runtime libraries.
#   bench/pack_gpu.sh BUILD_DIR OUT_DIR [CONFIG]... [-- KILN_COMPILE_OPTION...]
# CONFIGs default to all of bench/gpu_models.py's. With KILN_PACK_EXPORTS=DIR
# the exported archives and their digests are kept in DIR and reused by the
# next pack (a baseline build packed beside a changed one exports once).
set -euo pipefail
build=$(cd "$1" && pwd); out=$2; shift 2
configs=(); extra=()
while (($#)); do
  if [ "$1" == -- ]; then shift; extra=("$@"); break; fi
  configs+=("$1"); shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
if ((${#configs[@]} == 0)); then
  mapfile -t configs < <(cd "$src/bench" && python3 -c 'import gpu_models; print("\n".join(gpu_models.CONFIGS))')
fi
# kiln-run, the runtime and the libraries they need beyond glibc.
python3 "$src/test/gpu/pack_util.py" copy-kiln-run "$build" "$out"
cp "$src/bench/gpu_models.py" "$src/bench/cudnn_env.py" "$src/bench/gpu_vs_torch.py" "$src/bench/gpu_profile.py" "$out/"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
exports=${KILN_PACK_EXPORTS:-$tmp}; mkdir -p "$exports"
for c in "${configs[@]}"; do
  mkdir -p "$out/$c"
  if [ -s "$exports/$c.pt2" ] && [ -s "$exports/$c.digest" ]; then
    digest=$(cat "$exports/$c.digest")
  else
    digest=$(cd "$src/bench" && python3 -c "
import sys, gpu_models as g
m, a = g.build('$c'); g.export(m, a, '$exports/$c.pt2'); print(g.digest(m))")
    echo "$digest" >"$exports/$c.digest"
  fi
  # Wall and CPU seconds: the build machine is shared, so CPU time is the steadier number.
  if /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$build/bin/kiln-compile" "$exports/$c.pt2" --target=cuda \
      --weights=external "${extra[@]}" -o "$out/$c/model.so" 2>"$out/$c/compile-error.txt"; then
    rm -f "$out/$c/compile-error.txt"
    read -r wall user sys <"$tmp/time"
    secs=$wall; cpu=$(python3 -c "print(round($user + $sys, 2))")
    echo "pack_gpu: $c compiled in $secs s wall, $cpu s CPU ($(du -h "$out/$c/model.so" | cut -f1))"
  else
    secs=null; cpu=null
    echo "pack_gpu: $c FAILS to compile for CUDA:"; head -c 2000 "$out/$c/compile-error.txt"; echo
  fi
  printf '{"config": "%s", "kiln_compile_s": %s, "kiln_compile_cpu_s": %s, "digest": "%s", "kiln_commit": "%s", "compile_options": "%s", "build_machine": "%s cores"}\n' \
    "$c" "$secs" "$cpu" "$digest" "$(git -C "$src" rev-parse --short HEAD)" "${extra[*]}" "$(nproc), load $(cut -d' ' -f1 /proc/loadavg)" >"$out/$c/compile.json"
  [ "$exports" != "$tmp" ] || rm -f "$tmp/$c.pt2"
done
echo "pack_gpu: $out ($(du -sh "$out" | cut -f1))"
