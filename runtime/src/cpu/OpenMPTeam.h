// kiln runtime — oneDNN's OpenMP threads as the threads of kiln's parallel loops too, so a model call uses one pool.
#ifndef KILN_CPU_OPENMP_TEAM_H
#define KILN_CPU_OPENMP_TEAM_H

#include <cstdint>
#include <functional>

namespace kiln::cpu {

/// Resolves the OpenMP runtime that the oneDNN library `dnnlHandle` (a
/// dlopen handle) runs on; without one (not an OpenMP build of oneDNN)
/// openmpParallelFor() always declines. Called once, when oneDNN loads.
void adoptOpenMP(void *dnnlHandle);

/// Runs f(lo, hi) over `pieces` equal pieces of [0, n) (runs of consecutive
/// pieces, handed out as threads ask for them) on the calling thread's
/// OpenMP team of `threads` threads, the team oneDNN's calls on this thread
/// run on; returns when all are done and rethrows the first exception of a
/// chunk. Returns false, running nothing, when no OpenMP runtime was
/// adopted or the caller is already inside an OpenMP parallel region.
bool openmpParallelFor(int threads, int64_t n, int64_t pieces, const std::function<void(int64_t, int64_t)> &f);

} // namespace kiln::cpu

#endif // KILN_CPU_OPENMP_TEAM_H
