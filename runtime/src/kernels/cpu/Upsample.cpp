// kiln runtime — eager CPU (and Meta) 2-D window and resampling kernels:
// avg_pool2d (ceil_mode, count_include_pad, divisor_override) and
// upsample_bilinear2d/upsample_bicubic2d/upsample_nearest2d/_upsample_nearest_exact2d/upsample_linear1d
// (.vec), with ATen's source-index rules,
// and the antialiased _upsample_bilinear2d_aa/_upsample_bicubic2d_aa (both overloads).
#include "KernelUtils.h"

#include <array>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace kiln::cpu {
namespace {

/// Runs f(plane) over the N*C planes of a 3-D [C,H,W] or 4-D [N,C,H,W] tensor.
template <typename F> void forEachPlane(int64_t planes, F f) {
  parallelFor(planes, 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) f(p);
  });
}

/// Runs f(in, out) over the planes of contiguous `x` (`inPlane` elements each) and `out`
/// (`outPlane` each), typed by x's float dtype.
template <typename F>
void forEachPlanePair(const Tensor &x, Tensor &out, int64_t inPlane, int64_t outPlane, const char *op, F f) {
  dispatchFloat(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.data<T>();
    T *o = out.data<T>();
    forEachPlane(x.numel() / std::max<int64_t>(1, inPlane),
                 [&](int64_t pl) { f(in + pl * inPlane, o + pl * outPlane); });
  });
}

std::vector<int64_t> pair(const std::vector<int64_t> &v, const char *op, const char *what, int64_t dflt) {
  if (v.empty()) return {dflt, dflt};
  check(v.size() == 1 || v.size() == 2, op, std::string(what) + " must have 1 or 2 entries");
  return v.size() == 1 ? std::vector<int64_t>{v[0], v[0]} : v;
}

int64_t poolOut(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil) {
  // In 128 bits: the padded input and the window may each be near 2^63.
  using Wide = __int128;
  Wide out = ((Wide)in + 2 * (Wide)p - k + (ceil ? (Wide)s - 1 : 0)) / s + 1;
  if (ceil && (out - 1) * s >= (Wide)in + p) --out;
  return out > 0 ? (int64_t)out : 0;
}

Tensor avgPool2d(const Tensor &self, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                 std::vector<int64_t> padding, bool ceil, bool countPad, std::optional<int64_t> divisor) {
  const char *op = "aten::avg_pool2d";
  check(self.dim() == 3 || self.dim() == 4, op, "expects a 3-D or 4-D input, got " + self.shapeString());
  auto k = pair(kernel, op, "kernel_size", 1);
  auto s = stride.empty() ? k : pair(stride, op, "stride", 1);
  auto p = pair(padding, op, "padding", 0);
  check(k[0] > 0 && k[1] > 0 && s[0] > 0 && s[1] > 0, op, "kernel_size and stride must be positive");
  check(p[0] <= k[0] / 2 && p[1] <= k[1] / 2, op, "padding should be at most half of the kernel size");
  check(!divisor || *divisor != 0, op, "divisor must not be zero");
  int64_t H = self.size(-2), W = self.size(-1);
  int64_t OH = poolOut(H, k[0], s[0], p[0], ceil), OW = poolOut(W, k[1], s[1], p[1], ceil);
  check(OH > 0 && OW > 0, op, "the output size is too small for input " + self.shapeString());
  std::vector<int64_t> shape = self.sizes();
  shape[shape.size() - 2] = OH;
  shape.back() = OW;
  Tensor out = emptyLike(shape, self.dtype(), self);
  if (isMeta(out)) return out;
  Tensor x = self.contiguous();
  forEachPlanePair(x, out, H * W, OH * OW, op, [&](const auto *ip, auto *op2) {
    using T = std::remove_pointer_t<decltype(op2)>;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t h0 = oh * s[0] - p[0], w0 = ow * s[1] - p[1];
          int64_t h1 = std::min(h0 + k[0], H + p[0]), w1 = std::min(w0 + k[1], W + p[1]);
          int64_t poolSize = (h1 - h0) * (w1 - w0);
          h0 = std::max<int64_t>(h0, 0);
          w0 = std::max<int64_t>(w0, 0);
          h1 = std::min(h1, H);
          w1 = std::min(w1, W);
          T sum = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) sum += ip[h * W + w];
          int64_t div = divisor ? *divisor : countPad ? poolSize : (h1 - h0) * (w1 - w0);
          op2[oh * OW + ow] = div ? sum / (T)div : T(0);
        }
  });
  return out;
}

/// The output size and source-index scale of one upsampled dim.
struct Axis {
  int64_t in, out;
  std::optional<double> scale; ///< the user's scale factor, if given
};
std::vector<Axis> upsampleAxes(const Tensor &x, const std::optional<std::vector<int64_t>> &size,
                               const std::optional<std::vector<double>> &scales, const char *op) {
  check(x.dim() == 4, op, "expects a 4-D input, got " + x.shapeString());
  check(size.has_value() != scales.has_value(), op, "exactly one of output_size and scale_factors must be given");
  std::vector<Axis> ax(2);
  for (int i = 0; i < 2; ++i) {
    ax[i].in = x.size(2 + i);
    if (size) {
      check(size->size() == 2, op, "output_size must have 2 entries");
      ax[i].out = (*size)[i];
    } else {
      check(scales->size() == 2, op, "scale_factors must have 2 entries");
      ax[i].scale = (*scales)[i];
      ax[i].out = (int64_t)std::floor(ax[i].in * (*scales)[i]);
    }
    check(ax[i].in > 0 && ax[i].out > 0, op, "input and output sizes must be positive");
  }
  return ax;
}
/// ATen's area_pixel_compute_scale.
double pixelScale(const Axis &a, bool alignCorners) {
  if (alignCorners) return a.out > 1 ? (double)(a.in - 1) / (a.out - 1) : 0.0;
  return a.scale && *a.scale > 0 ? 1.0 / *a.scale : (double)a.in / a.out;
}

Tensor upsampleBilinear(const Tensor &self, std::optional<std::vector<int64_t>> size, bool alignCorners,
                        std::optional<std::vector<double>> scales) {
  const char *op = "aten::upsample_bilinear2d.vec";
  auto ax = upsampleAxes(self, size, scales, op);
  Tensor out = emptyLike({self.size(0), self.size(1), ax[0].out, ax[1].out}, self.dtype(), self);
  if (isMeta(out)) return out;
  Tensor x = self.contiguous();
  int64_t H = ax[0].in, W = ax[1].in, OH = ax[0].out, OW = ax[1].out;
  double sh = pixelScale(ax[0], alignCorners), sw = pixelScale(ax[1], alignCorners);
  // Per output coordinate: the two source indices and the weight of the second.
  auto coords = [&](int64_t n, int64_t in, double scale, std::vector<int64_t> &i0, std::vector<int64_t> &i1,
                    std::vector<double> &l1) {
    i0.resize(n); i1.resize(n); l1.resize(n);
    for (int64_t d = 0; d < n; ++d) {
      double src = alignCorners ? d * scale : std::max((d + 0.5) * scale - 0.5, 0.0);
      int64_t a = std::min<int64_t>((int64_t)src, in - 1);
      i0[d] = a;
      i1[d] = a + (a < in - 1 ? 1 : 0);
      l1[d] = std::min(std::max(src - a, 0.0), 1.0);
    }
  };
  std::vector<int64_t> h0, h1, w0, w1;
  std::vector<double> lh, lw;
  coords(OH, H, sh, h0, h1, lh);
  coords(OW, W, sw, w0, w1, lw);
  forEachPlanePair(x, out, H * W, OH * OW, op, [&](const auto *ip, auto *q) {
    using T = std::remove_pointer_t<decltype(q)>;
      for (int64_t oh = 0; oh < OH; ++oh) {
        T a1 = (T)lh[oh], a0 = T(1) - a1;
        for (int64_t ow = 0; ow < OW; ++ow) {
          T b1 = (T)lw[ow], b0 = T(1) - b1;
          q[oh * OW + ow] = a0 * (b0 * ip[h0[oh] * W + w0[ow]] + b1 * ip[h0[oh] * W + w1[ow]]) +
                            a1 * (b0 * ip[h1[oh] * W + w0[ow]] + b1 * ip[h1[oh] * W + w1[ow]]);
        }
      }
  });
  return out;
}

/// Bicubic upsampling (ATen's cubic convolution, A = -0.75): each output reads a 4 x 4
/// neighbourhood of its source position, indices clamped to the input.
Tensor upsampleBicubic(const Tensor &self, std::optional<std::vector<int64_t>> size, bool alignCorners,
                       std::optional<std::vector<double>> scales) {
  const char *op = "aten::upsample_bicubic2d.vec";
  auto ax = upsampleAxes(self, size, scales, op);
  Tensor out = emptyLike({self.size(0), self.size(1), ax[0].out, ax[1].out}, self.dtype(), self);
  if (isMeta(out)) return out;
  Tensor x = self.contiguous();
  int64_t H = ax[0].in, W = ax[1].in, OH = ax[0].out, OW = ax[1].out;
  constexpr double A = -0.75;
  auto near = [](double t) { return ((A + 2) * t - (A + 3)) * t * t + 1; };      // |t| <= 1
  auto far = [](double t) { return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A; }; // 1 < |t| < 2
  // Per output coordinate: four source indices and their weights.
  auto taps = [&](int64_t n, int64_t in, double scale, std::vector<std::array<int64_t, 4>> &idx,
                  std::vector<std::array<double, 4>> &wt) {
    idx.resize(n);
    wt.resize(n);
    for (int64_t d = 0; d < n; ++d) {
      double src = alignCorners ? d * scale : (d + 0.5) * scale - 0.5;
      double f = std::floor(src), t = src - f;
      for (int k = 0; k < 4; ++k)
        idx[d][k] = std::min<int64_t>(std::max<int64_t>((int64_t)f - 1 + k, 0), in - 1);
      wt[d] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
    }
  };
  std::vector<std::array<int64_t, 4>> hi, wi;
  std::vector<std::array<double, 4>> hw, ww;
  taps(OH, H, pixelScale(ax[0], alignCorners), hi, hw);
  taps(OW, W, pixelScale(ax[1], alignCorners), wi, ww);
  forEachPlanePair(x, out, H * W, OH * OW, op, [&](const auto *ip, auto *q) {
    using T = std::remove_pointer_t<decltype(q)>;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = 0;
          for (int a = 0; a < 4; ++a) {
            double row = 0;
            for (int b = 0; b < 4; ++b) row += ww[ow][b] * (double)ip[hi[oh][a] * W + wi[ow][b]];
            acc += hw[oh][a] * row;
          }
          q[oh * OW + ow] = (T)acc;
        }
  });
  return out;
}

/// Nearest upsampling; `exact` (_upsample_nearest_exact2d) reads the source
/// pixel whose centre is nearest, floor((d + 0.5) * scale), instead of floor(d * scale).
Tensor upsampleNearestImpl(const Tensor &self, std::optional<std::vector<int64_t>> size,
                           std::optional<std::vector<double>> scales, bool exact, const char *op) {
  auto ax = upsampleAxes(self, size, scales, op);
  Tensor out = emptyLike({self.size(0), self.size(1), ax[0].out, ax[1].out}, self.dtype(), self);
  if (isMeta(out)) return out;
  Tensor x = self.contiguous();
  int64_t H = ax[0].in, W = ax[1].in, OH = ax[0].out, OW = ax[1].out;
  auto srcIndex = [exact](int64_t d, const Axis &a) {
    double scale = a.scale && *a.scale > 0 ? 1.0 / *a.scale : (double)a.in / a.out;
    float at = exact ? ((float)d + 0.5f) * (float)scale : (float)d * (float)scale;
    return std::min<int64_t>((int64_t)std::floor(at), a.in - 1);
  };
  std::vector<int64_t> hs(OH), ws(OW);
  for (int64_t d = 0; d < OH; ++d) hs[d] = srcIndex(d, ax[0]);
  for (int64_t d = 0; d < OW; ++d) ws[d] = srcIndex(d, ax[1]);
  int64_t planes = x.size(0) * x.size(1);
  size_t es = dtypeSize(x.dtype());
  const char *in = static_cast<const char *>(x.rawData());
  char *o = static_cast<char *>(out.rawData());
  forEachPlane(planes, [&](int64_t pl) {
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow)
        std::memcpy(o + ((pl * OH + oh) * OW + ow) * es, in + ((pl * H + hs[oh]) * W + ws[ow]) * es, es);
  });
  return out;
}
Tensor upsampleNearest(const Tensor &self, std::optional<std::vector<int64_t>> size,
                       std::optional<std::vector<double>> scales) {
  return upsampleNearestImpl(self, size, scales, false, "aten::upsample_nearest2d.vec");
}
Tensor upsampleNearestExact(const Tensor &self, std::optional<std::vector<int64_t>> size,
                            std::optional<std::vector<double>> scales) {
  return upsampleNearestImpl(self, size, scales, true, "aten::_upsample_nearest_exact2d.vec");
}

/// upsample_linear1d.vec: a [N, C, L] input upsampled as a [N, C, 1, L] image whose
/// height stays 1 (bilinear weights along the one dim).
Tensor upsampleLinear1d(const Tensor &self, std::optional<std::vector<int64_t>> size, bool alignCorners,
                        std::optional<std::vector<double>> scales) {
  const char *op = "aten::upsample_linear1d.vec";
  check(self.dim() == 3, op, "expects a 3-D input, got " + self.shapeString());
  check(!size || size->size() == 1, op, "output_size must have 1 entry");
  check(!scales || scales->size() == 1, op, "scale_factors must have 1 entry");
  std::optional<std::vector<int64_t>> size2;
  std::optional<std::vector<double>> scales2;
  if (size) size2 = std::vector<int64_t>{1, (*size)[0]};
  if (scales) scales2 = std::vector<double>{1.0, (*scales)[0]};
  Tensor x = self.contiguous().reshape({self.size(0), self.size(1), 1, self.size(2)});
  Tensor r = upsampleBilinear(x, size2, alignCorners, scales2);
  return r.reshape({r.size(0), r.size(1), r.size(3)});
}


/// ATen's antialiasing filters: the triangle and Keys' cubic convolution (A = -0.5).
template <typename T> T aaTriangle(T x) {
  x = std::abs(x);
  return x < 1 ? 1 - x : T(0);
}
template <typename T> T aaCubic(T x) {
  constexpr T A = -0.5;
  x = std::abs(x);
  if (x < 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0;
}

/// The taps of one antialiased pass, as ATen's _compute_weights_aa: output o reads
/// inputs [start[o], start[o] + count[o]) with the normalised weights w[o * K ...].
template <typename T> struct AATaps {
  std::vector<int64_t> start, count;
  std::vector<T> w;
  int64_t K = 0;
};
template <typename T> AATaps<T> aaTaps(const Axis &a, bool alignCorners, int taps, T (*filter)(T)) {
  // area_pixel_compute_scale in T, as ATen's kernel computes it.
  T scale = alignCorners ? (a.out > 1 ? (T)(a.in - 1) / (T)(a.out - 1) : T(0))
            : a.scale && *a.scale > 0 ? (T)(1.0 / *a.scale)
                                      : (T)a.in / (T)a.out;
  T support = scale >= 1 ? (T)((taps * 0.5) * scale) : (T)(taps * 0.5);
  T invscale = scale >= 1 ? (T)(1.0 / scale) : T(1);
  AATaps<T> t;
  t.K = (int64_t)std::ceil(support) * 2 + 1;
  t.start.resize(a.out);
  t.count.resize(a.out);
  t.w.assign(a.out * t.K, T(0));
  for (int64_t o = 0; o < a.out; ++o) {
    T center = (T)(scale * (o + 0.5));
    int64_t xmin = std::max<int64_t>((int64_t)(center - support + 0.5), 0);
    int64_t xsize = std::min<int64_t>((int64_t)(center + support + 0.5), a.in) - xmin;
    xsize = std::clamp<int64_t>(xsize, 0, t.K);
    T *w = &t.w[o * t.K], total = 0;
    for (int64_t j = 0; j < xsize; ++j) {
      w[j] = filter((T)((j + xmin - center + 0.5) * invscale));
      total += w[j];
    }
    if (total != 0)
      for (int64_t j = 0; j < xsize; ++j) w[j] /= total;
    t.start[o] = xmin;
    t.count[o] = xsize;
  }
  return t;
}

/// Antialiased 2-d resampling: separable, the width pass first (into a buffer of the
/// input's dtype) and then the height pass; a dim whose size does not change is copied.
Tensor upsampleAA(const char *op, const Tensor &self, std::vector<Axis> ax, bool alignCorners, int taps,
                  bool cubic) {
  Tensor out = emptyLike({self.size(0), self.size(1), ax[0].out, ax[1].out}, self.dtype(), self);
  if (isMeta(out)) return out;
  Tensor x = self.contiguous();
  int64_t H = ax[0].in, W = ax[1].in, OH = ax[0].out, OW = ax[1].out;
  dispatchFloat(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T (*filter)(T) = aaTriangle<T>;
    if (cubic) filter = aaCubic<T>;
    AATaps<T> th = aaTaps<T>(ax[0], alignCorners, taps, filter);
    AATaps<T> tw = aaTaps<T>(ax[1], alignCorners, taps, filter);
    const T *in = x.data<T>();
    T *o = out.data<T>();
    forEachPlane(x.size(0) * x.size(1), [&](int64_t pl) {
      const T *src = in + pl * H * W;
      int64_t cols = W;
      std::vector<T> tmp;
      if (OW != W) {
        tmp.resize(H * OW);
        for (int64_t h = 0; h < H; ++h)
          for (int64_t ow = 0; ow < OW; ++ow) {
            const T *w = &tw.w[ow * tw.K], *row = src + h * W + tw.start[ow];
            T acc = 0;
            for (int64_t j = 0; j < tw.count[ow]; ++j) acc += w[j] * row[j];
            tmp[h * OW + ow] = acc;
          }
        src = tmp.data();
        cols = OW;
      }
      T *q = o + pl * OH * OW;
      if (OH == H) {
        std::copy(src, src + H * cols, q);
        return;
      }
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const T *w = &th.w[oh * th.K], *col = src + th.start[oh] * cols + ow;
          T acc = 0;
          for (int64_t j = 0; j < th.count[oh]; ++j) acc += w[j] * col[j * cols];
          q[oh * OW + ow] = acc;
        }
    });
  });
  return out;
}
/// The .vec overloads: output_size or scale_factors.
template <int Taps>
Tensor upsampleAAVec(const Tensor &self, std::optional<std::vector<int64_t>> size, bool alignCorners,
                     std::optional<std::vector<double>> scales) {
  const char *op = Taps == 4 ? "aten::_upsample_bicubic2d_aa.vec" : "aten::_upsample_bilinear2d_aa.vec";
  return upsampleAA(op, self, upsampleAxes(self, size, scales, op), alignCorners, Taps, Taps == 4);
}
/// The default overloads: output_size and the optional scales the source rule uses.
template <int Taps>
Tensor upsampleAASized(const Tensor &self, std::vector<int64_t> size, bool alignCorners,
                       std::optional<double> scalesH, std::optional<double> scalesW) {
  const char *op = Taps == 4 ? "aten::_upsample_bicubic2d_aa" : "aten::_upsample_bilinear2d_aa";
  auto ax = upsampleAxes(self, size, std::nullopt, op);
  ax[0].scale = scalesH;
  ax[1].scale = scalesW;
  return upsampleAA(op, self, ax, alignCorners, Taps, Taps == 4);
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("avg_pool2d", avgPool2d);
  m.impl("upsample_bilinear2d.vec", upsampleBilinear);
  m.impl("upsample_nearest2d.vec", upsampleNearest);
  m.impl("_upsample_nearest_exact2d.vec", upsampleNearestExact);
  m.impl("upsample_linear1d.vec", upsampleLinear1d);
  m.impl("upsample_bicubic2d.vec", upsampleBicubic);
  m.impl("_upsample_bilinear2d_aa.vec", upsampleAAVec<2>);
  m.impl("_upsample_bicubic2d_aa.vec", upsampleAAVec<4>);
  m.impl("_upsample_bilinear2d_aa", upsampleAASized<2>);
  m.impl("_upsample_bicubic2d_aa", upsampleAASized<4>);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True, int? divisor_override=None) -> Tensor");
  m.def("upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
        "float[]? scale_factors) -> Tensor");
  m.def("upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor");
  m.def("_upsample_nearest_exact2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor");
  m.def("upsample_linear1d.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
        "float[]? scale_factors) -> Tensor");
  m.def("upsample_bicubic2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
        "float[]? scale_factors) -> Tensor");
  for (const char *name : {"_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"}) {
    m.def(std::string(name) + ".vec(Tensor input, SymInt[]? output_size, bool align_corners, "
                              "float[]? scale_factors) -> Tensor");
    m.def(std::string(name) + "(Tensor self, SymInt[2] output_size, bool align_corners, "
                              "float? scales_h=None, float? scales_w=None) -> Tensor");
  }
}
