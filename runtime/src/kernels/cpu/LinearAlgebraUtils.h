// kiln runtime — helpers of the eager linear-algebra kernels: batched
// matrices read into column-major float64 buffers (LAPACK's layout) and
// results written back. Private to kernels/cpu.
#ifndef KILN_KERNELS_CPU_LINEARALGEBRAUTILS_H
#define KILN_KERNELS_CPU_LINEARALGEBRAUTILS_H

#include "KernelUtils.h"
#include "Lapack.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace kiln::cpu::linalg {

using Mat = std::vector<double>; ///< a column-major matrix
using Shape = std::vector<int64_t>;
using T2 = std::tuple<Tensor, Tensor>;
using T3 = std::tuple<Tensor, Tensor, Tensor>;
using T4 = std::tuple<Tensor, Tensor, Tensor, Tensor>;

inline int64_t product(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}
inline Shape batchOf(const Tensor &t) { return Shape(t.sizes().begin(), t.sizes().end() - 2); }
inline Shape cat(Shape a, const Shape &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
inline int ld(int64_t rows) { return (int)std::max<int64_t>(1, rows); }

/// The result dtype: the input's floating dtype (16-bit ones too: the kernels
/// work in float64 buffers and round once when they write the result).
inline DType floatDtype(const Tensor &t, const char *op) {
  check(isFloatingPoint(t.dtype()), op,
        std::string("expects a floating-point tensor, got ") + dtypeName(t.dtype()));
  return t.dtype();
}
inline void checkMatrix(const Tensor &t, const char *op, bool square) {
  check(t.dim() >= 2, op, "expects a matrix or a batch of matrices, got " + t.shapeString());
  if (square)
    check(t.size(-1) == t.size(-2), op, "expects square matrices, got " + t.shapeString());
}

/// The matrices of a [..., r, c] tensor read over a (broadcast) batch shape.
struct Matrices {
  const char *base;
  DType dt;
  size_t es;
  int64_t r, c, sr, sc;
  Shape batch, bst;
  Matrices(const Tensor &t, const Shape &batchShape) : batch(batchShape) {
    base = static_cast<const char *>(t.rawData());
    dt = t.dtype();
    es = dtypeSize(dt);
    r = t.size(-2);
    c = t.size(-1);
    sr = t.strides()[t.dim() - 2];
    sc = t.strides()[t.dim() - 1];
    // Strides of the batch dims, 0 where t broadcasts.
    size_t nb = batch.size(), tb = t.dim() - 2;
    bst.assign(nb, 0);
    for (size_t i = 0; i < tb; ++i)
      if (t.sizes()[i] != 1) bst[nb - tb + i] = t.strides()[i];
  }
  Mat get(int64_t b) const {
    int64_t off = 0, pos = b;
    for (int64_t d = (int64_t)batch.size() - 1; d >= 0; --d) {
      off += (pos % batch[d]) * bst[d];
      pos /= batch[d];
    }
    Mat m(r * c);
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j)
        m[i + j * r] = loadDouble(base + (off + i * sr + j * sc) * es, dt);
    return m;
  }
};

/// A contiguous result [batch..., r, c] written one column-major matrix at a time.
struct Out {
  Tensor t;
  int64_t r, c;
  Out(const Shape &batch, int64_t rows, int64_t cols, DType dt, const Tensor &like)
      : t(emptyLike(cat(batch, {rows, cols}), dt, like)), r(rows), c(cols) {}
  /// Writes rows x cols of the column-major `m` (leading dim `lda`) as matrix b.
  void put(int64_t b, const double *m, int64_t lda) {
    char *d = static_cast<char *>(t.rawData());
    size_t es = dtypeSize(t.dtype());
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j)
        storeDouble(d + ((b * r + i) * c + j) * es, t.dtype(), m[i + j * lda]);
  }
};

/// A contiguous per-batch vector result [batch..., n] (n = 0 for per-matrix scalars).
struct OutVec {
  Tensor t;
  int64_t n;
  OutVec(const Shape &batch, std::optional<int64_t> len, DType dt, const Tensor &like)
      : t(emptyLike(len ? cat(batch, {*len}) : batch, dt, like)), n(len.value_or(1)) {}
  void set(int64_t b, int64_t i, double v) {
    storeDouble(static_cast<char *>(t.rawData()) + (b * n + i) * dtypeSize(t.dtype()), t.dtype(), v);
  }
};

inline Shape broadcastBatch(const Tensor &a, const Tensor &b, const char *op) {
  return broadcastShapes(batchOf(a), batchOf(b), op);
}

/// The identity matrix of order n, column-major.
inline Mat identity(int64_t n) {
  Mat m(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) m[i * n + i] = 1;
  return m;
}

} // namespace kiln::cpu::linalg

#endif // KILN_KERNELS_CPU_LINEARALGEBRAUTILS_H
