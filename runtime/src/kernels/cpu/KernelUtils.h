// kiln runtime — helpers shared by the eager CPU kernels (dtype dispatch,
// broadcasting, parallel loops, GEMM, meta outputs). Private to kernels/cpu.
#ifndef KILN_KERNELS_CPU_KERNELUTILS_H
#define KILN_KERNELS_CPU_KERNELUTILS_H

#include "kiln/library.h"

#include "../../dispatch/Float16Fallback.h"

#include <cstdint>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace kiln::cpu {

/// Calls f(T{}) with T = float or double for the tensor's dtype.
template <typename F> void dispatchFloat(DType dt, const char *op, F &&f) {
  switch (dt) {
  case DType::Float32: f(float{}); return;
  case DType::Float64: f(double{}); return;
  default:
    throw UnsupportedDTypeError(std::string("kiln: ") + op + ": dtype " + dtypeName(dt) +
                                    " is not supported by the eager CPU kernel (float32, float64)",
                                dt);
  }
}
/// Like dispatchFloat, also int64 and int32.
template <typename F> void dispatchNumeric(DType dt, const char *op, F &&f) {
  switch (dt) {
  case DType::Float32: f(float{}); return;
  case DType::Float64: f(double{}); return;
  case DType::Int64: f(int64_t{}); return;
  case DType::Int32: f(int32_t{}); return;
  default:
    throw UnsupportedDTypeError(std::string("kiln: ") + op + ": dtype " + dtypeName(dt) +
                                    " is not supported by the eager CPU kernel",
                                dt);
  }
}

/// Runs f(begin, end) over [0, n) in parallel chunks of at least `grain`.
template <typename F> void parallelFor(int64_t n, int64_t grain, F &&f) {
  if (n <= 0) return;
  if (n <= grain) {
    f((int64_t)0, n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, grain),
                    [&](const tbb::blocked_range<int64_t> &r) { f(r.begin(), r.end()); });
}

/// Throws Error("kiln: <op>: <msg>") unless cond.
inline void check(bool cond, const char *op, const std::string &msg) {
  if (!cond) throw Error(std::string("kiln: ") + op + ": " + msg);
}
/// Wraps a possibly negative dim into [0, rank).
int64_t wrapDim(int64_t d, int64_t rank, const char *op);
/// Broadcast shape of two shapes (numpy rules).
std::vector<int64_t> broadcastShapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                                     const char *op);
/// Result dtype of a binary op (float64 > float32 > int64 > int32 > ...).
DType promoteTypes(DType a, DType b);
/// One element at `p` of dtype `t` as a double (every dtype, float16 and
/// bfloat16 included), and a double stored as `t` (floats rounded to nearest).
double loadDouble(const char *p, DType t);
void storeDouble(char *p, DType t, double v);
/// A contiguous copy converted to `dt` (the tensor itself if already so).
Tensor castTo(const Tensor &t, DType dt);
/// True for Meta tensors (kernels then only compute shapes).
inline bool isMeta(const Tensor &t) { return t.device().type == DeviceType::Meta; }
/// An uninitialised output on `like`'s device.
inline Tensor emptyLike(const std::vector<int64_t> &sizes, DType dt, const Tensor &like) {
  return Tensor::empty(sizes, dt, like.device());
}
/// Strides of `t` broadcast to `outSizes` (0 on broadcast dims).
std::vector<int64_t> broadcastStrides(const Tensor &t, const std::vector<int64_t> &outSizes);

/// C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C. A and B are strided
/// (element strides per dim); C is contiguous row-major. Parallel over tiles.
template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t sam, int64_t sak,
          const T *B, int64_t sbk, int64_t sbn, T beta, T *C);

} // namespace kiln::cpu

#endif // KILN_KERNELS_CPU_KERNELUTILS_H
