// kiln runtime — backward formulas of the aten ops kiln knows, written in
// other dispatcher ops (mostly ATen's own *_backward ops), so eager programs
// can be differentiated with autograd::Tape.
#include "FormulaUtils.h"
#include "kiln/library.h"

#include <cmath>

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;
using Ctx = AutogradContext;

Tensor full(const std::vector<int64_t> &shape, double v, DType dt) {
  Tensor t = Tensor::empty(shape, dt);
  if (dt == DType::Float64) std::fill(t.data<double>(), t.data<double>() + t.numel(), v);
  else if (dt == DType::Float32) std::fill(t.data<float>(), t.data<float>() + t.numel(), (float)v);
  else throw Error("kiln: autograd formulas need floating-point tensors");
  return t;
}
Tensor scaled(const Tensor &g, double s) {
  return s == 1.0 ? g : call<Tensor>("aten::mul.Tensor", g, full({}, s, g.dtype()));
}
Tensor mm(const Tensor &a, const Tensor &b) { return call<Tensor>("aten::mm", a, b); }
Tensor tr(const Tensor &a) { return call<Tensor>("aten::t", a); }
Tensor reshape(const Tensor &a, const std::vector<int64_t> &s) { return call<Tensor>("aten::reshape", a, s); }

using formulas::sumTo; // sums a broadcast gradient back to a shape
/// Broadcasts a reduced gradient back over the reduced dims, times `scale`.
Tensor expandReduced(const Tensor &g, const Tensor &x, const IValue &dims, bool keepdim, double scale) {
  std::vector<int64_t> keep = x.sizes();
  std::vector<bool> reduced(x.dim(), dims.isNone() || dims.toIntList().empty());
  if (!dims.isNone())
    for (int64_t d : dims.toIntList()) reduced[d < 0 ? d + x.dim() : d] = true;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (reduced[d]) keep[d] = 1;
  Tensor gk = keepdim ? g : reshape(g, keep);
  return call<Tensor>("aten::mul.Tensor", gk, full(x.sizes(), scale, g.dtype()));
}

/// Eval-mode batch norm: y = (x - mean) * invstd * w + b per channel (dim 1).
Grads batchNormEval(const Ctx &c, const Tensor &g, const IValue &weight, const Tensor &mean,
                    const Tensor &var, double eps) {
  const Tensor &x = c.input(0);
  int64_t C = x.size(1);
  std::vector<int64_t> bc(x.dim(), 1);
  bc[1] = C;
  Tensor m = mean.contiguous(), v = var.contiguous();
  Tensor invstd = Tensor::empty({C}, x.dtype()), negMean = Tensor::empty({C}, x.dtype());
  Tensor wInv = Tensor::empty({C}, x.dtype()), negWInv = Tensor::empty({C}, x.dtype());
  Tensor dVar = Tensor::empty({C}, x.dtype()); // d invstd / d var, times w
  Tensor w = weight.isNone() ? Tensor() : weight.toTensor().contiguous();
  for (int64_t i = 0; i < C; ++i) {
    auto rd = [&](const Tensor &t) {
      return t.dtype() == DType::Float64 ? t.data<double>()[i] : (double)t.data<float>()[i];
    };
    double is = 1.0 / std::sqrt(rd(v) + eps), wi = w.defined() ? rd(w) : 1.0;
    double vals[5] = {is, -rd(m), is * wi, -is * wi, -0.5 * wi * is * is};
    Tensor *dst[5] = {&invstd, &negMean, &wInv, &negWInv, &dVar};
    for (int k = 0; k < 5; ++k) {
      if (x.dtype() == DType::Float64) dst[k]->data<double>()[i] = vals[k];
      else dst[k]->data<float>()[i] = (float)vals[k];
    }
  }
  std::vector<int64_t> others;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != 1) others.push_back(d);
  Tensor gx = call<Tensor>("aten::mul.Tensor", g, reshape(wInv, bc));
  Tensor xhat = call<Tensor>("aten::mul.Tensor", call<Tensor>("aten::add.Tensor", x, reshape(negMean, bc)),
                             reshape(invstd, bc));
  Tensor gw = call<Tensor>("aten::sum.dim_IntList", call<Tensor>("aten::mul.Tensor", g, xhat), others);
  Tensor gb = call<Tensor>("aten::sum.dim_IntList", g, others);
  // The running statistics are inputs too (buffers, usually not requiring grad).
  Tensor gMean = call<Tensor>("aten::mul.Tensor", gb, negWInv);
  Tensor gVar = call<Tensor>("aten::mul.Tensor", gw, dVar); // sum(g * xhat) * -w/2 * invstd^2
  return {gx, w.defined() ? gw : Tensor(), gb, gMean, gVar};
}

Grads convBackward(const Ctx &c, const Tensor &g, const IValue &stride, const IValue &padding,
                   const IValue &dilation, int64_t groups) {
  const Tensor &x = c.input(0), &w = c.input(1);
  bool hasBias = !c.inputs[2].isNone();
  IValue biasSizes = hasBias ? IValue(std::vector<int64_t>{w.size(0)}) : IValue();
  auto [gx, gw, gb] = call<std::tuple<Tensor, Tensor, Tensor>>(
      "aten::convolution_backward", g, x, w, biasSizes, stride, padding, dilation, false,
      std::vector<int64_t>{0, 0}, groups, std::vector<bool>{true, true, hasBias});
  return {gx, gw, hasBias ? gb : Tensor()};
}

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  m.register_autograd("relu", [](const Ctx &c, const Grads &g) -> Grads {
    return {call<Tensor>("aten::threshold_backward", g[0], c.input(0), 0.0)};
  });
  m.register_autograd("gelu", [](const Ctx &c, const Grads &g) -> Grads {
    return {call<Tensor>("aten::gelu_backward", g[0], c.input(0), c.inputs[1])};
  });
  m.register_autograd("add.Tensor", [](const Ctx &c, const Grads &g) -> Grads {
    return {sumTo(g[0], c.input(0).sizes()), sumTo(scaled(g[0], c.inputs[2].toDouble()), c.input(1).sizes())};
  });
  m.register_autograd("mul.Tensor", [](const Ctx &c, const Grads &g) -> Grads {
    return {sumTo(call<Tensor>("aten::mul.Tensor", g[0], c.input(1)), c.input(0).sizes()),
            sumTo(call<Tensor>("aten::mul.Tensor", g[0], c.input(0)), c.input(1).sizes())};
  });
  m.register_autograd("mm", [](const Ctx &c, const Grads &g) -> Grads {
    return {mm(g[0], tr(c.input(1))), mm(tr(c.input(0)), g[0])};
  });
  m.register_autograd("addmm", [](const Ctx &c, const Grads &g) -> Grads {
    double beta = c.inputs[3].toDouble(), alpha = c.inputs[4].toDouble();
    return {sumTo(scaled(g[0], beta), c.input(0).sizes()), scaled(mm(g[0], tr(c.input(2))), alpha),
            scaled(mm(tr(c.input(1)), g[0]), alpha)};
  });
  m.register_autograd("linear", [](const Ctx &c, const Grads &g) -> Grads {
    const Tensor &x = c.input(0), &w = c.input(1);
    if (w.dim() != 2) throw Error("kiln: the linear backward formula needs a 2-D weight");
    int64_t N = w.size(0), K = w.size(1);
    Tensor g2 = reshape(g[0], {-1, N}), x2 = reshape(x, {-1, K});
    Tensor gb = c.inputs[2].isNone() ? Tensor()
                                     : call<Tensor>("aten::sum.dim_IntList", g2, std::vector<int64_t>{0});
    return {reshape(mm(g2, w), x.sizes()), mm(tr(g2), x2), gb};
  });
  m.register_autograd("permute", [](const Ctx &c, const Grads &g) -> Grads {
    std::vector<int64_t> dims = c.inputs[1].toIntList(), inv(dims.size());
    int64_t r = (int64_t)dims.size();
    for (int64_t i = 0; i < r; ++i) inv[dims[i] < 0 ? dims[i] + r : dims[i]] = i;
    return {call<Tensor>("aten::permute", g[0], inv)};
  });
  m.register_autograd("t", [](const Ctx &, const Grads &g) -> Grads { return {tr(g[0])}; });
  m.register_autograd("transpose.int", [](const Ctx &c, const Grads &g) -> Grads {
    return {call<Tensor>("aten::transpose.int", g[0], c.inputs[1], c.inputs[2])};
  });
  for (const char *viewOp : {"view", "reshape", "flatten.using_ints"})
    m.register_autograd(viewOp, [](const Ctx &c, const Grads &g) -> Grads {
      return {reshape(g[0], c.input(0).sizes())};
    });
  m.register_autograd("mean.dim", [](const Ctx &c, const Grads &g) -> Grads {
    const Tensor &x = c.input(0);
    int64_t n = c.output(0).numel();
    double count = n ? (double)x.numel() / (double)n : 1.0;
    return {expandReduced(g[0], x, c.inputs[1], c.inputs[2].toBool(), 1.0 / count)};
  });
  m.register_autograd("sum.dim_IntList", [](const Ctx &c, const Grads &g) -> Grads {
    return {expandReduced(g[0], c.input(0), c.inputs[1], c.inputs[2].toBool(), 1.0)};
  });
  m.register_autograd("conv2d", [](const Ctx &c, const Grads &g) -> Grads {
    return convBackward(c, g[0], c.inputs[3], c.inputs[4], c.inputs[5], c.inputs[6].toInt());
  });
  m.register_autograd("convolution", [](const Ctx &c, const Grads &g) -> Grads {
    if (c.inputs[6].toBool()) throw Error("kiln: no backward formula for transposed convolution yet");
    return convBackward(c, g[0], c.inputs[3], c.inputs[4], c.inputs[5], c.inputs[8].toInt());
  });
  m.register_autograd("max_pool2d", [](const Ctx &c, const Grads &g) -> Grads {
    const Stack &a = c.inputs;
    auto [out, idx] = call<std::tuple<Tensor, Tensor>>("aten::max_pool2d_with_indices", a[0], a[1], a[2],
                                                        a[3], a[4], a[5]);
    return {call<Tensor>("aten::max_pool2d_with_indices_backward", g[0], a[0], a[1], a[2], a[3], a[4],
                         a[5], idx)};
  });
  m.register_autograd("max_pool2d_with_indices", [](const Ctx &c, const Grads &g) -> Grads {
    const Stack &a = c.inputs;
    return {call<Tensor>("aten::max_pool2d_with_indices_backward", g[0], a[0], a[1], a[2], a[3], a[4],
                         a[5], c.output(1))};
  });
  m.register_autograd("adaptive_avg_pool2d", [](const Ctx &c, const Grads &g) -> Grads {
    return {call<Tensor>("aten::_adaptive_avg_pool2d_backward", g[0], c.input(0))};
  });
  m.register_autograd("batch_norm", [](const Ctx &c, const Grads &g) -> Grads {
    if (c.inputs[5].toBool()) throw Error("kiln: no eager backward formula for training-mode batch_norm yet");
    Grads r = batchNormEval(c, g[0], c.inputs[1], c.inputs[3].toTensor(), c.inputs[4].toTensor(),
                            c.inputs[7].toDouble());
    return {r[0], r[1], c.inputs[2].isNone() ? Tensor() : r[2], r[3], r[4]};
  });
  m.register_autograd("_native_batch_norm_legit_no_training", [](const Ctx &c, const Grads &g) -> Grads {
    Grads r = batchNormEval(c, g[0], c.inputs[1], c.input(3), c.input(4), c.inputs[6].toDouble());
    return {r[0], r[1], c.inputs[2].isNone() ? Tensor() : r[2], r[3], r[4]};
  });
}
