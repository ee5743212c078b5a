// kiln runtime — kiln_cpu_parallel_for: the entry compiled CPU code calls for each parallel loop.
#include "kiln/abi/cpu_parallel.h"

#include "Threads.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

extern "C" void kiln_cpu_parallel_for(kiln_parallel_body_fn body, void *ctx, int64_t n,
                                      int64_t grain) {
  if (!body || n <= 0) return;
  try {
    kiln::cpu::parallelFor(n, grain, [&](int64_t lo, int64_t hi) { body(ctx, lo, hi); });
  } catch (const std::exception &e) {
    // Generated bodies never throw: this is oneTBB itself failing (out of
    // memory for its tasks). Chunks may have run already and cannot be
    // re-run (they accumulate into their outputs), so stop here.
    std::fprintf(stderr, "kiln: kiln_cpu_parallel_for failed: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "kiln: kiln_cpu_parallel_for failed\n");
    std::abort();
  }
}
