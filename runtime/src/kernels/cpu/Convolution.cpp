// kiln runtime — eager CPU (and Meta) kernels: convolutions over 1, 2 or 3 spatial dims
// (conv1d/2d/3d and their .padding forms ("valid", "same"), convolution, conv_transpose1d/2d/3d)
// and convolution_backward (plain), as im2col + GEMM (col2im for transposed) per image and group.
#include "Spatial.h"
#include "kiln/library.h"

#include <type_traits>

namespace kiln::cpu {
namespace {

constexpr int kDims = kSpatialDims;

/// One image's channels of one group and the window geometry: the forward
/// convolution maps `C` planes of size `in` to planes of size `out`.
struct Geometry {
  int64_t C;
  Dims in, k, out, stride, padding, dilation;
};

/// Calls f(inputOffset, columnOffset) for every (channel, tap, output position) whose tap lies inside
/// the input (others read padding), in col's layout: col[(c, kd, kh, kw), (od, oh, ow)].
template <typename F> void forEachTap(const Geometry &g, F f) {
  int64_t P = product(g.out), plane = product(g.in);
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
      for (int64_t kh = 0; kh < g.k[1]; ++kh)
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          int64_t row = ((c * g.k[0] + kd) * g.k[1] + kh) * g.k[2] + kw;
          for (int64_t od = 0; od < g.out[0]; ++od) {
            int64_t id = od * g.stride[0] - g.padding[0] + kd * g.dilation[0];
            if (id < 0 || id >= g.in[0]) continue;
            for (int64_t oh = 0; oh < g.out[1]; ++oh) {
              int64_t ih = oh * g.stride[1] - g.padding[1] + kh * g.dilation[1];
              if (ih < 0 || ih >= g.in[1]) continue;
              for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                int64_t iw = ow * g.stride[2] - g.padding[2] + kw * g.dilation[2];
                if (iw >= 0 && iw < g.in[2])
                  f(c * plane + (id * g.in[1] + ih) * g.in[2] + iw, row * P + (od * g.out[1] + oh) * g.out[2] + ow);
              }
            }
          }
        }
}

/// col = the input value under each kernel tap (0 in padding).
template <typename T> void im2col(const T *x, const Geometry &g, T *col) {
  std::fill(col, col + g.C * product(g.k) * product(g.out), T(0));
  forEachTap(g, [&](int64_t xi, int64_t ci) { col[ci] = x[xi]; });
}

/// The adjoint of im2col: adds each column entry back onto its input position.
template <typename T> void col2imAdd(const T *col, const Geometry &g, T *x) {
  forEachTap(g, [&](int64_t xi, int64_t ci) { x[xi] += col[ci]; });
}

struct ConvOperands {
  Tensor result, x, w, b;
  bool meta = false;

  /// Unless a tensor is Meta, runs `body(x, w, b, result)` on the data as the
  /// input's float type T (`const T *` for the operands, null b when there is
  /// no bias, `T *` for the result); returns the result.
  template <typename F> Tensor compute(const char *op, F body) {
    if (meta) return result;
    dispatchFloat(result.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      body(x.data<T>(), w.data<T>(), b.defined() ? b.data<T>() : static_cast<const T *>(nullptr),
           result.data<T>());
    });
    return result;
  }
};

/// What every convolution kernel checks and derives first: the spatial rank
/// from the weight, the input as [N, C, spatial...] (an unbatched input gets N = 1).
struct ConvSetup {
  int d;
  bool unbatched;
  Tensor input;
  Dims stride, padding, dilation;

  ConvSetup(const Tensor &input0, const Tensor &weight, const std::vector<int64_t> &stride0,
            const std::vector<int64_t> &padding0, const std::vector<int64_t> &dilation0, int64_t groups,
            const char *op)
      : d((int)weight.dim() - 2) {
    check(d >= 1 && d <= kDims, op, "expected a 3-D, 4-D or 5-D weight, got " + weight.shapeString());
    unbatched = input0.dim() == d + 1;
    check(input0.dim() == d + 2 || unbatched, op,
          "expected a " + std::to_string(d + 1) + "-D or " + std::to_string(d + 2) + "-D input for a " +
              std::to_string(d) + "-D convolution, got " + input0.shapeString());
    check(groups >= 1, op, "groups must be positive");
    std::vector<int64_t> s = input0.sizes();
    if (unbatched) s.insert(s.begin(), 1);
    input = unbatched ? input0.reshape(s) : input0;
    stride = spatialParam(stride0, d, 1, op, "stride");
    padding = spatialParam(padding0, d, 0, op, "padding");
    dilation = spatialParam(dilation0, d, 1, op, "dilation");
    for (int i = 0; i < kDims; ++i)
      check(stride[i] > 0 && dilation[i] > 0 && padding[i] >= 0, op,
            "stride and dilation must be positive and padding non-negative");
  }

  /// The output [N, OC, out...] (without N for an unbatched input) and, unless a tensor is
  /// Meta, the contiguous input and weight and the bias in the input's dtype.
  ConvOperands operands(const Tensor &weight, const Tensor &bias, int64_t N, int64_t OC, const Dims &out,
                        const char *op) const {
    if (bias.defined())
      check(bias.dim() == 1 && bias.size(0) == OC, op, "bias must have shape [" + std::to_string(OC) + "]");
    std::vector<int64_t> s = withSpatial({N, OC}, out, d);
    if (unbatched) s.erase(s.begin());
    ConvOperands r;
    r.result = Tensor::empty(s, input.dtype(), input.device());
    r.meta = isMeta(input) || isMeta(weight);
    if (r.meta) return r;
    check(weight.dtype() == input.dtype(), op, "input and weight must have the same dtype");
    r.x = input.contiguous();
    r.w = weight.contiguous();
    r.b = bias.defined() ? castTo(bias, input.dtype()) : Tensor();
    return r;
  }
};

template <typename T> void addBias(T *o, const T *pb, int64_t channels, int64_t P) {
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t p = 0; p < P; ++p) o[c * P + p] += pb[c];
}

Tensor convImpl(const Tensor &input0, const Tensor &weight, const Tensor &bias, const std::vector<int64_t> &stride,
                const std::vector<int64_t> &padding, const std::vector<int64_t> &dilation, int64_t groups,
                const char *op) {
  ConvSetup cs(input0, weight, stride, padding, dilation, groups, op);
  const Tensor &input = cs.input;
  int64_t N = input.size(0), C = input.size(1), OC = weight.size(0), ICg = weight.size(1);
  Dims in = spatialSizes(input, cs.d), k = spatialSizes(weight, cs.d), out;
  check(C == ICg * groups, op,
        "input has " + std::to_string(C) + " channels but weight " + weight.shapeString() +
            " with groups=" + std::to_string(groups) + " expects " + std::to_string(ICg * groups));
  check(OC % groups == 0, op, "out_channels must be divisible by groups");
  for (int i = 0; i < kDims; ++i) {
    // In 128 bits: hostile padding or dilation must not overflow. As ATen,
    // a dilated kernel wider than the padded input is an error.
    __int128 span = (__int128)in[i] + (__int128)2 * cs.padding[i] - (__int128)cs.dilation[i] * (k[i] - 1) - 1;
    check(span >= 0, op, "the kernel is larger than the padded input " + input.shapeString());
    __int128 o = span / cs.stride[i] + 1;
    check(o <= INT64_MAX, op, "the output of the convolution would have more than 2^63 elements along a dim");
    out[i] = (int64_t)o;
  }
  return cs.operands(weight, bias, N, OC, out, op).compute(op, [&](const auto *px, const auto *pw,
                                                                     const auto *pb, auto *po) {
    using T = std::remove_pointer_t<decltype(po)>;
    const int64_t OCg = OC / groups, Kdim = ICg * product(k), P = product(out), plane = product(in);
    Geometry geo{ICg, in, k, out, cs.stride, cs.padding, cs.dilation};
    tbb::parallel_for(int64_t(0), N * groups, [&](int64_t ng) {
      int64_t n = ng / groups, g = ng % groups;
      std::vector<T> col((size_t)(Kdim * P));
      im2col(px + (n * C + g * ICg) * plane, geo, col.data());
      T *o = po + (n * OC + g * OCg) * P;
      gemm<T>(OCg, P, Kdim, T(1), pw + g * OCg * Kdim, Kdim, 1, col.data(), P, 1, T(0), o);
      if (pb) addBias(o, pb + g * OCg, OCg, P);
    });
  });
}

/// A transposed convolution (the adjoint of convImpl's map from input to
/// output): weight [C_in, C_out / groups, K...]; each image's group is
/// W_g^T @ x spread back with col2im, then the bias.
Tensor convTransposeImpl(const Tensor &input0, const Tensor &weight, const Tensor &bias,
                         const std::vector<int64_t> &stride, const std::vector<int64_t> &padding,
                         const std::vector<int64_t> &outputPadding0, const std::vector<int64_t> &dilation,
                         int64_t groups, const char *op) {
  ConvSetup cs(input0, weight, stride, padding, dilation, groups, op);
  Dims outputPadding = spatialParam(outputPadding0, cs.d, 0, op, "output_padding");
  const Tensor &input = cs.input;
  int64_t N = input.size(0), C = input.size(1), OCg = weight.size(1), OC = 0;
  check(!__builtin_mul_overflow(OCg, groups, &OC), op, "output channels overflow int64");
  Dims in = spatialSizes(input, cs.d), k = spatialSizes(weight, cs.d), out;
  check(weight.size(0) == C && C % groups == 0, op,
        "input has " + std::to_string(C) + " channels but the transposed weight " + weight.shapeString() +
            " with groups=" + std::to_string(groups) + " expects " + std::to_string(weight.size(0)));
  for (int i = 0; i < kDims; ++i) {
    check(outputPadding[i] >= 0 && (outputPadding[i] < cs.stride[i] || outputPadding[i] < cs.dilation[i]), op,
          "output_padding must be smaller than either stride or dilation");
    // In 128 bits: hostile sizes, strides or dilations must not overflow.
    __int128 o = (__int128)(in[i] - 1) * cs.stride[i] - (__int128)2 * cs.padding[i] +
                 (__int128)cs.dilation[i] * (k[i] - 1) + outputPadding[i] + 1;
    check(o > 0, op, "the output of the transposed convolution would be empty");
    check(o <= INT64_MAX, op, "the output of the transposed convolution would have more than 2^63 elements along a dim");
    out[i] = (int64_t)o;
  }
  return cs.operands(weight, bias, N, OC, out, op).compute(op, [&](const auto *px, const auto *pw,
                                                                     const auto *pb, auto *po) {
    using T = std::remove_pointer_t<decltype(po)>;
    const int64_t ICg = C / groups, Kdim = OCg * product(k), P = product(in), Q = product(out);
    // The forward convolution this is the adjoint of maps (OC, out) to (C, in).
    Geometry geo{OCg, out, k, in, cs.stride, cs.padding, cs.dilation};
    tbb::parallel_for(int64_t(0), N * groups, [&](int64_t ng) {
      int64_t n = ng / groups, g = ng % groups;
      std::vector<T> col((size_t)(Kdim * P));
      gemm<T>(Kdim, P, ICg, T(1), pw + g * ICg * Kdim, 1, Kdim, px + (n * C + g * ICg) * P, P, 1, T(0),
              col.data());
      T *o = po + (n * OC + g * OCg) * Q;
      std::fill(o, o + OCg * Q, T(0));
      col2imAdd(col.data(), geo, o);
      if (pb) addBias(o, pb + g * OCg, OCg, Q);
    });
  });
}

Tensor biasOf(const std::optional<Tensor> &bias) { return bias ? *bias : Tensor(); }

Tensor conv(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
            std::vector<int64_t> stride, std::vector<int64_t> padding, std::vector<int64_t> dilation,
            int64_t groups, int d, const char *op) {
  check(weight.dim() == d + 2, op,
        "expected a " + std::to_string(d + 2) + "-D weight, got " + weight.shapeString());
  return convImpl(input, weight, biasOf(bias), stride, padding, dilation, groups, op);
}

Tensor conv1d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
              std::vector<int64_t> stride, std::vector<int64_t> padding, std::vector<int64_t> dilation,
              int64_t groups) {
  return conv(input, weight, bias, stride, padding, dilation, groups, 1, "aten::conv1d");
}
Tensor conv2d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
              std::vector<int64_t> stride, std::vector<int64_t> padding, std::vector<int64_t> dilation,
              int64_t groups) {
  return conv(input, weight, bias, stride, padding, dilation, groups, 2, "aten::conv2d");
}
Tensor conv3d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
              std::vector<int64_t> stride, std::vector<int64_t> padding, std::vector<int64_t> dilation,
              int64_t groups) {
  return conv(input, weight, bias, stride, padding, dilation, groups, 3, "aten::conv3d");
}

/// conv{1,2,3}d.padding: padding "valid" (none) or "same" (the output keeps the
/// input's size; stride 1 only). A kernel whose dilated extent is even needs one
/// more element after than before: the input is padded by that first, as ATen's
/// _convolution_mode does.
Tensor convPaddingMode(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                       std::vector<int64_t> stride, const std::string &mode, std::vector<int64_t> dilation,
                       int64_t groups, int d, const char *op) {
  check(weight.dim() == d + 2, op, "expected a " + std::to_string(d + 2) + "-D weight, got " + weight.shapeString());
  auto expand = [&](std::vector<int64_t> v, const char *what) {
    check(v.size() == 1 || v.size() == (size_t)d, op,
          std::string(what) + " must have 1 or " + std::to_string(d) + " values");
    if (v.size() == 1) v.assign(d, v[0]);
    return v;
  };
  stride = expand(stride, "stride");
  dilation = expand(dilation, "dilation");
  std::vector<int64_t> padding(d, 0);
  if (mode == "valid")
    return conv(input, weight, bias, stride, padding, dilation, groups, d, op);
  check(mode == "same", op, "padding must be \"valid\" or \"same\", got \"" + mode + "\"");
  for (int64_t s : stride) check(s == 1, op, "padding='same' is not supported for strided convolutions");
  std::vector<int64_t> extra(2 * d, 0); // constant_pad_nd's order: last dim first, (before, after)
  bool asymmetric = false;
  for (int i = 0; i < d; ++i) {
    int64_t total = dilation[i] * (weight.size(i + 2) - 1);
    padding[i] = total / 2;
    extra[2 * (d - 1 - i) + 1] = total - 2 * padding[i];
    asymmetric |= total % 2 != 0;
  }
  Tensor x = asymmetric ? call("aten::constant_pad_nd", input, extra, (int64_t)0) : input;
  return conv(x, weight, bias, stride, padding, dilation, groups, d, op);
}
Tensor conv1dPadding(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                     std::vector<int64_t> stride, std::string padding, std::vector<int64_t> dilation, int64_t groups) {
  return convPaddingMode(input, weight, bias, stride, padding, dilation, groups, 1, "aten::conv1d.padding");
}
Tensor conv2dPadding(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                     std::vector<int64_t> stride, std::string padding, std::vector<int64_t> dilation, int64_t groups) {
  return convPaddingMode(input, weight, bias, stride, padding, dilation, groups, 2, "aten::conv2d.padding");
}
Tensor conv3dPadding(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                     std::vector<int64_t> stride, std::string padding, std::vector<int64_t> dilation, int64_t groups) {
  return convPaddingMode(input, weight, bias, stride, padding, dilation, groups, 3, "aten::conv3d.padding");
}

Tensor convolution(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                   std::vector<int64_t> stride, std::vector<int64_t> padding,
                   std::vector<int64_t> dilation, bool transposed,
                   std::vector<int64_t> outputPadding, int64_t groups) {
  const char *op = "aten::convolution";
  return transposed ? convTransposeImpl(input, weight, biasOf(bias), stride, padding, outputPadding, dilation,
                                        groups, op)
                    : convImpl(input, weight, biasOf(bias), stride, padding, dilation, groups, op);
}

Tensor convTranspose(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                     std::vector<int64_t> stride, std::vector<int64_t> padding,
                     std::vector<int64_t> outputPadding, int64_t groups, std::vector<int64_t> dilation, int d,
                     const char *op) {
  check(weight.dim() == d + 2, op,
        "expected a " + std::to_string(d + 2) + "-D weight, got " + weight.shapeString());
  return convTransposeImpl(input, weight, biasOf(bias), stride, padding, outputPadding, dilation, groups, op);
}
Tensor convTranspose1d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                       std::vector<int64_t> stride, std::vector<int64_t> padding,
                       std::vector<int64_t> outputPadding, int64_t groups, std::vector<int64_t> dilation) {
  return convTranspose(input, weight, bias, stride, padding, outputPadding, groups, dilation, 1,
                       "aten::conv_transpose1d");
}
Tensor convTranspose2d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                       std::vector<int64_t> stride, std::vector<int64_t> padding,
                       std::vector<int64_t> outputPadding, int64_t groups, std::vector<int64_t> dilation) {
  return convTranspose(input, weight, bias, stride, padding, outputPadding, groups, dilation, 2,
                       "aten::conv_transpose2d");
}
Tensor convTranspose3d(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias,
                       std::vector<int64_t> stride, std::vector<int64_t> padding,
                       std::vector<int64_t> outputPadding, int64_t groups, std::vector<int64_t> dilation) {
  return convTranspose(input, weight, bias, stride, padding, outputPadding, groups, dilation, 3,
                       "aten::conv_transpose3d");
}

/// Gradients of a batched convolution (1 to 3 spatial dims) for input, weight
/// and bias (as output_mask asks).
std::tuple<Tensor, Tensor, Tensor>
convolutionBackward(const Tensor &gradOut, const Tensor &input, const Tensor &weight,
                    const std::optional<std::vector<int64_t>> &biasSizes, std::vector<int64_t> stride,
                    std::vector<int64_t> padding, std::vector<int64_t> dilation, bool transposed,
                    std::vector<int64_t> /*outputPadding*/, int64_t groups, std::vector<int64_t> mask) {
  const char *op = "aten::convolution_backward";
  check(!transposed, op, "transposed convolution has no eager CPU kernel yet");
  check(mask.size() == 3, op, "output_mask must have 3 entries");
  ConvSetup cs(input, weight, stride, padding, dilation, groups, op);
  check(!cs.unbatched && gradOut.dim() == input.dim(), op,
        "only batched convolutions have an eager CPU kernel");
  int64_t N = input.size(0), C = input.size(1), OC = weight.size(0), ICg = weight.size(1), OCg = OC / groups;
  Dims in = spatialSizes(input, cs.d), k = spatialSizes(weight, cs.d), out = spatialSizes(gradOut, cs.d);
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
    const int64_t Kdim = ICg * product(k), P = product(out), plane = product(in);
    Geometry geo{ICg, in, k, out, cs.stride, cs.padding, cs.dilation};
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
        col2imAdd(col.data(), geo, pi + (n * C + gr * ICg) * plane);
      });
    }
    if (gW.defined()) {
      T *pgw = gW.data<T>();
      std::fill(pgw, pgw + gW.numel(), T(0));
      std::vector<T> col((size_t)(Kdim * P));
      for (int64_t n = 0; n < N; ++n)
        for (int64_t gr = 0; gr < groups; ++gr) {
          im2col(px + (n * C + gr * ICg) * plane, geo, col.data());
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

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("conv1d", conv1d);
  m.impl("conv2d", conv2d);
  m.impl("conv3d", conv3d);
  m.impl("conv1d.padding", conv1dPadding);
  m.impl("conv2d.padding", conv2dPadding);
  m.impl("conv3d.padding", conv3dPadding);
  m.impl("convolution", convolution);
  m.impl("conv_transpose1d", convTranspose1d);
  m.impl("conv_transpose2d.input", convTranspose2d);
  m.impl("conv_transpose3d.input", convTranspose3d);
  m.impl("convolution_backward", convolutionBackward);
}

KILN_LIBRARY_FRAGMENT(aten, m) {
  for (int d = 1; d <= 3; ++d) {
    std::string n = std::to_string(d);
    m.def("conv" + n + "d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[" + n + "] stride=1, "
          "str padding=\"valid\", SymInt[" + n + "] dilation=1, SymInt groups=1) -> Tensor");
  }
  m.def("conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, "
        "SymInt[1] dilation=1, SymInt groups=1) -> Tensor");
  m.def("conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, "
        "SymInt[3] dilation=1, SymInt groups=1) -> Tensor");
  m.def("conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, "
        "SymInt[1] padding=0, SymInt[1] output_padding=0, SymInt groups=1, SymInt[1] dilation=1) -> Tensor");
  m.def("conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
        "SymInt[2] padding=0, SymInt[2] output_padding=0, SymInt groups=1, SymInt[2] dilation=1) -> Tensor");
  m.def("conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, "
        "SymInt[3] padding=0, SymInt[3] output_padding=0, SymInt groups=1, SymInt[3] dilation=1) -> Tensor");
}
