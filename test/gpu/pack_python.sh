#!/usr/bin/env bash
# Packs kiln's Python package for a GPU machine that has PyTorch but no LLVM:
# the pure-Python modules, the extension built for that machine's Python
# (default 3.12, from pyenv), libkiln_runtime and the libraries it needs beyond
# glibc, and the entry point of backend="kiln". kiln-compile is left out (the
# package then compiles nothing: programs come from a cache filled here by
# `python -m kiln.offline compile`, see docs/python.md).
#   test/gpu/pack_python.sh BUILD_DIR OUT_DIR [PYTHON]
# On the GPU machine: PYTHONPATH=OUT_DIR python3 ...
set -euo pipefail
build=$(cd "$1" && pwd); out=$2
py=${3:-$HOME/.pyenv/versions/3.12.1/bin/python3}
src=$(cd "$(dirname "$0")/../.." && pwd)
ver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
nbdir=$(python3 -m nanobind --cmake_dir)
ext=$build/python$ver-ext
cmake -S "$src/test/gpu/python312" -B "$ext" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DPython_EXECUTABLE="$py" -DKILN_PYTHON_VERSION="$ver" -DKILN_NANOBIND_DIR="$nbdir" \
  -DKILN_SOURCE_DIR="$src" -DKILN_RUNTIME_LIB="$build/lib/libkiln_runtime.so" >/dev/null
cmake --build "$ext" -j2 >/dev/null
rm -rf "$out/kiln" "$out"/kiln-*.dist-info
mkdir -p "$out/kiln/lib"
cp "$src"/python-bindings/kiln/*.py "$out/kiln/"
cp "$ext"/_kiln*.so "$out/kiln/"
cp -L "$build/lib/libkiln_runtime.so.0" "$out/kiln/lib/"
for l in $(ldd "$build/lib/libkiln_runtime.so.0" | awk '/=>/ {print $3}' | sort -u); do
  case $(basename "$l") in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*|libkiln_runtime*) ;;
    *) cp -L "$l" "$out/kiln/lib/" ;;
  esac
done
version=$(sed -n "s/^KILN_VERSION = '\(.*\)'/\1/p" "$build/python-bindings/kiln/_paths.py")
printf "# Written by test/gpu/pack_python.sh: a package without kiln-compile.\nKILN_COMPILE = ''\nKILN_VERSION = '%s'\n" \
  "$version" >"$out/kiln/_paths.py"
mkdir -p "$out/kiln-$version.dist-info"
printf 'Metadata-Version: 2.1\nName: kiln\nVersion: %s\n' "$version" >"$out/kiln-$version.dist-info/METADATA"
printf '[torch_dynamo_backends]\nkiln = kiln.dynamo:kiln_backend\n' >"$out/kiln-$version.dist-info/entry_points.txt"
echo "pack_python: $out ($(du -sh "$out" | cut -f1), Python $ver)"
