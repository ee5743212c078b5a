# kiln GPU scripts — sourced with PACK_DIR [REPO_ROOT]: sets pack, repo, the pack's libraries on the
# loader's path and, unless KILN_CUDNN is set, the cuDNN of PyTorch's pip packages where there is one.
pack=$(cd "$1" && pwd)
repo=$(cd "${2:-$pack/../..}" && pwd)
export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -z "${KILN_CUDNN:-}" ]; then
  cudnn=$(python3 -c 'import importlib.util as u; s = u.find_spec("nvidia.cudnn"); print(list(s.submodule_search_locations)[0] + "/lib")' 2>/dev/null) || cudnn=""
  if [ -n "$cudnn" ] && [ -f "$cudnn/libcudnn.so.9" ]; then
    export KILN_CUDNN=$cudnn/libcudnn.so.9 LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$cudnn"
  fi
fi
