// kiln runtime — products of several rows with a constant weight: kiln's own register-blocked kernel.
#ifndef KILN_RUNTIME_CPU_GEMM_H
#define KILN_RUNTIME_CPU_GEMM_H

#include "Mkl.h"

namespace kiln::cpu {

/// Runs `p` (d = op(A) * op(B) (+ d unless `overwrite`) (+ bias), ReLU'd
/// with `relu`) when op(A)'s rows and d's rows are unit-stride: the weight
/// op(B), constant, is copied once into panels of 16 columns (kept until
/// forgetGemmWeights), and each call reads A where it lies, six rows at a
/// time, never copying it. oneMKL's packed GEMM copies A into its own
/// panels on every call (about a tenth of a transformer's time at one
/// thread, and all of it again on each thread of a column split); on the
/// Zen 3 build machine this kernel ran the same products at the same or a
/// higher rate (docs/Rationale/cpu-library-calls.md). The columns (or, for
/// few columns, the rows) are shared out over `threads` threads of the
/// calling thread's OpenMP team when the product is large enough. Returns
/// false, doing nothing, for other layouts or with KILN_CPU_GEMM=off (the
/// caller then uses oneMKL or oneDNN).
bool constWeightGemm(const MklProduct &p, int threads);

/// Drops the packed weights (a model is unloaded).
void forgetGemmWeights();

} // namespace kiln::cpu

#endif // KILN_RUNTIME_CPU_GEMM_H
