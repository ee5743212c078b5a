// kiln runtime — single-row products with a constant weight (batch-1 linear layers): kiln's own memory-bound kernel.
#ifndef KILN_RUNTIME_CPU_GEMV_H
#define KILN_RUNTIME_CPU_GEMV_H

#include "Mkl.h"

namespace kiln::cpu {

/// Runs `p` when op(A) is a single row (p.m == 1) and op(B) has a
/// unit-stride dim: d = a * op(B) (+ d unless `overwrite`) (+ bias), ReLU'd
/// with `relu`. Such a product reads each weight once and does one
/// multiply-add per weight, so its speed is the speed of streaming the
/// weight: oneMKL's packed GEMM (built for many rows) and oneDNN's matmul
/// reach 40-50 GB/s on the Zen 3 build machine where this loop reaches
/// ~58 (docs/Rationale/cpu-library-calls.md). Columns are shared out
/// among up to `threads` threads (parallelFor: the model call's OpenMP team
/// or its oneTBB arena) when the weight is large enough. Returns false, doing nothing, for any other
/// product, or with KILN_CPU_GEMV=off (the caller then uses oneMKL or
/// oneDNN).
bool constWeightGemv(const MklProduct &p, int threads);

} // namespace kiln::cpu

#endif // KILN_RUNTIME_CPU_GEMV_H
