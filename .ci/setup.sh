#!/usr/bin/env bash
# Installs everything kiln needs on a Debian 12 machine. Idempotent: when all
# is present it only checks and returns in a second or two.
set -euo pipefail

APT_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22  # compiler
  libclang-rt-22-dev                                                      # sanitizers, libFuzzer
  libtbb-dev libgtest-dev libzip-dev nlohmann-json3-dev                 # libraries
  libdnnl-dev                      # oneDNN: CPU convolutions and GEMMs (loaded at run time)
  liblapack3                       # LAPACK: the eager linear-algebra kernels (loaded at run time)
  cmake ninja-build ccache zip unzip                                      # build tools
  libamdhip64-dev rocm-device-libs                                        # ROCm target (docs/rocm.md)
)
# pip requirement : import name : version prefix the module must report ("" = any).
# nanobind builds the Python package; torch, torchvision, transformers and timm are what its tests
# and the test-model exporter (test/models/export_models.py) run against, pinned to the versions that made
# ../shared/corpus.
PIP_PACKAGES=(
  "numpy:numpy:" "pytest:pytest:" "nanobind:nanobind:" "scikit-build-core:scikit_build_core:"
  "torch==2.11.0:torch:2.11.0" "torchvision==0.26.0:torchvision:0.26.0"
  "transformers==5.17.0:transformers:5.17.0" "timm==1.0.31:timm:1.0.31"
  "mkl:mkl:"   # oneMKL's packed GEMM for CPU products with constant weights (optional at run time)
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "kiln setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! $SUDO apt-get install -y -q "${missing[@]}" >/tmp/kiln-apt.log 2>&1; then
    $SUDO apt-get update -q >/dev/null
    $SUDO apt-get install -y -q "${missing[@]}" >/tmp/kiln-apt.log 2>&1 || {
      cat /tmp/kiln-apt.log; exit 1; }
  fi
fi

PY=${PYTHON:-python3}
# One interpreter checks every package's installed version (no imports: fast).
mapfile -t need_pip < <("$PY" - "${PIP_PACKAGES[@]}" <<'PYEOF'
import importlib.metadata as md, sys
for entry in sys.argv[1:]:
    req, _mod, ver = entry.split(":")
    try:
        ok = md.version(req.split("==")[0]).startswith(ver)
    except md.PackageNotFoundError:
        ok = False
    if not ok:
        print(req)
PYEOF
)
if ((${#need_pip[@]})); then
  echo "kiln setup: pip installing ${need_pip[*]}"
  "$PY" -m pip install -q "${need_pip[@]}"
fi
