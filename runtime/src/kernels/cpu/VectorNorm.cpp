// kiln runtime — eager CPU (and Meta) linalg_vector_norm over any dims with any
// ord (2, 1, inf, -inf, 0, or p), accumulated in float64.
#include "TensorIter.h"

#include <cmath>
#include <limits>

namespace kiln::cpu {
namespace {

Tensor vectorNorm(const Tensor &self, IValue ordV, std::optional<std::vector<int64_t>> dims, bool keepdim,
                  std::optional<DType> dtype) {
  const char *op = "aten::linalg_vector_norm";
  check(isFloatingPoint(self.dtype()), op,
        std::string("expected a floating point input, got ") + dtypeTorchName(self.dtype()));
  double ord = scalarValue(ordV, op);
  std::vector<bool> red(self.dim(), !dims || dims->empty());
  if (dims)
    for (int64_t d : *dims) red[wrapDim(d, self.dim(), op)] = true;
  std::vector<int64_t> outShape, keepShape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    keepShape.push_back(red[d] ? 1 : self.size(d));
    if (!red[d] || keepdim) outShape.push_back(keepShape.back());
  }
  DType dt = dtype.value_or(self.dtype());
  Tensor out = Tensor::empty(outShape, dt, self.device());
  if (isMeta(out)) return out;
  bool inf = std::isinf(ord);
  Tensor acc = Tensor::zeros(keepShape, DType::Float64);
  if (inf && ord < 0) {
    double *pa = acc.data<double>();
    for (int64_t i = 0; i < acc.numel(); ++i) pa[i] = std::numeric_limits<double>::infinity();
  }
  std::array<std::vector<int64_t>, 2> st{self.strides(), broadcastStrides(acc, self.sizes())};
  const char *pi = elemPtr(self, 0);
  double *pa = acc.data<double>();
  size_t ie = dtypeSize(self.dtype());
  forEachIndex<2>(self.sizes(), st, [&](const std::array<int64_t, 2> &o) {
    double a = std::fabs(loadDouble(pi + o[0] * ie, self.dtype()));
    double &r = pa[o[1]];
    if (inf) r = ord > 0 ? std::max(r, a) : std::min(r, a);
    else if (ord == 0) r += a != 0;
    else if (ord == 1) r += a;
    else if (ord == 2) r += a * a;
    else r += std::pow(a, ord);
  });
  for (int64_t i = 0; i < acc.numel(); ++i)
    if (!inf && ord != 0 && ord != 1) pa[i] = ord == 2 ? std::sqrt(pa[i]) : std::pow(pa[i], 1.0 / ord);
  copyInto(out, acc.reshape(outShape), op);
  return out;
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) { m.impl("linalg_vector_norm", vectorNorm); }

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor");
}
