#!/usr/bin/env bash
# The first step of every example's run-test.sh: installs kiln from BUILD_DIR
# into WORK/prefix (WORK is emptied first) and configures and builds the
# example in EXAMPLE_DIR against that installed CMake package, in WORK/build,
# with CMAKE_ARGs added (its compiler, what to make unfindable).
#   build-against-install.sh BUILD_DIR WORK EXAMPLE_DIR [CMAKE_ARG]...
set -euo pipefail
BUILD_DIR=$1; WORK=$2; EXAMPLE_DIR=$3; shift 3
rm -rf "$WORK"; mkdir -p "$WORK"
cmake --install "$BUILD_DIR" --prefix "$WORK/prefix" >/dev/null
cmake -S "$EXAMPLE_DIR" -B "$WORK/build" -G Ninja -DKiln_DIR="$WORK/prefix/lib/cmake/Kiln" "$@" >/dev/null
cmake --build "$WORK/build" >/dev/null
