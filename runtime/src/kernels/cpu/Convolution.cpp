// kiln runtime — eager CPU (and Meta) kernels: conv2d, conv1d, convolution and
// conv_transpose1d/2d (1-D and 2-D, plain and transposed) and convolution_backward
// (2-D, plain), as im2col + GEMM (col2im for transposed) per image and group.
#include "KernelUtils.h"

namespace kiln::cpu {
namespace {

std::vector<int64_t> pair2(const std::vector<int64_t> &v, const char *op, const char *what) {
  if (v.size() == 1) return {v[0], v[0]};
  check(v.size() == 2, op, std::string(what) + " must have 1 or 2 values");
  return v;
}

/// One image's channels of one group, and the window geometry.
struct Geometry {
  int64_t C, H, W, KH, KW, OH, OW;
  std::vector<int64_t> stride, padding, dilation;
};

/// col[(c, kh, kw), (oh, ow)] = the input value under that kernel tap (0 in padding).
template <typename T> void im2col(const T *x, const Geometry &g, T *col) {
  int64_t P = g.OH * g.OW;
  for (int64_t c = 0; c < g.C; ++c) {
    const T *plane = x + c * g.H * g.W;
    for (int64_t kh = 0; kh < g.KH; ++kh)
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        T *row = col + ((c * g.KH + kh) * g.KW + kw) * P;
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          int64_t ih = oh * g.stride[0] - g.padding[0] + kh * g.dilation[0];
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            int64_t iw = ow * g.stride[1] - g.padding[1] + kw * g.dilation[1];
            row[oh * g.OW + ow] = (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W) ? plane[ih * g.W + iw] : T(0);
          }
        }
      }
  }
}

/// The adjoint of im2col: adds each column entry back onto its input position.
template <typename T> void col2imAdd(const T *col, const Geometry &g, T *x) {
  int64_t P = g.OH * g.OW;
  for (int64_t c = 0; c < g.C; ++c) {
    T *plane = x + c * g.H * g.W;
    for (int64_t kh = 0; kh < g.KH; ++kh)
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const T *row = col + ((c * g.KH + kh) * g.KW + kw) * P;
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          int64_t ih = oh * g.stride[0] - g.padding[0] + kh * g.dilation[0];
          if (ih < 0 || ih >= g.H) continue;
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            int64_t iw = ow * g.stride[1] - g.padding[1] + kw * g.dilation[1];
            if (iw >= 0 && iw < g.W) plane[ih * g.W + iw] += row[oh * g.OW + ow];
          }
        }
      }
  }
}

Tensor conv2dImpl(const Tensor &input0, const Tensor &weight, const Tensor &bias,
                  std::vector<int64_t> stride, std::vector<int64_t> padding,
                  std::vector<int64_t> dilation, int64_t groups, const char *op) {
  stride = pair2(stride, op, "stride");
  padding = pair2(padding, op, "padding");
  dilation = pair2(dilation, op, "dilation");
  bool unbatched = input0.dim() == 3;
  check(input0.dim() == 4 || unbatched, op,
        "expected a 3-D or 4-D input (N, C, H, W), got " + input0.shapeString());
  check(weight.dim() == 4, op, "expected a 4-D weight, got " + weight.shapeString());
  check(groups >= 1, op, "groups must be positive");
  Tensor input = unbatched ? input0.reshape({1, input0.size(0), input0.size(1), input0.size(2)}) : input0;
  int64_t N = input.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  int64_t OC = weight.size(0), ICg = weight.size(1), KH = weight.size(2), KW = weight.size(3);
  check(C == ICg * groups, op,
        "input has " + std::to_string(C) + " channels but weight " + weight.shapeString() +
            " with groups=" + std::to_string(groups) + " expects " + std::to_string(ICg * groups));
  check(OC % groups == 0, op, "out_channels must be divisible by groups");
  for (int i = 0; i < 2; ++i)
    check(stride[i] > 0 && dilation[i] > 0 && padding[i] >= 0, op,
          "stride and dilation must be positive and padding non-negative");
  int64_t OH = (H + 2 * padding[0] - dilation[0] * (KH - 1) - 1) / stride[0] + 1;
  int64_t OW = (W + 2 * padding[1] - dilation[1] * (KW - 1) - 1) / stride[1] + 1;
  check(OH > 0 && OW > 0, op, "the kernel is larger than the padded input " + input.shapeString());
  if (bias.defined())
    check(bias.dim() == 1 && bias.size(0) == OC, op, "bias must have shape [" + std::to_string(OC) + "]");
  Tensor out = Tensor::empty({N, OC, OH, OW}, input.dtype(), input.device());
  if (!isMeta(input) && !isMeta(weight)) {
    check(weight.dtype() == input.dtype(), op, "input and weight must have the same dtype");
    Tensor x = input.contiguous(), w = weight.contiguous();
    Tensor b = bias.defined() ? castTo(bias, input.dtype()) : Tensor();
    dispatchFloat(input.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      const int64_t OCg = OC / groups, Kdim = ICg * KH * KW, P = OH * OW;
      const T *px = x.data<T>(), *pw = w.data<T>();
      const T *pb = b.defined() ? b.data<T>() : nullptr;
      T *po = out.data<T>();
      tbb::parallel_for(int64_t(0), N * groups, [&](int64_t ng) {
        int64_t n = ng / groups, g = ng % groups;
        std::vector<T> col((size_t)(Kdim * P));
        Geometry geo{ICg, H, W, KH, KW, OH, OW, stride, padding, dilation};
        im2col(px + (n * C + g * ICg) * H * W, geo, col.data());
        T *o = po + (n * OC + g * OCg) * P;
        gemm<T>(OCg, P, Kdim, T(1), pw + g * OCg * Kdim, Kdim, 1, col.data(), P, 1, T(0), o);
        if (pb)
          for (int64_t oc = 0; oc < OCg; ++oc) {
            T bv = pb[g * OCg + oc];
            for (int64_t p = 0; p < P; ++p) o[oc * P + p] += bv;
          }
      });
    });
  }
  return unbatched ? out.reshape({OC, OH, OW}) : out;
}

/// A transposed 2-D convolution (the adjoint of conv2dImpl's map from input to
/// output): weight [C_in, C_out / groups, KH, KW]; each image's group is
/// W_g^T @ x spread back with col2im, then the bias.
Tensor convTranspose2dImpl(const Tensor &input0, const Tensor &weight, const Tensor &bias,
                           std::vector<int64_t> stride, std::vector<int64_t> padding,
                           std::vector<int64_t> outputPadding, std::vector<int64_t> dilation,
                           int64_t groups, const char *op) {
  stride = pair2(stride, op, "stride");
  padding = pair2(padding, op, "padding");
  dilation = pair2(dilation, op, "dilation");
  outputPadding = outputPadding.empty() ? std::vector<int64_t>{0, 0} : pair2(outputPadding, op, "output_padding");
  bool unbatched = input0.dim() == 3;
  check(input0.dim() == 4 || unbatched, op,
        "expected a 3-D or 4-D input (N, C, H, W), got " + input0.shapeString());
  check(weight.dim() == 4, op, "expected a 4-D weight, got " + weight.shapeString());
  check(groups >= 1, op, "groups must be positive");
  Tensor input = unbatched ? input0.reshape({1, input0.size(0), input0.size(1), input0.size(2)}) : input0;
  int64_t N = input.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  int64_t OCg = weight.size(1), KH = weight.size(2), KW = weight.size(3), OC = OCg * groups;
  check(weight.size(0) == C && C % groups == 0, op,
        "input has " + std::to_string(C) + " channels but the transposed weight " + weight.shapeString() +
            " with groups=" + std::to_string(groups) + " expects " + std::to_string(weight.size(0)));
  for (int i = 0; i < 2; ++i) {
    check(stride[i] > 0 && dilation[i] > 0 && padding[i] >= 0, op,
          "stride and dilation must be positive and padding non-negative");
    check(outputPadding[i] >= 0 && (outputPadding[i] < stride[i] || outputPadding[i] < dilation[i]), op,
          "output_padding must be smaller than either stride or dilation");
  }
  int64_t OH = (H - 1) * stride[0] - 2 * padding[0] + dilation[0] * (KH - 1) + outputPadding[0] + 1;
  int64_t OW = (W - 1) * stride[1] - 2 * padding[1] + dilation[1] * (KW - 1) + outputPadding[1] + 1;
  check(OH > 0 && OW > 0, op, "the output of the transposed convolution would be empty");
  if (bias.defined())
    check(bias.dim() == 1 && bias.size(0) == OC, op, "bias must have shape [" + std::to_string(OC) + "]");
  Tensor out = Tensor::empty({N, OC, OH, OW}, input.dtype(), input.device());
  if (!isMeta(input) && !isMeta(weight)) {
    check(weight.dtype() == input.dtype(), op, "input and weight must have the same dtype");
    Tensor x = input.contiguous(), w = weight.contiguous();
    Tensor b = bias.defined() ? castTo(bias, input.dtype()) : Tensor();
    dispatchFloat(input.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      const int64_t ICg = C / groups, Kdim = OCg * KH * KW, P = H * W;
      const T *px = x.data<T>(), *pw = w.data<T>();
      const T *pb = b.defined() ? b.data<T>() : nullptr;
      T *po = out.data<T>();
      // The forward convolution this is the adjoint of maps (OC, OH, OW) to (C, H, W).
      Geometry geo{OCg, OH, OW, KH, KW, H, W, stride, padding, dilation};
      tbb::parallel_for(int64_t(0), N * groups, [&](int64_t ng) {
        int64_t n = ng / groups, g = ng % groups;
        std::vector<T> col((size_t)(Kdim * P));
        gemm<T>(Kdim, P, ICg, T(1), pw + g * ICg * Kdim, 1, Kdim, px + (n * C + g * ICg) * P, P, 1, T(0),
                col.data());
        T *o = po + (n * OC + g * OCg) * OH * OW;
        std::fill(o, o + OCg * OH * OW, T(0));
        col2imAdd(col.data(), geo, o);
        if (pb)
          for (int64_t oc = 0; oc < OCg; ++oc) {
            T bv = pb[g * OCg + oc];
            for (int64_t q = 0; q < OH * OW; ++q) o[oc * OH * OW + q] += bv;
          }
      });
    });
  }
  return unbatched ? out.reshape({OC, OH, OW}) : out;
}

/// A 1-D convolution (weight [O, I, K]) as a 2-D one over a height of 1.
template <typename Conv2d>
Tensor as1d(const Tensor &input, const Tensor &weight, std::vector<int64_t> &stride,
            std::vector<int64_t> &padding, std::vector<int64_t> &dilation,
            std::vector<int64_t> *outputPadding, const char *op, Conv2d conv2d) {
  check(input.dim() == 3 || input.dim() == 2, op,
        "expected a 2-D or 3-D input (N, C, L) for a 1-D convolution, got " + input.shapeString());
  auto lift = [&](std::vector<int64_t> &v, int64_t unit, const char *what) {
    check(v.size() <= 1, op, std::string(what) + " of a 1-D convolution must have 1 value");
    v = {unit, v.empty() ? (unit == 1 ? 1 : 0) : v[0]};
  };
  lift(stride, 1, "stride");
  lift(padding, 0, "padding");
  lift(dilation, 1, "dilation");
  if (outputPadding) lift(*outputPadding, 0, "output_padding");
  std::vector<int64_t> s4 = input.sizes();
  s4.insert(s4.end() - 1, 1);
  Tensor w4 = weight.reshape({weight.size(0), weight.size(1), 1, weight.size(2)});
  Tensor out = conv2d(input.reshape(s4), w4);
  std::vector<int64_t> s3 = out.sizes();
  s3.erase(s3.end() - 2);
  return out.reshape(s3);
}

Tensor conv2d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
              std::vector<int64_t> stride, std::vector<int64_t> padding,
              std::vector<int64_t> dilation, int64_t groups) {
  return conv2dImpl(input, weight, bias ? *bias : Tensor(), stride, padding, dilation, groups,
                    "aten::conv2d");
}

Tensor convolution(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                   std::vector<int64_t> stride, std::vector<int64_t> padding,
                   std::vector<int64_t> dilation, bool transposed,
                   std::vector<int64_t> outputPadding, int64_t groups) {
  const char *op = "aten::convolution";
  check(weight.dim() == 4 || weight.dim() == 3, op,
        "only 1-D and 2-D convolutions have an eager CPU kernel (weight " + weight.shapeString() + ")");
  Tensor b = bias ? *bias : Tensor();
  auto run2d = [&](const Tensor &x, const Tensor &w) {
    return transposed ? convTranspose2dImpl(x, w, b, stride, padding, outputPadding, dilation, groups, op)
                      : conv2dImpl(x, w, b, stride, padding, dilation, groups, op);
  };
  if (weight.dim() == 3)
    return as1d(input, weight, stride, padding, dilation, &outputPadding, op, run2d);
  return run2d(input, weight);
}

Tensor conv1d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
              std::vector<int64_t> stride, std::vector<int64_t> padding, std::vector<int64_t> dilation,
              int64_t groups) {
  const char *op = "aten::conv1d";
  check(weight.dim() == 3, op, "expected a 3-D weight, got " + weight.shapeString());
  Tensor b = bias ? *bias : Tensor();
  return as1d(input, weight, stride, padding, dilation, nullptr, op, [&](const Tensor &x, const Tensor &w) {
    return conv2dImpl(x, w, b, stride, padding, dilation, groups, op);
  });
}

Tensor convTranspose2d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                       std::vector<int64_t> stride, std::vector<int64_t> padding,
                       std::vector<int64_t> outputPadding, int64_t groups, std::vector<int64_t> dilation) {
  return convTranspose2dImpl(input, weight, bias ? *bias : Tensor(), stride, padding, outputPadding, dilation,
                             groups, "aten::conv_transpose2d");
}

Tensor convTranspose1d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                       std::vector<int64_t> stride, std::vector<int64_t> padding,
                       std::vector<int64_t> outputPadding, int64_t groups, std::vector<int64_t> dilation) {
  const char *op = "aten::conv_transpose1d";
  check(weight.dim() == 3, op, "expected a 3-D weight, got " + weight.shapeString());
  Tensor b = bias ? *bias : Tensor();
  return as1d(input, weight, stride, padding, dilation, &outputPadding, op, [&](const Tensor &x, const Tensor &w) {
    return convTranspose2dImpl(x, w, b, stride, padding, outputPadding, dilation, groups, op);
  });
}

/// Gradients of a 2-D convolution for input, weight and bias (as output_mask asks).
std::tuple<Tensor, Tensor, Tensor>
convolutionBackward(const Tensor &gradOut, const Tensor &input, const Tensor &weight,
                    const std::optional<std::vector<int64_t>> &biasSizes, std::vector<int64_t> stride,
                    std::vector<int64_t> padding, std::vector<int64_t> dilation, bool transposed,
                    std::vector<int64_t> /*outputPadding*/, int64_t groups, std::vector<int64_t> mask) {
  const char *op = "aten::convolution_backward";
  check(!transposed, op, "transposed convolution has no eager CPU kernel yet");
  check(input.dim() == 4 && weight.dim() == 4 && gradOut.dim() == 4, op,
        "only batched 2-D convolution has an eager CPU kernel");
  check(mask.size() == 3, op, "output_mask must have 3 entries");
  stride = pair2(stride, op, "stride");
  padding = pair2(padding, op, "padding");
  dilation = pair2(dilation, op, "dilation");
  int64_t N = input.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  int64_t OC = weight.size(0), ICg = weight.size(1), KH = weight.size(2), KW = weight.size(3);
  int64_t OH = gradOut.size(2), OW = gradOut.size(3), OCg = OC / groups;
  check(gradOut.size(0) == N && gradOut.size(1) == OC, op,
        "grad_output " + gradOut.shapeString() + " does not match input and weight");
  Tensor gI = mask[0] ? Tensor::empty(input.sizes(), input.dtype(), input.device()) : Tensor();
  Tensor gW = mask[1] ? Tensor::empty(weight.sizes(), weight.dtype(), weight.device()) : Tensor();
  Tensor gB = mask[2] ? Tensor::empty({biasSizes && !biasSizes->empty() ? (*biasSizes)[0] : OC},
                                      gradOut.dtype(), gradOut.device())
                      : Tensor();
  if (isMeta(input) || isMeta(gradOut) || isMeta(weight)) return {gI, gW, gB};
  Tensor g = gradOut.contiguous(), x = input.contiguous(), w = weight.contiguous();
  dispatchFloat(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const int64_t Kdim = ICg * KH * KW, P = OH * OW;
    Geometry geo{ICg, H, W, KH, KW, OH, OW, stride, padding, dilation};
    const T *pg = g.data<T>(), *px = x.data<T>(), *pw = w.data<T>();
    if (gB.defined()) {
      T *b = gB.data<T>();
      for (int64_t oc = 0; oc < OC; ++oc) {
        double s = 0;
        for (int64_t n = 0; n < N; ++n)
          for (int64_t p = 0; p < P; ++p) s += pg[(n * OC + oc) * P + p];
        b[oc] = (T)s;
      }
    }
    if (gI.defined()) {
      T *pi = gI.data<T>();
      std::fill(pi, pi + gI.numel(), T(0));
      tbb::parallel_for(int64_t(0), N * groups, [&](int64_t ng) {
        int64_t n = ng / groups, gr = ng % groups;
        std::vector<T> col((size_t)(Kdim * P));
        // col = W_g^T @ g_ng
        gemm<T>(Kdim, P, OCg, T(1), pw + gr * OCg * Kdim, 1, Kdim, pg + (n * OC + gr * OCg) * P, P, 1,
                T(0), col.data());
        col2imAdd(col.data(), geo, pi + (n * C + gr * ICg) * H * W);
      });
    }
    if (gW.defined()) {
      T *pgw = gW.data<T>();
      std::fill(pgw, pgw + gW.numel(), T(0));
      std::vector<T> col((size_t)(Kdim * P));
      for (int64_t n = 0; n < N; ++n)
        for (int64_t gr = 0; gr < groups; ++gr) {
          im2col(px + (n * C + gr * ICg) * H * W, geo, col.data());
          // gW_g += g_ng @ col^T
          gemm<T>(OCg, Kdim, P, T(1), pg + (n * OC + gr * OCg) * P, P, 1, col.data(), 1, P, T(1),
                  pgw + gr * OCg * Kdim);
        }
    }
  });
  return {gI, gW, gB};
}

} // namespace
} // namespace kiln::cpu

namespace {
/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
void registerKernels(kiln::Library &m) {
  using namespace kiln::cpu;
  m.impl("conv2d", conv2d);
  m.impl("convolution", convolution);
  m.impl("conv1d", conv1d);
  m.impl("conv_transpose1d", convTranspose1d);
  m.impl("conv_transpose2d.input", convTranspose2d);
  m.impl("convolution_backward", convolutionBackward);
}
} // namespace

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, "
        "SymInt[1] dilation=1, SymInt groups=1) -> Tensor");
  m.def("conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, "
        "SymInt[1] padding=0, SymInt[1] output_padding=0, SymInt groups=1, SymInt[1] dilation=1) -> Tensor");
  m.def("conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
        "SymInt[2] padding=0, SymInt[2] output_padding=0, SymInt groups=1, SymInt[2] dilation=1) -> Tensor");
}

KILN_LIBRARY_IMPL(aten, CPU, m) { registerKernels(m); }
KILN_LIBRARY_IMPL(aten, Meta, m) { registerKernels(m); }
