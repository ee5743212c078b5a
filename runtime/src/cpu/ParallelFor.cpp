// kiln runtime — kiln_cpu_parallel_for: the entry compiled CPU code calls for each parallel loop.
#include "kiln/abi/cpu_parallel.h"

#include "Threads.h"

extern "C" void kiln_cpu_parallel_for(kiln_parallel_body_fn body, void *ctx, int64_t n,
                                      int64_t grain) {
  if (!body || n <= 0) return;
  // A chunk that fails (an allocation in the body out of memory, or the
  // thread runtime out of memory for its tasks) throws; the exception reaches
  // the caller through the generated frames to the model's entry call, which
  // discards the run (its outputs are incomplete) and reports it.
  kiln::cpu::parallelFor(n, grain, [&](int64_t lo, int64_t hi) { body(ctx, lo, hi); });
}
