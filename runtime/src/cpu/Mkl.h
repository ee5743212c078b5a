// kiln runtime — float32 products with a constant weight through oneMKL's packed GEMM, when oneMKL is installed.
#ifndef KILN_RUNTIME_CPU_MKL_H
#define KILN_RUNTIME_CPU_MKL_H

#include <cstdint>

namespace kiln::cpu {

/// One matrix product D = op(A) * op(B) (+ D unless `overwrite`) (+ bias[n])
/// (ReLU'd with `relu`) of a single batch: each operand a pointer to its
/// first element and the strides of its rows and columns (op(A): m x k,
/// op(B): k x n, D: m x n).
struct MklProduct {
  int64_t m, n, k;
  const float *a;
  int64_t aRow, aCol;
  const float *b;
  int64_t bRow, bCol;
  float *d;
  int64_t dRow, dCol;
  const float *bias;  ///< null, or n elements `biasStride` apart
  int64_t biasStride;
  bool overwrite, relu;
};

/// Runs `p` with oneMKL's packed single-precision GEMM (B, a constant
/// weight, packed once per weight buffer and shape and kept until
/// forgetMklWeights) on `threads` of the calling thread's OpenMP team.
/// Returns false, doing nothing, when oneMKL is not available (not
/// installed, or KILN_MKL=off) or an operand's layout is not one oneMKL
/// reads (neither dim of A or B, or D's columns, unit-stride): the caller
/// then runs the product with oneDNN.
bool mklConstWeightGemm(const MklProduct &p, int threads);

/// Drops the packed weights (a model is unloaded).
void forgetMklWeights();

} // namespace kiln::cpu

#endif // KILN_RUNTIME_CPU_MKL_H
