// kiln test plugin — ops with deliberate bugs that opcheck must catch, and
// one correct mutating op it must accept.
#include "kiln/library.h"

#include <cmath>

namespace {
using kiln::Tensor;

Tensor twice(const Tensor &x0) {
  Tensor x = x0.contiguous(), out = Tensor::empty(x.sizes(), x.dtype());
  for (int64_t i = 0; i < x.numel(); ++i) out.data<float>()[i] = 2 * x.data<float>()[i];
  return out;
}

template <typename T> void scaledGeluLoop(const T *in, T *o, int64_t n, double scale) {
  for (int64_t i = 0; i < n; ++i)
    o[i] = T(0.5) * in[i] * (T(1) + std::erf(in[i] * T(M_SQRT1_2))) * T(scale);
}
Tensor scaledGelu(const Tensor &x0, double scale) {
  Tensor x = x0.contiguous(), out = Tensor::empty(x.sizes(), x.dtype());
  if (x.dtype() == kiln::DType::Float64)
    scaledGeluLoop(x.data<double>(), out.data<double>(), x.numel(), scale);
  else
    scaledGeluLoop(x.data<float>(), out.data<float>(), x.numel(), scale);
  return out;
}
} // namespace

KILN_LIBRARY(kilnbroken, m) {
  // Fake function that gets the shape wrong (one extra column).
  m.def("wrong_fake(Tensor x) -> Tensor");
  m.impl_fake("wrong_fake", [](const Tensor &x) {
    std::vector<int64_t> s = x.sizes();
    s.back() += 1;
    return Tensor::empty(s, x.dtype(), x.device());
  });

  // Backward formula that forgets the `scale` factor.
  m.def("wrong_grad(Tensor x, float scale) -> Tensor");
  m.impl_fake("wrong_grad", [](const Tensor &x, double) {
    return Tensor::empty(x.sizes(), x.dtype(), x.device());
  });
  m.register_autograd("wrong_grad", [](const kiln::AutogradContext &ctx,
                                        const std::vector<Tensor> &g) -> std::vector<Tensor> {
    Tensor x = ctx.input(0).contiguous(), gx = Tensor::empty(x.sizes(), x.dtype());
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = x.data<double>()[i];
      double d = 0.5 * (1 + std::erf(v * M_SQRT1_2)) + v * std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
      gx.data<double>()[i] = d * g[0].contiguous().data<double>()[i];
    }
    return {gx};
  });

  // Writes into its input without saying so in the schema.
  m.def("sneaky_mutation(Tensor x) -> Tensor");
  m.impl_fake("sneaky_mutation", [](const Tensor &x) {
    return Tensor::empty(x.sizes(), x.dtype(), x.device());
  });

  // Returns its input itself: an alias the schema does not declare.
  m.def("sneaky_alias(Tensor x) -> Tensor");
  m.impl_fake("sneaky_alias", [](const Tensor &x) { return x; });

  // Writes into its input and says so: correct.
  m.def("declared_mutation(Tensor(a!) x) -> ()");
  m.impl_fake("declared_mutation", [](const Tensor &) {});
}

KILN_LIBRARY_IMPL(kilnbroken, CPU, m) {
  m.impl("wrong_fake", twice);
  m.impl("wrong_grad", scaledGelu);
  m.impl("sneaky_mutation", [](const Tensor &x) {
    Tensor out = twice(x);
    Tensor xc = x; // shares storage
    for (int64_t i = 0; i < xc.numel(); ++i) xc.data<float>()[i] = 0;
    return out;
  });
  m.impl("sneaky_alias", [](const Tensor &x) { return x; });
  m.impl("declared_mutation", [](const Tensor &x) {
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] *= 2;
  });
}
