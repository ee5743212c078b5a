// kiln runtime — eager CPU (and Meta) kernels: relu, gelu, add.Tensor, mul.Tensor
// and the backward ops threshold_backward, gelu_backward.
#include "KernelUtils.h"
#include "TensorIter.h"

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

/// out = f(a, b) with broadcasting; both inputs converted to ATen's result type
/// (a 0-dim operand only raises the category: a float64 scalar tensor times a
/// float32 tensor is float32).
template <typename F>
Tensor binary(const Tensor &a0, const Tensor &b0, const char *op, F f) {
  DType dt = resultType({{&a0, nullptr}, {&b0, nullptr}});
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
  // Two bool tensors multiply as a logical and (ATen's mul on bool).
  if (resultType({{&a, nullptr}, {&b, nullptr}}) == DType::Bool)
    return mapPointwise<2>({a, b}, DType::Bool, DType::Bool, "aten::mul.Tensor",
                           [](const double *v) { return double(v[0] != 0 && v[1] != 0); });
  return binary(a, b, "aten::mul.Tensor", [](auto x, auto y) { return x * y; });
}

/// out = f(g, x) elementwise over two same-shape tensors.
template <typename F>
Tensor backwardMap(const Tensor &g0, const Tensor &x0, const char *op, F f) {
  check(g0.sizes() == x0.sizes(), op,
        "grad_output " + g0.shapeString() + " and self " + x0.shapeString() + " differ in shape");
  check(g0.dtype() == x0.dtype(), op, "grad_output and self differ in dtype");
  Tensor out = Tensor::empty(x0.sizes(), x0.dtype(), x0.device());
  if (isMeta(x0) || isMeta(g0)) return out;
  Tensor g = g0.contiguous(), x = x0.contiguous();
  dispatchFloat(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *pg = g.data<T>(), *px = x.data<T>();
    T *o = out.data<T>();
    parallelFor(x.numel(), kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = f(pg[i], px[i]);
    });
  });
  return out;
}

Tensor thresholdBackward(const Tensor &g, const Tensor &self, double threshold) {
  return backwardMap(g, self, "aten::threshold_backward", [threshold](auto gv, auto xv) {
    return xv <= (decltype(xv))threshold ? decltype(gv)(0) : gv;
  });
}

Tensor geluBackward(const Tensor &g, const Tensor &self, const std::string &approximate) {
  const char *op = "aten::gelu_backward";
  if (approximate == "none")
    return backwardMap(g, self, op, [](auto gv, auto x) {
      using T = decltype(x);
      T cdf = T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2)));
      T pdf = std::exp(T(-0.5) * x * x) * T(0.5 * M_2_SQRTPI * M_SQRT1_2);
      return gv * (cdf + x * pdf);
    });
  if (approximate == "tanh")
    return backwardMap(g, self, op, [](auto gv, auto x) {
      using T = decltype(x);
      const T k = T(M_2_SQRTPI * M_SQRT1_2), c = T(0.044715);
      T inner = k * (x + c * x * x * x);
      T th = std::tanh(inner);
      T dinner = k * (T(1) + T(3) * c * x * x);
      return gv * (T(0.5) * (T(1) + th) + T(0.5) * x * (T(1) - th * th) * dinner);
    });
  throw Error("kiln: aten::gelu_backward: approximate must be 'none' or 'tanh', got '" + approximate + "'");
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("relu", relu);
  m.impl("gelu", gelu);
  m.impl("add.Tensor", add);
  m.impl("mul.Tensor", mul);
  m.impl("threshold_backward", thresholdBackward);
  m.impl("gelu_backward", geluBackward);
}
