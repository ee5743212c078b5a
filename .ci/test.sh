#!/usr/bin/env bash
# Sets up, builds and runs kiln's whole test suite (lit, GoogleTest, end to end),
# then builds the runtime alone and runs its unit tests, then the sanitizer jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
.ci/setup.sh
.ci/build.sh
ctest --test-dir "${KILN_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
.ci/test-runtime-alone.sh
# The runtime under ASan+UBSan (unit, end-to-end and kiln-run tests) and the
# concurrency tests under TSan (docs/testing.md). KILN_SANITIZERS=0 skips them.
if [ "${KILN_SANITIZERS:-1}" != 0 ]; then
  .ci/sanitize.sh
fi
