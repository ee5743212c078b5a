// kiln runtime — eager CPU (and Meta) kernels: masked_scatter, masked_select and
// _embedding_bag (sum / mean / max bags of embedding rows).
#include "KernelUtils.h"

#include <cstring>
#include <optional>
#include <tuple>

namespace kiln::cpu {
namespace {

/// Element offset (in elements) of the row-major position `pos` of `sizes`
/// in a tensor with the broadcast `strides`.
int64_t offsetOf(int64_t pos, const std::vector<int64_t> &sizes,
                 const std::vector<int64_t> &strides) {
  int64_t off = 0;
  for (int64_t d = (int64_t)sizes.size() - 1; d >= 0; --d) {
    int64_t s = sizes[d] ? sizes[d] : 1;
    off += (pos % s) * strides[d];
    pos /= s;
  }
  return off;
}

/// self and mask broadcast together; where the mask is set, the next element
/// of `source` (read in row-major order) replaces self's.
Tensor maskedScatter(const Tensor &self, const Tensor &mask, const Tensor &source) {
  const char *op = "aten::masked_scatter";
  check(mask.dtype() == DType::Bool || mask.dtype() == DType::UInt8, op,
        std::string("mask must be bool, got ") + dtypeName(mask.dtype()));
  check(source.dtype() == self.dtype(), op,
        std::string("source (") + dtypeName(source.dtype()) + ") and self (" +
            dtypeName(self.dtype()) + ") must have one dtype");
  std::vector<int64_t> shape = broadcastShapes(self.sizes(), mask.sizes(), op);
  Tensor out = emptyLike(shape, self.dtype(), self);
  if (isMeta(self) || out.numel() == 0) return out;
  std::vector<int64_t> ss = broadcastStrides(self, shape), ms = broadcastStrides(mask, shape);
  Tensor src = source.contiguous();
  size_t es = dtypeSize(self.dtype());
  const char *ps = static_cast<const char *>(self.rawData());
  const uint8_t *pm = static_cast<const uint8_t *>(mask.rawData());
  const char *pr = static_cast<const char *>(src.rawData());
  char *po = static_cast<char *>(out.rawData());
  int64_t next = 0, n = out.numel(), available = src.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (pm[offsetOf(i, shape, ms)]) {
      check(next < available, op,
            "source has " + std::to_string(available) + " elements, fewer than the mask's ones");
      std::memcpy(po + i * es, pr + next++ * es, es);
    } else {
      std::memcpy(po + i * es, ps + offsetOf(i, shape, ss) * es, es);
    }
  }
  return out;
}

/// masked_select: self and mask broadcast together, the elements where the
/// mask is set in row-major order, as a 1-d tensor (its size is data-dependent:
/// no Meta form).
Tensor maskedSelect(const Tensor &self, const Tensor &mask) {
  const char *op = "aten::masked_select";
  check(mask.dtype() == DType::Bool || mask.dtype() == DType::UInt8, op,
        std::string("mask must be bool, got ") + dtypeName(mask.dtype()));
  check(!isMeta(self) && !isMeta(mask), op, "the result's size is data-dependent and cannot be traced on Meta");
  std::vector<int64_t> shape = broadcastShapes(self.sizes(), mask.sizes(), op);
  std::vector<int64_t> ss = broadcastStrides(self, shape), ms = broadcastStrides(mask, shape);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const uint8_t *pm = static_cast<const uint8_t *>(mask.rawData());
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += pm[offsetOf(i, shape, ms)] != 0;
  Tensor out = emptyLike({count}, self.dtype(), self);
  size_t es = dtypeSize(self.dtype());
  const char *ps = static_cast<const char *>(self.rawData());
  char *po = static_cast<char *>(out.rawData());
  for (int64_t i = 0, next = 0; i < n; ++i)
    if (pm[offsetOf(i, shape, ms)]) std::memcpy(po + next++ * es, ps + offsetOf(i, shape, ss) * es, es);
  return out;
}

int64_t indexAt(const Tensor &t, int64_t i) {
  return t.dtype() == DType::Int32 ? (int64_t)t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

/// Bags of rows of `weight`: bag b takes indices[offsets[b] : offsets[b+1]]
/// (the last bag runs to the end of `indices`), skipping padding_idx, and
/// sums them (mode 0, each row scaled by its per-sample weight), averages
/// them (1) or takes their elementwise max (2); an empty bag gives zeros.
/// The other results are what ATen's CPU kernel returns: offset2bag (the bag
/// of each index; empty for a plain float32 sum), bag_size (rows per bag; zeros for
/// a sum), max_indices (the row each max came from; bag_size for a mean,
/// zeros for a sum).
std::tuple<Tensor, Tensor, Tensor, Tensor>
embeddingBag(const Tensor &weight, const Tensor &indices0, const Tensor &offsets0, bool,
             int64_t mode, bool, const std::optional<Tensor> &perSampleWeights,
             bool includeLastOffset, int64_t paddingIdx) {
  const char *op = "aten::_embedding_bag";
  check(weight.dim() == 2, op, "weight must be 2-d, got " + weight.shapeString());
  check(mode >= 0 && mode <= 2, op, "mode must be 0 (sum), 1 (mean) or 2 (max)");
  check(indices0.dtype() == DType::Int64 || indices0.dtype() == DType::Int32, op,
        "indices must be int64 or int32");
  check(offsets0.dtype() == indices0.dtype(), op, "offsets must have the dtype of indices");
  check(indices0.dim() == 1 && offsets0.dim() == 1, op,
        "indices and offsets must be 1-d (2-d indices are flattened by embedding_bag)");
  check(!perSampleWeights || mode == 0, op, "per_sample_weights are only supported for mode sum");
  int64_t N = indices0.numel(), V = weight.size(0), D = weight.size(1);
  int64_t B = offsets0.numel() - (includeLastOffset ? 1 : 0);
  check(B >= 0, op, "include_last_offset needs at least one offset");
  if (perSampleWeights)
    check(perSampleWeights->numel() == N && perSampleWeights->dtype() == weight.dtype(), op,
          "per_sample_weights must have one weight of weight's dtype per index");
  DType it = indices0.dtype();
  // ATen's fast path for sums (float32, float16, bfloat16 weights, no
  // padding_idx) leaves offset2bag empty; float64 weights fill it.
  bool plainSum = mode == 0 && paddingIdx < 0 && weight.dtype() != DType::Float64;
  Tensor out = emptyLike({B, D}, weight.dtype(), weight);
  Tensor offset2bag = emptyLike({plainSum ? 0 : N}, it, weight);
  Tensor bagSize = emptyLike({B}, it, weight);
  Tensor maxIndices = mode == 2 ? emptyLike({B, D}, it, weight) : emptyLike({B}, it, weight);
  if (isMeta(weight)) return {out, offset2bag, bagSize, maxIndices};
  Tensor indices = indices0.contiguous(), offsets = offsets0.contiguous();
  Tensor w = weight.contiguous();
  Tensor psw = perSampleWeights ? perSampleWeights->contiguous() : Tensor();
  auto store = [&](Tensor &t, int64_t i, int64_t v) {
    if (it == DType::Int32) t.data<int32_t>()[i] = (int32_t)v;
    else t.data<int64_t>()[i] = v;
  };
  for (int64_t i = 0; i < N; ++i) {
    int64_t v = indexAt(indices, i);
    check(v >= 0 && v < V, op, "index " + std::to_string(v) + " is out of range for " +
                                   std::to_string(V) + " rows");
  }
  dispatchFloat(weight.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *pw = w.data<T>();
    T *po = out.data<T>();
    for (int64_t b = 0; b < B; ++b) {
      int64_t lo = indexAt(offsets, b);
      int64_t hi = b + 1 < B ? indexAt(offsets, b + 1) : N;
      check(lo >= 0 && lo <= hi && hi <= N, op, "offsets must be non-decreasing and within indices");
      int64_t count = 0;
      T *row = po + b * D;
      std::fill(row, row + D, T(0));
      for (int64_t i = lo; i < hi; ++i) {
        if (!plainSum) store(offset2bag, i, b);
        int64_t v = indexAt(indices, i);
        if (v == paddingIdx) continue;
        const T *src = pw + v * D;
        T scale = perSampleWeights ? psw.data<T>()[i] : T(1);
        for (int64_t d = 0; d < D; ++d) {
          if (mode == 2) {
            if (count == 0 || src[d] > row[d]) {
              row[d] = src[d];
              store(maxIndices, b * D + d, v);
            }
          } else {
            row[d] += src[d] * scale;
          }
        }
        ++count;
      }
      if (mode == 1 && count > 0)
        for (int64_t d = 0; d < D; ++d) row[d] /= (T)count;
      if (mode == 2 && count == 0)
        for (int64_t d = 0; d < D; ++d) store(maxIndices, b * D + d, -1);
      store(bagSize, b, mode == 0 ? 0 : count);
      if (mode != 2) store(maxIndices, b, mode == 1 ? count : 0);
    }
  });
  return {out, offset2bag, bagSize, maxIndices};
}

/// embedding_bag.padding_idx: padding_idx None is -1.
std::tuple<Tensor, Tensor, Tensor, Tensor>
embeddingBagPaddingIdx(const Tensor &weight, const Tensor &indices, const Tensor &offsets,
                       bool scale, int64_t mode, bool sparse,
                       const std::optional<Tensor> &perSampleWeights, bool includeLastOffset,
                       const std::optional<int64_t> &paddingIdx) {
  return embeddingBag(weight, indices, offsets, scale, mode, sparse, perSampleWeights,
                      includeLastOffset, paddingIdx.value_or(-1));
}

} // namespace
} // namespace kiln::cpu

namespace {
/// The same kernel serves CPU and Meta (on Meta tensors it only computes shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("masked_scatter", maskedScatter);
  m.impl("masked_select", maskedSelect);
  m.impl("_embedding_bag", embeddingBag);
  m.impl("_embedding_bag_forward_only", embeddingBag);
  m.impl("embedding_bag.padding_idx", embeddingBagPaddingIdx);
}
} // namespace
