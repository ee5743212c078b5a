/* kiln — how a compiled CPU model runs its parallel loops on the runtime's threads. Plain C.
 *
 * kiln-compile outlines the outermost parallel loop of each large loop nest
 * into a body function over a chunk [lo, hi) of its iterations and calls
 * kiln_cpu_parallel_for in its place (kiln-outline-parallel-loops,
 * kiln-lower-parallel-launches). The runtime runs the chunks on the oneTBB
 * arena of the model that is running (docs/Rationale/cpu-threads.md).
 */
#ifndef KILN_ABI_CPU_PARALLEL_H
#define KILN_ABI_CPU_PARALLEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The symbol compiled code calls. */
#define KILN_SYM_PARALLEL_FOR "kiln_cpu_parallel_for"

/* Runs iterations [lo, hi) of a parallel loop; `ctx` holds the values the
 * loop body reads from the code around it. Must not throw or longjmp. */
typedef void (*kiln_parallel_body_fn)(void *ctx, int64_t lo, int64_t hi);

/* Calls body(ctx, lo, hi) on disjoint chunks that cover [0, n) exactly once,
 * each at least `grain` iterations long, on up to the running model's
 * thread count (see kiln_model_options_t.num_threads) and returns when all
 * are done. n < 2 * grain, or one thread, runs body(ctx, 0, n) on the
 * calling thread. Nothing is done for n <= 0. A
 * chunk may itself call kiln_cpu_parallel_for. Thread-safe. */
void kiln_cpu_parallel_for(kiln_parallel_body_fn body, void *ctx, int64_t n, int64_t grain);

#ifdef __cplusplus
}
#endif
#endif /* KILN_ABI_CPU_PARALLEL_H */
