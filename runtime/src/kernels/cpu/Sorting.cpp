// kiln runtime — eager CPU (and Meta) kernels: sort, topk, argsort, msort and
// searchsorted
// along one dim, every dtype, NaN ordered above every number (as in ATen).
#include "KernelUtils.h"
#include "kiln/half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <tuple>

namespace kiln::cpu {
namespace {

/// The keys of one strided row, as doubles (float dtypes) or int64s (the
/// others: exact for every int64).
template <typename K>
void loadKeys(const char *base, int64_t stride, int64_t n, DType dt, std::vector<K> &keys) {
  size_t es = dtypeSize(dt);
  keys.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const char *p = base + i * stride * (int64_t)es;
    switch (dt) {
    case DType::Float32: keys[i] = (K)*reinterpret_cast<const float *>(p); break;
    case DType::Float64: keys[i] = (K)*reinterpret_cast<const double *>(p); break;
    case DType::Float16: keys[i] = (K)halfBitsToFloat(*reinterpret_cast<const uint16_t *>(p)); break;
    case DType::BFloat16: keys[i] = (K)bf16BitsToFloat(*reinterpret_cast<const uint16_t *>(p)); break;
    case DType::Int64: keys[i] = (K)*reinterpret_cast<const int64_t *>(p); break;
    case DType::Int32: keys[i] = (K)*reinterpret_cast<const int32_t *>(p); break;
    case DType::Int16: keys[i] = (K)*reinterpret_cast<const int16_t *>(p); break;
    case DType::Int8: keys[i] = (K)*reinterpret_cast<const int8_t *>(p); break;
    case DType::UInt8: keys[i] = (K)*reinterpret_cast<const uint8_t *>(p); break;
    case DType::Bool: keys[i] = (K)(*reinterpret_cast<const uint8_t *>(p) != 0); break;
    }
  }
}

template <typename K> bool isNaN(K v) {
  if constexpr (std::is_floating_point_v<K>)
    return std::isnan(v);
  else
    return false;
}

/// How a row is put in order. ATen leaves the order of equal keys to the
/// algorithm unless stable=True; kiln runs the same standard-library
/// algorithms ATen's CPU kernels use, so ties come out as they do in PyTorch.
enum class Algo { Stable, Unstable, TopK };

/// Orders the row's positions: the first `k` of them (all of them unless
/// Algo::TopK) in ascending or descending order, NaN above every number.
template <typename K>
void orderRow(const std::vector<K> &keys, bool descending, Algo algo, int64_t k,
              bool sortedTopk, std::vector<int64_t> &order) {
  int64_t n = keys.size();
  std::vector<std::pair<K, int64_t>> q(n);
  for (int64_t i = 0; i < n; ++i)
    q[i] = {keys[i], i};
  auto before = [descending](const std::pair<K, int64_t> &a, const std::pair<K, int64_t> &b) {
    bool na = isNaN(a.first), nb = isNaN(b.first);
    if (descending)
      return (na && !nb) || a.first > b.first;
    return (!na && nb) || a.first < b.first;
  };
  switch (algo) {
  case Algo::Stable: std::stable_sort(q.begin(), q.end(), before); break;
  case Algo::Unstable: std::sort(q.begin(), q.end(), before); break;
  case Algo::TopK:
    // A partial sort when k is small next to the row, else a selection
    // followed by sorting the part before the k-th element.
    if (k * 64 <= n) {
      std::partial_sort(q.begin(), q.begin() + k, q.end(), before);
    } else if (k > 0) {
      std::nth_element(q.begin(), q.begin() + k - 1, q.end(), before);
      if (sortedTopk)
        std::sort(q.begin(), q.begin() + k - 1, before);
    }
    break;
  }
  order.resize(n);
  for (int64_t i = 0; i < n; ++i)
    order[i] = q[i].second;
}

/// Shared by sort and topk: the first `k` of each row (along `dim`) in the
/// order above; values keep the input's dtype, indices are int64.
std::tuple<Tensor, Tensor> sortedPrefix(const Tensor &self, int64_t dim, int64_t k,
                                        bool descending, Algo algo, bool sortedTopk,
                                        const char *op) {
  int64_t rank = self.dim();
  int64_t d = rank == 0 ? 0 : wrapDim(dim, rank, op);
  int64_t n = rank == 0 ? 1 : self.size(d);
  check(k >= 0 && k <= n, op,
        "k (" + std::to_string(k) + ") is out of range for a dim of size " + std::to_string(n));
  std::vector<int64_t> outSizes = self.sizes();
  if (rank)
    outSizes[d] = k;
  Tensor values = emptyLike(outSizes, self.dtype(), self);
  Tensor indices = emptyLike(outSizes, DType::Int64, self);
  if (isMeta(self) || values.numel() == 0)
    return {values, indices};
  Tensor x = self.contiguous();
  int64_t inner = 1, outer = 1;
  for (int64_t i = d + 1; i < rank; ++i)
    inner *= self.size(i);
  for (int64_t i = 0; i < d; ++i)
    outer *= self.size(i);
  size_t es = dtypeSize(self.dtype());
  const char *px = static_cast<const char *>(x.rawData());
  char *pv = static_cast<char *>(values.rawData());
  int64_t *pi = indices.data<int64_t>();
  bool floating = isFloatingPoint(self.dtype());
  parallelFor(outer * inner, 16, [&](int64_t r0, int64_t r1) {
    std::vector<double> fkeys;
    std::vector<int64_t> ikeys, order;
    for (int64_t r = r0; r < r1; ++r) {
      int64_t o = r / inner, i = r % inner;
      const char *row = px + (o * n * inner + i) * (int64_t)es;
      if (floating) {
        loadKeys(row, inner, n, self.dtype(), fkeys);
        orderRow(fkeys, descending, algo, k, sortedTopk, order);
      } else {
        loadKeys(row, inner, n, self.dtype(), ikeys);
        orderRow(ikeys, descending, algo, k, sortedTopk, order);
      }
      for (int64_t j = 0; j < k; ++j) {
        int64_t at = (o * k + j) * inner + i;
        std::memcpy(pv + at * (int64_t)es, row + order[j] * inner * (int64_t)es, es);
        pi[at] = order[j];
      }
    }
  });
  return {values, indices};
}

std::tuple<Tensor, Tensor> sort(const Tensor &self, int64_t dim, bool descending) {
  int64_t n = self.dim() == 0 ? 1 : self.size(wrapDim(dim, self.dim(), "aten::sort"));
  return sortedPrefix(self, dim, n, descending, Algo::Unstable, true, "aten::sort");
}

std::tuple<Tensor, Tensor> sortStable(const Tensor &self, const std::optional<bool> &stable,
                                      int64_t dim, bool descending) {
  int64_t n = self.dim() == 0 ? 1 : self.size(wrapDim(dim, self.dim(), "aten::sort.stable"));
  return sortedPrefix(self, dim, n, descending, stable.value_or(false) ? Algo::Stable : Algo::Unstable,
                      true, "aten::sort.stable");
}

Tensor argsort(const Tensor &self, int64_t dim, bool descending) {
  return std::get<1>(sort(self, dim, descending));
}

Tensor argsortStable(const Tensor &self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(sortStable(self, stable, dim, descending));
}

/// Sorts along dim 0.
Tensor msort(const Tensor &self) { return std::get<0>(sort(self, 0, false)); }

std::tuple<Tensor, Tensor> topk(const Tensor &self, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  return sortedPrefix(self, dim, k, largest, Algo::TopK, sorted, "aten::topk");
}

/// For each value of `self`, its insertion point in the matching row of
/// `sorted_sequence` (a 1-d sequence serves every value): the first position
/// whose element is >= the value, or > it with right=True / side="right".
/// `sorter`, if given, holds the positions that sort each row.
template <typename K>
void searchRows(const Tensor &seq, const Tensor &self, const Tensor *sorter, bool right,
                Tensor &out) {
  Tensor s = seq.contiguous(), v = self.contiguous();
  int64_t n = seq.dim() ? seq.size(-1) : 1, cols = self.dim() ? self.size(-1) : 1;
  bool shared = seq.dim() <= 1;
  Tensor srt = sorter ? sorter->contiguous() : Tensor();
  const int64_t *ps = sorter ? srt.data<int64_t>() : nullptr;
  std::vector<K> vals;
  loadKeys(static_cast<const char *>(v.rawData()), 1, v.numel(), v.dtype(), vals);
  int64_t rows = shared ? 1 : s.numel() / std::max<int64_t>(n, 1);
  std::vector<K> all;
  loadKeys(static_cast<const char *>(s.rawData()), 1, s.numel(), s.dtype(), all);
  parallelFor(v.numel(), 256, [&](int64_t e0, int64_t e1) {
    std::vector<K> row(n);
    int64_t loaded = -1;
    for (int64_t e = e0; e < e1; ++e) {
      int64_t r = shared ? 0 : e / std::max<int64_t>(cols, 1);
      if (r != loaded) {
        for (int64_t i = 0; i < n; ++i)
          row[i] = all[r * n + (ps ? ps[r * n + i] : i)];
        loaded = r;
      }
      (void)rows;
      K x = vals[e];
      // NaN sorts above every number, as in sort.
      auto less = [](K a, K b) {
        bool na = isNaN(a), nb = isNaN(b);
        return (!na && nb) || a < b;
      };
      int64_t pos = right ? std::upper_bound(row.begin(), row.end(), x, less) - row.begin()
                          : std::lower_bound(row.begin(), row.end(), x, less) - row.begin();
      if (out.dtype() == DType::Int32)
        out.data<int32_t>()[e] = (int32_t)pos;
      else
        out.data<int64_t>()[e] = pos;
    }
  });
}

Tensor searchsorted(const Tensor &seq, const Tensor &self, bool outInt32, bool right,
                    const std::optional<std::string> &side, const std::optional<Tensor> &sorter) {
  const char *op = "aten::searchsorted.Tensor";
  check(seq.dim() >= 1, op, "sorted_sequence must have at least one dim");
  if (seq.dim() > 1) {
    check(self.dim() == seq.dim(), op,
          "sorted_sequence " + seq.shapeString() + " and input " + self.shapeString() +
              " must have the same number of dims (or a 1-d sequence)");
    for (int64_t i = 0; i + 1 < seq.dim(); ++i)
      check(seq.size(i) == self.size(i), op,
            "sorted_sequence " + seq.shapeString() + " and input " + self.shapeString() +
                " must match in every dim but the last");
  }
  if (side) {
    check(*side == "left" || *side == "right", op, "side must be 'left' or 'right', got '" + *side + "'");
    check(!(right && *side == "left"), op, "side='left' contradicts right=True");
  }
  if (sorter)
    check(sorter->sizes() == seq.sizes() && sorter->dtype() == DType::Int64, op,
          "sorter must be an int64 tensor of sorted_sequence's shape");
  bool r = right || (side && *side == "right");
  Tensor out = emptyLike(self.sizes(), outInt32 ? DType::Int32 : DType::Int64, self);
  if (isMeta(self) || out.numel() == 0 || seq.numel() == 0) {
    if (!isMeta(self))
      for (int64_t e = 0; e < out.numel(); ++e)
        outInt32 ? (void)(out.data<int32_t>()[e] = 0) : (void)(out.data<int64_t>()[e] = 0);
    return out;
  }
  const Tensor *srt = sorter ? &*sorter : nullptr;
  if (isFloatingPoint(seq.dtype()) || isFloatingPoint(self.dtype()))
    searchRows<double>(seq, self, srt, r, out);
  else
    searchRows<int64_t>(seq, self, srt, r, out);
  return out;
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("sort", sort);
  m.impl("sort.stable", sortStable);
  m.impl("topk", topk);
  m.impl("argsort", argsort);
  m.impl("argsort.stable", argsortStable);
  m.impl("msort", msort);
  m.impl("searchsorted.Tensor", searchsorted);
}
