#!/usr/bin/env bash
# Convolution gradients on a GPU (kiln_gpu_conv_bwd_data / bwd_filter through
# cuDNN): --grad builds of conv nets, compiled here for CUDA with TF32 off and
# external weights, run on the GPU machine by kiln-run against PyTorch's
# gradients (rtol 1e-3, atol 1e-4: float32 sums in cuDNN's order, not the CPU's).
# The cases cover stride 1 and 2, padding 0 and 1, 1x1 and 3x3 kernels, the
# 1x1 stride-2 shortcut of a residual block, a 224x224 input, and groups,
# dilation and per-dim parameters (convnet, squeezenet1_1, resnet_tiny,
# test/data/train/conv_shapes).
#   test/gpu/conv-grads.sh pack BUILD_DIR OUT_DIR [--gpu-arch=sm_NN]   (here)
#   test/gpu/conv-grads.sh run OUT_DIR [REPO_ROOT]                      (on the GPU machine)
set -uo pipefail
mode=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
cases="convnet squeezenet1_1 resnet_tiny conv_shapes"
# Archive, input, output and gradients of each case, relative to the repository root
# (resnet_tiny's archive is exported by the build: packed beside the .so).
where() {
  case $1 in
    resnet_tiny) echo "@/resnet_tiny.pt2 @/resnet_tiny.input0.npy @/resnet_tiny.output0.npy test/data/train/resnet_tiny/grads" ;;
    conv_shapes) echo "test/data/train/conv_shapes/model.pt2 test/data/train/conv_shapes/input0.npy test/data/train/conv_shapes/output0.npy test/data/train/conv_shapes/grads" ;;
    convnet) echo "test/data/corpus/convnet/model.pt2 test/data/corpus/convnet/input0.npy test/data/corpus/convnet/output0.npy test/data/corpus/convnet/grads" ;;
    *) echo "test/data/corpus/$1/model.pt2 test/data/corpus/$1/input0.npy test/data/corpus/$1/output0.npy test/data/train/$1/grads" ;;
  esac
}
if [ "$mode" = pack ]; then
  set -e
  build=$(cd "$2" && pwd); out=$3; arch=${4:---gpu-arch=sm_90}
  # kiln-run, the runtime and the libraries they need beyond glibc (the GPU image may lack them).
  python3 "$src/test/gpu/pack_util.py" copy-kiln-run "$build" "$out"
  m=$build/test/data/models/resnet_tiny
  cp "$m/model.pt2" "$out/resnet_tiny.pt2"; cp "$m/input0.npy" "$out/resnet_tiny.input0.npy"
  cp "$m/output0.npy" "$out/resnet_tiny.output0.npy"
  for c in $cases; do
    read -r pt2 _ _ _ <<<"$(where "$c")"
    pt2=${pt2/#@/$out}; [ "${pt2:0:1}" = / ] || pt2=$src/$pt2
    "$build/bin/kiln-compile" "$pt2" --grad --target=cuda "$arch" --cuda-tf32=none --weights=external -o "$out/$c.so"
  done
  echo "conv-grads: packed $cases into $out"
  exit 0
fi
out=$(cd "$2" && pwd); repo=$(cd "${3:-.}" && pwd)
export LD_LIBRARY_PATH="$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -z "${KILN_CUDNN:-}" ]; then
  cudnn=$(python3 -c 'import importlib.util as u; s = u.find_spec("nvidia.cudnn"); print(list(s.submodule_search_locations)[0] + "/lib")' 2>/dev/null) || cudnn=""
  [ -n "$cudnn" ] && export KILN_CUDNN=$cudnn/libcudnn.so.9
fi
pass=0 total=0
for c in $cases; do
  total=$((total + 1))
  read -r pt2 in outp grads <<<"$(where "$c")"
  fix() { local p=${1/#@/$out}; [ "${p:0:1}" = / ] && echo "$p" || echo "$repo/$p"; }
  "$out/bin/kiln-run" "$out/$c.so" --device cuda --weights "$(fix "$pt2")" --input "$(fix "$in")" \
    --cotangent "$repo/$grads/cotangent0.npy" --expect "$(fix "$outp")" --expect-grads "$repo/$grads" \
    --rtol 1e-3 --atol 1e-4 > /tmp/conv-grads-$c.log 2>&1
  rc=$?
  ok=$(grep -c ': OK' /tmp/conv-grads-$c.log); bad=$(grep -vc ': OK' /tmp/conv-grads-$c.log)
  if [ $rc = 0 ] && [ "$bad" = 0 ]; then pass=$((pass + 1)); echo "$c: PASS ($ok values)"
  else echo "$c: FAIL (rc $rc)"; grep -v ': OK' /tmp/conv-grads-$c.log | head -5; fi
done
echo "conv-grads: $pass of $total cases pass"
[ $pass = $total ]
