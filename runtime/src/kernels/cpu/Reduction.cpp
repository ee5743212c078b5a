// kiln runtime — eager CPU (and Meta) kernels: mean.dim, sum.dim_IntList.
#include "KernelUtils.h"

#include <algorithm>

namespace kiln::cpu {
namespace {

/// Sum or mean over `dims0` (None or empty: every dim).
Tensor reduceDims(const Tensor &self, const std::optional<std::vector<int64_t>> &dims0, bool keepdim,
                  const std::optional<DType> &dtype, bool mean, const char *op) {
  DType outType = dtype ? *dtype : self.dtype();
  check(isFloatingPoint(outType), op,
        std::string("the eager kernel needs a floating-point dtype, got ") + dtypeName(outType));
  int64_t rank = self.dim();
  std::vector<bool> reduce(rank, false);
  if (!dims0 || dims0->empty()) {
    std::fill(reduce.begin(), reduce.end(), true);
  } else {
    for (int64_t d : *dims0) {
      int64_t w = wrapDim(d, rank, op);
      if (rank == 0) continue;
      check(!reduce[w], op, "dim " + std::to_string(w) + " appears twice in the list");
      reduce[w] = true;
    }
  }
  std::vector<int64_t> outShape, keptSizes, order;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduce[d]) {
      if (keepdim) outShape.push_back(1);
      inner *= self.size(d);
    } else {
      outShape.push_back(self.size(d));
      outer *= self.size(d);
      order.push_back(d);
    }
  }
  for (int64_t d = 0; d < rank; ++d)
    if (reduce[d]) order.push_back(d);
  Tensor out = Tensor::empty(outShape, outType, self.device());
  if (isMeta(self)) return out;
  // Move the reduced dims innermost, then reduce contiguous rows.
  std::vector<int64_t> ps, pst;
  for (int64_t d : order) {
    ps.push_back(self.size(d));
    pst.push_back(self.stride(d));
  }
  Tensor perm = Tensor::view(self.storage(), self.offset(), ps, pst, self.dtype());
  Tensor x = castTo(perm.contiguous(), outType);
  dispatchFloat(outType, op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    parallelFor(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        double s = 0;
        const T *p = px + o * inner;
        for (int64_t i = 0; i < inner; ++i) s += p[i];
        po[o] = !mean ? (T)s : inner ? (T)(s / (double)inner) : std::numeric_limits<T>::quiet_NaN();
      }
    });
  });
  return out;
}

Tensor meanDim(const Tensor &self, const std::optional<std::vector<int64_t>> &dims, bool keepdim,
               const std::optional<DType> &dtype) {
  return reduceDims(self, dims, keepdim, dtype, true, "aten::mean.dim");
}
Tensor sumDim(const Tensor &self, const std::optional<std::vector<int64_t>> &dims, bool keepdim,
              const std::optional<DType> &dtype) {
  return reduceDims(self, dims, keepdim, dtype, false, "aten::sum.dim_IntList");
}

} // namespace
} // namespace kiln::cpu

namespace {
/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
void registerKernels(kiln::Library &m) {
  m.impl("mean.dim", kiln::cpu::meanDim);
  m.impl("sum.dim_IntList", kiln::cpu::sumDim);
}
} // namespace

KILN_LIBRARY_IMPL(aten, CPU, m) { registerKernels(m); }
KILN_LIBRARY_IMPL(aten, Meta, m) { registerKernels(m); }
