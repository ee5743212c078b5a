// kiln runtime — shared helpers of the eager CPU kernels, including the GEMM.
#include "KernelUtils.h"

#include "kiln/half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include <tbb/blocked_range2d.h>

namespace kiln::cpu {

int64_t wrapDim(int64_t d, int64_t rank, const char *op) {
  int64_t r = rank == 0 ? 1 : rank;
  check(d >= -r && d < r, op,
        "dimension " + std::to_string(d) + " is out of range for a tensor of rank " +
            std::to_string(rank));
  return d < 0 ? d + r : d;
}

std::vector<int64_t> broadcastShapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                                     const char *op) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    check(x == y || x == 1 || y == 1, op,
          "shapes " + shapeToString(a) + " and " + shapeToString(b) + " cannot be broadcast");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

static int typeRank(DType t) {
  switch (t) {
  case DType::Float64: return 9;
  case DType::Float32: return 8;
  case DType::BFloat16: return 7;
  case DType::Float16: return 6;
  case DType::Int64: return 5;
  case DType::Int32: return 4;
  case DType::Int16: return 3;
  case DType::Int8: return 2;
  case DType::UInt8: return 1;
  case DType::Bool: return 0;
  }
  return 0;
}
DType promoteTypes(DType a, DType b) { return typeRank(a) >= typeRank(b) ? a : b; }

namespace {
template <typename T> double loadAs(const char *p) { return (double)*reinterpret_cast<const T *>(p); }
double halfToDouble(uint16_t h) { return halfBitsToFloat(h); }
/// float64 -> float16, rounded to nearest even through float32 (which can
/// differ from one direct rounding only within a float32 ulp of a tie).
uint16_t doubleToHalf(double d) { return floatToHalfBits((float)d); }
uint16_t doubleToBF16(double d) { return floatToBF16Bits((float)d); }
} // namespace

double loadDouble(const char *p, DType t) {
  switch (t) {
  case DType::Float16: return halfToDouble(*reinterpret_cast<const uint16_t *>(p));
  case DType::BFloat16: return bitsToFloat((uint32_t)*reinterpret_cast<const uint16_t *>(p) << 16);
  case DType::Float32: return loadAs<float>(p);
  case DType::Float64: return loadAs<double>(p);
  case DType::Int64: return loadAs<int64_t>(p);
  case DType::Int32: return loadAs<int32_t>(p);
  case DType::Int16: return loadAs<int16_t>(p);
  case DType::Int8: return loadAs<int8_t>(p);
  case DType::UInt8: return loadAs<uint8_t>(p);
  case DType::Bool: return *reinterpret_cast<const uint8_t *>(p) ? 1.0 : 0.0;
  default: throw Error(std::string("kiln: cannot convert from ") + dtypeName(t));
  }
}
void storeDouble(char *p, DType t, double v) {
  switch (t) {
  case DType::Float16: *reinterpret_cast<uint16_t *>(p) = doubleToHalf(v); return;
  case DType::BFloat16: *reinterpret_cast<uint16_t *>(p) = doubleToBF16(v); return;
  case DType::Float32: *reinterpret_cast<float *>(p) = (float)v; return;
  case DType::Float64: *reinterpret_cast<double *>(p) = v; return;
  case DType::Int64: *reinterpret_cast<int64_t *>(p) = (int64_t)v; return;
  case DType::Int32: *reinterpret_cast<int32_t *>(p) = (int32_t)v; return;
  case DType::Int16: *reinterpret_cast<int16_t *>(p) = (int16_t)v; return;
  case DType::Int8: *reinterpret_cast<int8_t *>(p) = (int8_t)v; return;
  case DType::UInt8: *reinterpret_cast<uint8_t *>(p) = (uint8_t)v; return;
  case DType::Bool: *reinterpret_cast<uint8_t *>(p) = v != 0; return;
  default: throw Error(std::string("kiln: cannot convert to ") + dtypeName(t));
  }
}

Tensor castTo(const Tensor &t, DType dt) {
  if (t.dtype() == dt) return t.contiguous();
  Tensor src = t.contiguous();
  Tensor out = Tensor::empty(src.sizes(), dt, src.device());
  if (isMeta(src)) return out;
  const char *s = static_cast<const char *>(src.rawData());
  char *d = static_cast<char *>(out.rawData());
  size_t si = dtypeSize(src.dtype()), di = dtypeSize(dt);
  for (int64_t i = 0, n = src.numel(); i < n; ++i) storeDouble(d + i * di, dt, loadDouble(s + i * si, src.dtype()));
  return out;
}

std::vector<int64_t> broadcastStrides(const Tensor &t, const std::vector<int64_t> &outSizes) {
  size_t n = outSizes.size(), r = t.sizes().size();
  std::vector<int64_t> s(n, 0);
  for (size_t i = 0; i < r; ++i) {
    size_t o = n - r + i;
    s[o] = t.sizes()[i] == 1 && outSizes[o] != 1 ? 0 : t.strides()[i];
  }
  return s;
}

// ---------------------------------------------------------------------------
// GEMM: pack B into contiguous K x N panels, then row tiles x column tiles
// in parallel with an i-k-j inner order the compiler vectorises.
// ---------------------------------------------------------------------------
template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t sam, int64_t sak,
          const T *B, int64_t sbk, int64_t sbn, T beta, T *C) {
  if (M == 0 || N == 0) return;
  // Scale or clear C first.
  if (beta == T(0)) std::fill(C, C + M * N, T(0));
  else if (beta != T(1))
    for (int64_t i = 0; i < M * N; ++i) {
      if constexpr (std::is_integral_v<T>) C[i] = (T)((std::make_unsigned_t<T>)C[i] * (std::make_unsigned_t<T>)beta);
      else C[i] *= beta;
    }
  if (K == 0 || alpha == T(0)) return;

  // Contiguous copies of A (M x K) and B (K x N) unless already so.
  std::unique_ptr<T[]> aBuf, bBuf;
  const T *a = A, *b = B;
  if (!(sak == 1 && sam == K)) {
    aBuf.reset(new T[M * K]);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k) aBuf[i * K + k] = A[i * sam + k * sak];
    a = aBuf.get();
  }
  if (!(sbn == 1 && sbk == N)) {
    bBuf.reset(new T[K * N]);
    parallelFor(K, 64, [&](int64_t k0, int64_t k1) {
      for (int64_t k = k0; k < k1; ++k)
        for (int64_t j = 0; j < N; ++j) bBuf[k * N + j] = B[k * sbk + j * sbn];
    });
    b = bBuf.get();
  }
  constexpr int64_t MB = 16, NB = 256, KB = 256;
  auto body = [&](const tbb::blocked_range2d<int64_t> &r) {
    for (int64_t i0 = r.rows().begin(); i0 < r.rows().end(); i0 += MB) {
      int64_t i1 = std::min(r.rows().end(), i0 + MB);
      for (int64_t j0 = r.cols().begin(); j0 < r.cols().end(); j0 += NB) {
        int64_t j1 = std::min(r.cols().end(), j0 + NB);
        for (int64_t k0 = 0; k0 < K; k0 += KB) {
          int64_t k1 = std::min(K, k0 + KB);
          for (int64_t i = i0; i < i1; ++i) {
            T *c = C + i * N;
            const T *ai = a + i * K;
            for (int64_t k = k0; k < k1; ++k) {
              const T *bk = b + k * N;
              if constexpr (std::is_integral_v<T>) { // integers wrap, as ATen's
                using U = std::make_unsigned_t<T>;
                U av = (U)alpha * (U)ai[k];
                for (int64_t j = j0; j < j1; ++j) c[j] = (T)((U)c[j] + av * (U)bk[j]);
              } else {
                T av = alpha * ai[k];
                for (int64_t j = j0; j < j1; ++j) c[j] += av * bk[j];
              }
            }
          }
        }
      }
    }
  };
  tbb::blocked_range2d<int64_t> all(0, M, MB, 0, N, NB);
  if (M * N * K < (int64_t)1 << 16) body(all);
  else tbb::parallel_for(all, body);
}

template void gemm<float>(int64_t, int64_t, int64_t, float, const float *, int64_t, int64_t,
                          const float *, int64_t, int64_t, float, float *);
template void gemm<double>(int64_t, int64_t, int64_t, double, const double *, int64_t, int64_t,
                           const double *, int64_t, int64_t, double, double *);
template void gemm<int64_t>(int64_t, int64_t, int64_t, int64_t, const int64_t *, int64_t, int64_t,
                            const int64_t *, int64_t, int64_t, int64_t, int64_t *);
template void gemm<int32_t>(int64_t, int64_t, int64_t, int32_t, const int32_t *, int64_t, int64_t,
                            const int32_t *, int64_t, int64_t, int32_t, int32_t *);

} // namespace kiln::cpu
