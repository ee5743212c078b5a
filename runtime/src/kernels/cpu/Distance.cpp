// kiln runtime — eager CPU (and Meta) kernels: cdist / _cdist_forward and
// pdist / _pdist_forward (p-norm distances between rows).
#include "KernelUtils.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace kiln::cpu {
namespace {

/// The p-norm of the difference of two rows of `m` elements: p = 0 counts
/// the differing elements, p = inf takes the largest difference.
template <typename T> T rowDistance(const T *a, const T *b, int64_t m, double p) {
  T acc = 0;
  if (p == 0) {
    for (int64_t k = 0; k < m; ++k) acc += a[k] != b[k] ? T(1) : T(0);
    return acc;
  }
  if (std::isinf(p)) {
    for (int64_t k = 0; k < m; ++k) acc = std::max(acc, (T)std::abs(a[k] - b[k]));
    return acc;
  }
  if (p == 1) {
    for (int64_t k = 0; k < m; ++k) acc += std::abs(a[k] - b[k]);
    return acc;
  }
  if (p == 2) {
    for (int64_t k = 0; k < m; ++k) acc += (a[k] - b[k]) * (a[k] - b[k]);
    return std::sqrt(acc);
  }
  for (int64_t k = 0; k < m; ++k) acc += std::pow(std::abs(a[k] - b[k]), (T)p);
  return std::pow(acc, T(1.0 / p));
}

Tensor cdist(const Tensor &x1, const Tensor &x2, double p, const std::optional<int64_t> &mode) {
  const char *op = "aten::_cdist_forward";
  check(x1.dim() >= 2 && x2.dim() >= 2, op,
        "x1 and x2 must have at least 2 dims, got " + x1.shapeString() + " and " +
            x2.shapeString());
  check(x1.size(-1) == x2.size(-1), op,
        "x1 and x2 must have the same number of columns, got " + x1.shapeString() + " and " +
            x2.shapeString());
  check(x1.dtype() == x2.dtype(), op, "x1 and x2 must have one dtype");
  check(p >= 0, op, "p must be non-negative, got " + std::to_string(p));
  check(!mode || (*mode >= 0 && *mode <= 2), op, "compute_mode must be 0, 1 or 2");
  std::vector<int64_t> b1(x1.sizes().begin(), x1.sizes().end() - 2),
      b2(x2.sizes().begin(), x2.sizes().end() - 2);
  std::vector<int64_t> batch = broadcastShapes(b1, b2, op);
  int64_t P = x1.size(-2), R = x2.size(-2), M = x1.size(-1);
  std::vector<int64_t> shape = batch;
  shape.push_back(P);
  shape.push_back(R);
  Tensor out = emptyLike(shape, x1.dtype(), x1);
  if (isMeta(x1) || out.numel() == 0) return out;
  // Batch-broadcast contiguous copies, [B, P, M] and [B, R, M].
  auto expanded = [&](const Tensor &x, int64_t rows) {
    std::vector<int64_t> full = batch;
    full.push_back(rows);
    full.push_back(M);
    Tensor c = Tensor::empty(full, x.dtype());
    std::vector<int64_t> st = broadcastStrides(x, full);
    size_t es = dtypeSize(x.dtype());
    const char *src = static_cast<const char *>(x.rawData());
    char *dst = static_cast<char *>(c.rawData());
    for (int64_t i = 0, n = c.numel(); i < n; ++i) {
      int64_t pos = i, off = 0;
      for (int64_t d = (int64_t)full.size() - 1; d >= 0; --d) {
        off += (pos % full[d]) * st[d];
        pos /= full[d];
      }
      std::memcpy(dst + i * es, src + off * es, es);
    }
    return c;
  };
  Tensor a = expanded(x1, P), b = expanded(x2, R);
  int64_t B = out.numel() / std::max<int64_t>(P * R, 1);
  // Euclidean distances of many rows go through a matrix product, as
  // PyTorch's default compute_mode does: sqrt(max(|a|^2 + |b|^2 - 2 a.b, 0)).
  bool viaProduct = p == 2 && ((!mode || *mode == 0) ? (P > 25 || R > 25) : *mode == 1);
  dispatchFloat(x1.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.data<T>(), *pb = b.data<T>();
    T *po = out.data<T>();
    parallelFor(B * P, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t bi = r / P, i = r % P;
        const T *ra = pa + (bi * P + i) * M;
        for (int64_t j = 0; j < R; ++j) {
          const T *rb = pb + (bi * R + j) * M;
          if (viaProduct) {
            T na = 0, nb = 0, dot = 0;
            for (int64_t k = 0; k < M; ++k) {
              na += ra[k] * ra[k];
              nb += rb[k] * rb[k];
              dot += ra[k] * rb[k];
            }
            po[r * R + j] = std::sqrt(std::max(na + nb - T(2) * dot, T(0)));
          } else {
            po[r * R + j] = rowDistance(ra, rb, M, p);
          }
        }
      }
    });
  });
  return out;
}

Tensor cdistComposite(const Tensor &x1, const Tensor &x2, double p,
                      const std::optional<int64_t> &mode) {
  return cdist(x1, x2, p, mode);
}

/// Distances between every pair of rows i < j of [N, M], in row-major order
/// of the pairs.
Tensor pdist(const Tensor &self, double p) {
  const char *op = "aten::_pdist_forward";
  check(self.dim() == 2, op, "expected a 2-d input, got " + self.shapeString());
  check(p >= 0, op, "p must be non-negative, got " + std::to_string(p));
  int64_t N = self.size(0), M = self.size(1);
  int64_t pairs = N >= 2 ? N * (N - 1) / 2 : 0;
  Tensor out = emptyLike({pairs}, self.dtype(), self);
  if (isMeta(self) || pairs == 0) return out;
  Tensor x = self.contiguous();
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    parallelFor(N, 1, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        // Pairs before row i: sum over earlier rows r of (N - 1 - r).
        int64_t base = i * (2 * N - i - 1) / 2;
        for (int64_t j = i + 1; j < N; ++j)
          po[base + (j - i - 1)] = rowDistance(px + i * M, px + j * M, M, p);
      }
    });
  });
  return out;
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("_cdist_forward", cdist);
  m.impl("cdist", cdistComposite);
  m.impl("_pdist_forward", pdist);
  m.impl("pdist", pdist);
}
