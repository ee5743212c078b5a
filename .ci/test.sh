#!/usr/bin/env bash
# Sets up, builds and runs kiln's whole test suite (lit, GoogleTest, end to end),
# then builds the runtime alone and runs its unit tests.
set -euo pipefail
cd "$(dirname "$0")/.."
.ci/setup.sh
.ci/build.sh
ctest --test-dir "${KILN_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
.ci/test-runtime-alone.sh
