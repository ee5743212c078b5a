// kiln runtime — eager CPU (and Meta) kernels: _softmax, _log_softmax.
#include "KernelUtils.h"

#include <cmath>

namespace kiln::cpu {
namespace {

/// Softmax (or log-softmax) of `self` along `dim`, max-subtracted as ATen does.
Tensor softmaxImpl(const Tensor &self, int64_t dim, bool halfToFloat, bool log, const char *op) {
  check(!halfToFloat, op, "half_to_float is only for float16 inputs on CUDA");
  int64_t rank = self.dim();
  int64_t d = rank ? wrapDim(dim, rank, op) : 0;
  Tensor out = Tensor::empty(self.sizes(), self.dtype(), self.device());
  if (isMeta(self) || self.numel() == 0) return out;
  int64_t n = rank ? self.size(d) : 1, inner = 1;
  for (int64_t i = d + 1; i < rank; ++i) inner *= self.size(i);
  int64_t outer = self.numel() / (n * inner);
  Tensor x = self.contiguous();
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    parallelFor(outer * inner, 64, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t o = r / inner, i = r % inner;
        const T *p = px + o * n * inner + i;
        T *q = po + o * n * inner + i;
        double mx = -INFINITY;
        for (int64_t k = 0; k < n; ++k) mx = std::max(mx, (double)p[k * inner]);
        if (std::isinf(mx)) mx = 0; // all -inf (or an inf): no shift, as ATen
        double s = 0;
        for (int64_t k = 0; k < n; ++k) s += std::exp((double)p[k * inner] - mx);
        for (int64_t k = 0; k < n; ++k) {
          double v = (double)p[k * inner] - mx;
          q[k * inner] = (T)(log ? v - std::log(s) : std::exp(v) / s);
        }
      }
    });
  });
  return out;
}

Tensor softmax(const Tensor &self, int64_t dim, bool halfToFloat) {
  return softmaxImpl(self, dim, halfToFloat, false, "aten::_softmax");
}
Tensor logSoftmax(const Tensor &self, int64_t dim, bool halfToFloat) {
  return softmaxImpl(self, dim, halfToFloat, true, "aten::_log_softmax");
}

} // namespace
} // namespace kiln::cpu

namespace {
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("_softmax", softmax);
  m.impl("_log_softmax", logSoftmax);
}
} // namespace
