// kiln runtime — eager CPU (and Meta) kernels that select along one dim:
// kthvalue, median, nanmedian, mode, cummax and cummin (values and int64
// indices, NaN handled as ATen does). Every dtype, read as float64.
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace kiln::cpu {
namespace {

using T2 = std::tuple<Tensor, Tensor>;

/// The rows of `self` along `dim`: calls f(row values, emit) for each, where
/// emit(i, value, index) writes output element i of the row's outputs.
struct Rows {
  Tensor self;
  int64_t dim, n, outer, inner;
  Rows(const Tensor &t, int64_t d, const char *op) : self(t.contiguous()) {
    int64_t rank = t.dim();
    dim = rank == 0 ? 0 : wrapDim(d, rank, op);
    n = rank == 0 ? 1 : t.size(dim);
    outer = 1;
    inner = 1;
    for (int64_t i = 0; i < dim; ++i) outer *= t.size(i);
    for (int64_t i = dim + 1; i < rank; ++i) inner *= t.size(i);
  }
  std::vector<double> row(int64_t o, int64_t in) const {
    std::vector<double> r(n);
    const char *p = static_cast<const char *>(self.rawData());
    size_t es = dtypeSize(self.dtype());
    for (int64_t k = 0; k < n; ++k) r[k] = loadDouble(p + ((o * n + k) * inner + in) * es, self.dtype());
    return r;
  }
  /// The reduced shape (dim dropped, or kept as 1).
  std::vector<int64_t> reduced(bool keepdim) const {
    std::vector<int64_t> s = self.sizes();
    if (s.empty()) return s;
    if (keepdim) s[dim] = 1;
    else s.erase(s.begin() + dim);
    return s;
  }
};

void put(Tensor &t, int64_t i, double v) {
  storeDouble(static_cast<char *>(t.rawData()) + i * dtypeSize(t.dtype()), t.dtype(), v);
}

/// One (value, index) per row, chosen by `pick(row) -> index`.
template <typename F> T2 reduceRows(const char *op, const Tensor &self, int64_t dim, bool keepdim, F pick) {
  Rows r(self, dim, op);
  check(r.n > 0, op, "cannot select from an empty dim");
  Tensor v = emptyLike(r.reduced(keepdim), self.dtype(), self);
  Tensor i = emptyLike(r.reduced(keepdim), DType::Int64, self);
  if (isMeta(self)) return {v, i};
  for (int64_t o = 0; o < r.outer; ++o)
    for (int64_t in = 0; in < r.inner; ++in) {
      std::vector<double> row = r.row(o, in);
      int64_t k = pick(row);
      put(v, o * r.inner + in, row[k]);
      i.data<int64_t>()[o * r.inner + in] = k;
    }
  return {v, i};
}

/// The index of the k-th smallest (0-based) of a row, NaN above every number;
/// among equal values the first.
int64_t kthIndex(const std::vector<double> &row, int64_t k) {
  std::vector<int64_t> idx(row.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    bool na = std::isnan(row[a]), nb = std::isnan(row[b]);
    if (na || nb) return !na && nb;
    return row[a] < row[b];
  });
  return idx[k];
}
int64_t firstNaN(const std::vector<double> &row) {
  for (size_t k = 0; k < row.size(); ++k)
    if (std::isnan(row[k])) return (int64_t)k;
  return -1;
}

T2 kthvalue(const Tensor &self, int64_t k, int64_t dim, bool keepdim) {
  const char *op = "aten::kthvalue";
  int64_t n = self.dim() == 0 ? 1 : self.size(self.dim() == 0 ? 0 : wrapDim(dim, self.dim(), op));
  check(k >= 1 && k <= n, op, "k (" + std::to_string(k) + ") is out of range for a dim of size " +
                                  std::to_string(n));
  return reduceRows(op, self, dim, keepdim, [k](const std::vector<double> &row) {
    return kthIndex(row, k - 1);
  });
}

/// The lower median; a NaN in the row is the median (median) or is skipped (nanmedian).
int64_t medianIndex(const std::vector<double> &row, bool skipNaN) {
  int64_t nan = firstNaN(row);
  if (!skipNaN && nan >= 0) return nan;
  int64_t count = 0;
  for (double v : row) count += !std::isnan(v);
  if (count == 0) return nan;
  return kthIndex(row, (count - 1) / 2);
}
T2 medianDim(const Tensor &self, int64_t dim, bool keepdim) {
  return reduceRows("aten::median", self, dim, keepdim,
                    [](const std::vector<double> &r) { return medianIndex(r, false); });
}
T2 nanmedianDim(const Tensor &self, int64_t dim, bool keepdim) {
  return reduceRows("aten::nanmedian", self, dim, keepdim,
                    [](const std::vector<double> &r) { return medianIndex(r, true); });
}
/// The median of all elements (a 0-d tensor).
Tensor medianAll(const char *op, const Tensor &self, bool skipNaN) {
  Tensor flat = self.contiguous().reshape({self.numel()});
  if (isMeta(self)) return emptyLike({}, self.dtype(), self);
  if (self.numel() == 0) {
    Tensor out = emptyLike({}, self.dtype(), self);
    put(out, 0, std::nan(""));
    return out;
  }
  auto [v, i] = reduceRows(op, flat, 0, false,
                           [skipNaN](const std::vector<double> &r) { return medianIndex(r, skipNaN); });
  return v;
}
Tensor median(const Tensor &self) { return medianAll("aten::median", self, false); }
Tensor nanmedian(const Tensor &self) { return medianAll("aten::nanmedian", self, true); }

/// The most frequent value (the smallest of equally frequent ones) and its last index.
T2 mode(const Tensor &self, int64_t dim, bool keepdim) {
  return reduceRows("aten::mode", self, dim, keepdim, [](const std::vector<double> &row) {
    std::vector<int64_t> idx(row.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return row[a] < row[b]; });
    int64_t best = idx[0], bestCount = 0, count = 0;
    for (size_t s = 0; s < idx.size(); ++s) {
      ++count;
      if (s + 1 == idx.size() || row[idx[s]] != row[idx[s + 1]]) {
        if (count > bestCount) {
          bestCount = count;
          best = idx[s];
        }
        count = 0;
      }
    }
    return best;
  });
}

/// Running maximum (or minimum) and the index where it was last reached; a
/// NaN, once seen, stays.
T2 cumExtreme(const char *op, const Tensor &self, int64_t dim, bool isMax) {
  Rows r(self, dim, op);
  Tensor v = emptyLike(self.sizes(), self.dtype(), self);
  Tensor i = emptyLike(self.sizes(), DType::Int64, self);
  if (isMeta(self) || self.numel() == 0) return {v, i};
  for (int64_t o = 0; o < r.outer; ++o)
    for (int64_t in = 0; in < r.inner; ++in) {
      std::vector<double> row = r.row(o, in);
      double best = row[0];
      int64_t bi = 0;
      for (int64_t k = 0; k < r.n; ++k) {
        double x = row[k];
        if (std::isnan(x) || (!std::isnan(best) && (isMax ? x >= best : x <= best))) {
          best = x;
          bi = k;
        }
        int64_t pos = (o * r.n + k) * r.inner + in;
        put(v, pos, best);
        i.data<int64_t>()[pos] = bi;
      }
    }
  return {v, i};
}
T2 cummax(const Tensor &self, int64_t dim) { return cumExtreme("aten::cummax", self, dim, true); }
T2 cummin(const Tensor &self, int64_t dim) { return cumExtreme("aten::cummin", self, dim, false); }

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("kthvalue", kthvalue);
  m.impl("median", median);
  m.impl("median.dim", medianDim);
  m.impl("nanmedian", nanmedian);
  m.impl("nanmedian.dim", nanmedianDim);
  m.impl("mode", mode);
  m.impl("cummax", cummax);
  m.impl("cummin", cummin);
}
