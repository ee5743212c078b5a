// kiln example plugin — kilntest::scaled_gelu(x, scale) = gelu(x) * scale
// (exact erf GELU): schema, CPU kernel, fake function, autograd formula and
// batching rule.
#include "kiln/library.h"

#include <cmath>

namespace {

using kiln::Tensor;

// The CPU kernel: float32 and float64, any strides (made contiguous first).
Tensor scaledGelu(const Tensor &x0, double scale) {
  Tensor x = x0.contiguous();
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.data<T>();
    T *o = out.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i)
      o[i] = T(0.5) * in[i] * (T(1) + std::erf(in[i] * T(M_SQRT1_2))) * T(scale);
  };
  if (x.dtype() == kiln::DType::Float32) run(float{});
  else if (x.dtype() == kiln::DType::Float64) run(double{});
  else throw kiln::Error("kilntest::scaled_gelu: expected a float32 or float64 tensor");
  return out;
}

// The fake function: same shape and dtype, on the Meta device, no data.
Tensor scaledGeluFake(const Tensor &x, double /*scale*/) {
  return Tensor::empty(x.sizes(), x.dtype(), x.device());
}

// The backward formula: d/dx [gelu(x) * s] = (Phi(x) + x * phi(x)) * s.
std::vector<Tensor> scaledGeluBackward(const kiln::AutogradContext &ctx,
                                       const std::vector<Tensor> &grads) {
  Tensor x = ctx.input(0).contiguous();
  Tensor g = grads.at(0).contiguous();
  double scale = ctx.inputs.at(1).toDouble();
  Tensor gx = Tensor::empty(x.sizes(), x.dtype());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>(), *pg = g.data<T>();
    T *o = gx.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      T v = px[i];
      T cdf = T(0.5) * (T(1) + std::erf(v * T(M_SQRT1_2)));
      T pdf = std::exp(T(-0.5) * v * v) * T(0.5 * M_2_SQRTPI * M_SQRT1_2); // 1/sqrt(2*pi)
      o[i] = (cdf + v * pdf) * T(scale) * pg[i];
    }
  };
  if (x.dtype() == kiln::DType::Float32) run(float{});
  else run(double{});
  return {gx, Tensor()}; // no gradient for `scale`
}

// The batching rule: the op is elementwise, so the kernel runs on the whole
// batched tensor at once and the batch stays where it was.
kiln::VmapResult scaledGeluVmap(const kiln::VmapInfo &, const kiln::InDims &inDims,
                                const kiln::Stack &args) {
  Tensor out = scaledGelu(args.at(0).toTensor(), args.at(1).toDouble());
  return {{kiln::IValue(out)}, {inDims.at(0)}};
}

} // namespace

KILN_LIBRARY(kilntest, m) {
  m.def("scaled_gelu(Tensor x, float scale) -> Tensor");
  m.impl_fake("scaled_gelu", scaledGeluFake);
  m.register_autograd("scaled_gelu", scaledGeluBackward);
  m.register_vmap("scaled_gelu", scaledGeluVmap);
}

KILN_LIBRARY_IMPL(kilntest, CPU, m) { m.impl("scaled_gelu", scaledGelu); }
