// kiln runtime — eager CPU (and Meta) kernels: relu, gelu, add.Tensor, mul.Tensor.
#include "KernelUtils.h"

#include <cmath>

namespace kiln::cpu {
namespace {

constexpr int64_t kGrain = 1 << 14;

template <typename F> Tensor unary(const Tensor &self, const char *op, F f) {
  Tensor x = self.contiguous();
  Tensor out = emptyLike(x.sizes(), x.dtype(), x);
  if (isMeta(x)) return out;
  dispatchFloat(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.data<T>();
    T *o = out.data<T>();
    parallelFor(x.numel(), kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = f(in[i]);
    });
  });
  return out;
}

Tensor relu(const Tensor &self) {
  return unary(self, "aten::relu", [](auto v) { return v > 0 ? v : decltype(v)(0); });
}

Tensor gelu(const Tensor &self, const std::string &approximate) {
  if (approximate == "none")
    return unary(self, "aten::gelu", [](auto v) {
      using T = decltype(v);
      return T(0.5) * v * (T(1) + std::erf(v * T(M_SQRT1_2)));
    });
  if (approximate == "tanh")
    return unary(self, "aten::gelu", [](auto v) {
      using T = decltype(v);
      const T k = T(M_2_SQRTPI * M_SQRT1_2); // sqrt(2/pi)
      return T(0.5) * v * (T(1) + std::tanh(k * (v + T(0.044715) * v * v * v)));
    });
  throw Error("kiln: aten::gelu: approximate must be 'none' or 'tanh', got '" + approximate + "'");
}

/// out = f(a, b) with broadcasting; both inputs converted to the promoted dtype.
template <typename F>
Tensor binary(const Tensor &a0, const Tensor &b0, const char *op, F f) {
  DType dt = promoteTypes(a0.dtype(), b0.dtype());
  std::vector<int64_t> shape = broadcastShapes(a0.sizes(), b0.sizes(), op);
  Tensor out = Tensor::empty(shape, dt, isMeta(a0) ? a0.device() : b0.device());
  if (isMeta(a0) || isMeta(b0)) return out;
  Tensor a = a0.dtype() == dt ? a0 : castTo(a0, dt);
  Tensor b = b0.dtype() == dt ? b0 : castTo(b0, dt);
  dispatchNumeric(dt, op, [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.data<T>(), *pb = b.data<T>();
    T *po = out.data<T>();
    int64_t n = out.numel();
    if (a.sizes() == shape && b.sizes() == shape && a.isContiguous() && b.isContiguous()) {
      parallelFor(n, kGrain, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) po[i] = f(pa[i], pb[i]);
      });
      return;
    }
    // General case: row-major over the output, innermost dim as a strided loop.
    std::vector<int64_t> sa = broadcastStrides(a, shape), sb = broadcastStrides(b, shape);
    int64_t rank = (int64_t)shape.size();
    int64_t inner = rank ? shape.back() : 1;
    int64_t ia = rank ? sa.back() : 0, ib = rank ? sb.back() : 0;
    int64_t rows = inner ? n / inner : 0;
    parallelFor(rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(inner, 1)),
                [&](int64_t r0, int64_t r1) {
                  for (int64_t r = r0; r < r1; ++r) {
                    int64_t rem = r, offA = 0, offB = 0;
                    for (int64_t d = rank - 2; d >= 0; --d) {
                      int64_t idx = rem % shape[d];
                      rem /= shape[d];
                      offA += idx * sa[d];
                      offB += idx * sb[d];
                    }
                    T *o = po + r * inner;
                    for (int64_t j = 0; j < inner; ++j) o[j] = f(pa[offA + j * ia], pb[offB + j * ib]);
                  }
                });
  });
  return out;
}

Tensor add(const Tensor &a, const Tensor &b, double alpha) {
  if (alpha == 1.0) return binary(a, b, "aten::add.Tensor", [](auto x, auto y) { return x + y; });
  return binary(a, b, "aten::add.Tensor", [alpha](auto x, auto y) {
    using T = decltype(x);
    return x + (T)alpha * y;
  });
}

Tensor mul(const Tensor &a, const Tensor &b) {
  return binary(a, b, "aten::mul.Tensor", [](auto x, auto y) { return x * y; });
}

} // namespace
} // namespace kiln::cpu

// The same functions serve Meta: on Meta tensors they only compute shapes.
KILN_LIBRARY_IMPL(aten, CPU, m) {
  using namespace kiln::cpu;
  m.impl("relu", relu);
  m.impl("gelu", gelu);
  m.impl("add.Tensor", add);
  m.impl("mul.Tensor", mul);
}
KILN_LIBRARY_IMPL(aten, Meta, m) {
  using namespace kiln::cpu;
  m.impl("relu", relu);
  m.impl("gelu", gelu);
  m.impl("add.Tensor", add);
  m.impl("mul.Tensor", mul);
}
