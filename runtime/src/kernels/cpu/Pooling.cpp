// kiln runtime — eager CPU (and Meta) kernels: max_pool2d/3d (with indices), avg_pool3d,
// adaptive_avg_pool2d/3d and the 2-D backward ops (the 1-D ones are decomposition rules).
#include "Spatial.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace kiln::cpu {
namespace {

int64_t poolOutSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  // In 128 bits: a window of 2^62 taps 2^62 apart is legal input, and its
  // span overflows int64 (the result, at most `in + 1`, does not).
  using Wide = __int128;
  Wide span = (Wide)in + 2 * (Wide)p - (Wide)d * (k - 1) - 1;
  // Rounded down (or up) as ATen does, negative spans too: a window wider
  // than the padded input gives no output, which the caller refuses.
  Wide q = span / s - (span % s != 0 && span < 0 ? 1 : 0);
  Wide out = (ceil && span % s != 0 ? q + 1 : q) + 1;
  // With ceil_mode the last window must start inside the input or left padding.
  if (ceil && (out - 1) * s >= (Wide)in + p) --out;
  return out > 0 ? (int64_t)out : 0;
}

/// The taps [lo, hi) of a window starting at `start` (k taps `dil` apart)
/// that fall inside [0, n).
std::pair<int64_t, int64_t> tapsInside(int64_t start, int64_t k, int64_t dil, int64_t n) {
  // ceil(a / dil) for a >= 0, without forming a + dil - 1 (dil may be near 2^63).
  auto ceilDiv = [dil](int64_t a) { return a / dil + (a % dil != 0); };
  int64_t lo = start >= 0 ? 0 : std::min(k, ceilDiv(-start));
  int64_t hi = start >= n ? 0 : std::min(k, ceilDiv(n - start));
  return {lo, std::max(lo, hi)};
}

/// Max pooling over the last `d` (1 to 3) dims of a [N, C, spatial...] or [C, spatial...] input;
/// with `wantIndices`, each maximum's flat offset within its plane too.
std::tuple<Tensor, Tensor> maxPoolImpl(const Tensor &self, const std::vector<int64_t> &kernel0,
                                       const std::vector<int64_t> &stride0, const std::vector<int64_t> &padding0,
                                       const std::vector<int64_t> &dilation0, bool ceil, bool wantIndices, int d,
                                       const char *op) {
  check(!kernel0.empty(), op, "kernel_size must not be empty");
  Dims kernel = spatialParam(kernel0, d, 1, op, "kernel_size");
  Dims stride = stride0.empty() ? kernel : spatialParam(stride0, d, 1, op, "stride");
  Dims padding = spatialParam(padding0, d, 0, op, "padding");
  Dims dilation = spatialParam(dilation0, d, 1, op, "dilation");
  check(self.dim() == d + 1 || self.dim() == d + 2, op,
        "expected a " + std::to_string(d + 1) + "-D or " + std::to_string(d + 2) + "-D input, got " +
            self.shapeString());
  Dims in = spatialSizes(self, d), out;
  for (int i = 0; i < kSpatialDims; ++i) {
    check(kernel[i] > 0 && stride[i] > 0 && dilation[i] > 0, op,
          "kernel_size, stride and dilation must be positive");
    check(padding[i] >= 0 && padding[i] <= kernel[i] / 2, op, "padding must be at most half of kernel_size");
    out[i] = poolOutSize(in[i], kernel[i], stride[i], padding[i], dilation[i], ceil);
    check(out[i] > 0, op, "output size is too small for input " + self.shapeString());
  }
  int64_t plane = product(in), P = product(out);
  int64_t planes = self.numel() / std::max<int64_t>(1, plane);
  std::vector<int64_t> shape = withSpatial({self.sizes().begin(), self.sizes().end() - d}, out, d);
  Tensor result = Tensor::empty(shape, self.dtype(), self.device());
  Tensor idx = wantIndices ? Tensor::empty(shape, DType::Int64, self.device()) : Tensor();
  if (isMeta(self)) return {result, idx};
  Tensor x = self.contiguous();
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = result.data<T>();
    int64_t *pi = wantIndices ? idx.data<int64_t>() : nullptr;
    parallelFor(planes, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const T *src = px + p * plane;
        for (int64_t o = 0; o < P; ++o) {
          int64_t od = o / (out[1] * out[2]), oh = o / out[2] % out[1], ow = o % out[2];
          T best = -std::numeric_limits<T>::infinity();
          int64_t bi = -1;
          // Only the taps inside the input, in the same order: a window
          // mostly in the padding costs no loop over it.
          auto [d0, d1] = tapsInside(od * stride[0] - padding[0], kernel[0], dilation[0], in[0]);
          auto [h0, h1] = tapsInside(oh * stride[1] - padding[1], kernel[1], dilation[1], in[1]);
          auto [w0, w1] = tapsInside(ow * stride[2] - padding[2], kernel[2], dilation[2], in[2]);
          for (int64_t kd = d0; kd < d1; ++kd) {
            int64_t id = od * stride[0] - padding[0] + kd * dilation[0];
            for (int64_t kh = h0; kh < h1; ++kh) {
              int64_t ih = oh * stride[1] - padding[1] + kh * dilation[1];
              for (int64_t kw = w0; kw < w1; ++kw) {
                int64_t iw = ow * stride[2] - padding[2] + kw * dilation[2];
                int64_t at = (id * in[1] + ih) * in[2] + iw;
                T v = src[at];
                if (v > best || std::isnan(v) || bi < 0) {
                  best = v;
                  bi = at;
                  if (std::isnan(v)) goto done;
                }
              }
            }
          }
        done:
          po[p * P + o] = best;
          if (pi) pi[p * P + o] = bi;
        }
      }
    });
  });
  return {result, idx};
}

/// Writes every output cell o of every plane (in parallel over the planes):
/// result[p * P + o] = cell(src, o), src the plane's `plane` input elements in
/// contiguous order; for the float dtypes.
template <class Cell>
void mapPlaneCells(const Tensor &self, Tensor &result, int64_t plane, int64_t P, const char *op, Cell cell) {
  Tensor x = self.contiguous();
  int64_t planes = self.numel() / std::max<int64_t>(1, plane);
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = result.data<T>();
    parallelFor(planes, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t o = 0; o < P; ++o) po[p * P + o] = cell(px + p * plane, o);
    });
  });
}

/// avg_pool3d over the last 3 dims of a [N, C, D, H, W] or [C, D, H, W] input:
/// ceil_mode, count_include_pad (the window clipped to the padded input counts)
/// and divisor_override as ATen's.
Tensor avgPool3d(const Tensor &self, std::vector<int64_t> kernel0, std::vector<int64_t> stride0,
                 std::vector<int64_t> padding0, bool ceil, bool countPad, std::optional<int64_t> divisor) {
  const char *op = "aten::avg_pool3d";
  const int d = 3;
  check(!kernel0.empty(), op, "kernel_size must not be empty");
  check(self.dim() == 4 || self.dim() == 5, op, "expected a 4-D or 5-D input, got " + self.shapeString());
  Dims kernel = spatialParam(kernel0, d, 1, op, "kernel_size");
  Dims stride = stride0.empty() ? kernel : spatialParam(stride0, d, 1, op, "stride");
  Dims padding = spatialParam(padding0, d, 0, op, "padding");
  check(!divisor || *divisor != 0, op, "divisor must not be zero");
  Dims in = spatialSizes(self, d), out;
  for (int i = 0; i < kSpatialDims; ++i) {
    check(kernel[i] > 0 && stride[i] > 0, op, "kernel_size and stride must be positive");
    check(padding[i] >= 0 && padding[i] <= kernel[i] / 2, op, "padding should be at most half of the kernel size");
    out[i] = poolOutSize(in[i], kernel[i], stride[i], padding[i], 1, ceil);
    check(out[i] > 0, op, "the output size is too small for input " + self.shapeString());
  }
  int64_t plane = product(in), P = product(out);
  std::vector<int64_t> shape = withSpatial({self.sizes().begin(), self.sizes().end() - d}, out, d);
  Tensor result = Tensor::empty(shape, self.dtype(), self.device());
  if (isMeta(self)) return result;
  mapPlaneCells(self, result, plane, P, op, [&](const auto *src, int64_t o) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    int64_t oi[3] = {o / (out[1] * out[2]), o / out[2] % out[1], o % out[2]};
    int64_t lo[3], hi[3], padded = 1, inside = 1;
    for (int i = 0; i < 3; ++i) {
      lo[i] = oi[i] * stride[i] - padding[i];
      hi[i] = std::min(lo[i] + kernel[i], in[i] + padding[i]);
      padded *= hi[i] - lo[i];
      lo[i] = std::max<int64_t>(lo[i], 0);
      hi[i] = std::min(hi[i], in[i]);
      inside *= std::max<int64_t>(hi[i] - lo[i], 0);
    }
    T sum = 0;
    for (int64_t a = lo[0]; a < hi[0]; ++a)
      for (int64_t b = lo[1]; b < hi[1]; ++b)
        for (int64_t c = lo[2]; c < hi[2]; ++c) sum += src[(a * in[1] + b) * in[2] + c];
    int64_t div = divisor ? *divisor : countPad ? padded : inside;
    return div ? sum / (T)div : T(0);
  });
  return result;
}

Tensor maxPool2d(const Tensor &self, std::vector<int64_t> k, std::vector<int64_t> s,
                 std::vector<int64_t> p, std::vector<int64_t> d, bool ceil) {
  return std::get<0>(maxPoolImpl(self, k, s, p, d, ceil, false, 2, "aten::max_pool2d"));
}
Tensor maxPool3d(const Tensor &self, std::vector<int64_t> k, std::vector<int64_t> s,
                 std::vector<int64_t> p, std::vector<int64_t> d, bool ceil) {
  return std::get<0>(maxPoolImpl(self, k, s, p, d, ceil, false, 3, "aten::max_pool3d"));
}
std::tuple<Tensor, Tensor> maxPool2dWithIndices(const Tensor &self, std::vector<int64_t> k,
                                                std::vector<int64_t> s, std::vector<int64_t> p,
                                                std::vector<int64_t> d, bool ceil) {
  return maxPoolImpl(self, k, s, p, d, ceil, true, 2, "aten::max_pool2d_with_indices");
}
std::tuple<Tensor, Tensor> maxPool3dWithIndices(const Tensor &self, std::vector<int64_t> k,
                                                std::vector<int64_t> s, std::vector<int64_t> p,
                                                std::vector<int64_t> d, bool ceil) {
  return maxPoolImpl(self, k, s, p, d, ceil, true, 3, "aten::max_pool3d_with_indices");
}

/// Adaptive average pooling over the last `d` (1 to 3) dims: output cell i of a dim of
/// size n averages input [floor(i n / o), ceil((i + 1) n / o)).
Tensor adaptiveAvgPool(const Tensor &self, const std::vector<int64_t> &outputSize, int d, const char *op) {
  check((int)outputSize.size() == d || outputSize.size() == 1, op,
        "output_size must have 1 or " + std::to_string(d) + " values");
  Dims out = spatialParam(outputSize, d, 1, op, "output_size");
  check(self.dim() == d + 1 || self.dim() == d + 2, op,
        "expected a " + std::to_string(d + 1) + "-D or " + std::to_string(d + 2) + "-D input, got " +
            self.shapeString());
  check(out[0] >= 0 && out[1] >= 0 && out[2] >= 0, op, "output_size must be non-negative");
  Dims in = spatialSizes(self, d);
  int64_t plane = product(in), P = product(out);
  Tensor result = Tensor::empty(withSpatial({self.sizes().begin(), self.sizes().end() - d}, out, d), self.dtype(),
                                self.device());
  if (isMeta(self)) return result;
  auto lo = [&](int i, int64_t o) { return o * in[i] / out[i]; };
  auto hi = [&](int i, int64_t o) { return ((o + 1) * in[i] + out[i] - 1) / out[i]; };
  mapPlaneCells(self, result, plane, P, op, [&](const auto *src, int64_t o) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    int64_t od = o / (out[1] * out[2]), oh = o / out[2] % out[1], ow = o % out[2];
    double s = 0;
    for (int64_t a = lo(0, od); a < hi(0, od); ++a)
      for (int64_t h = lo(1, oh); h < hi(1, oh); ++h)
        for (int64_t w = lo(2, ow); w < hi(2, ow); ++w) s += src[(a * in[1] + h) * in[2] + w];
    int64_t n = (hi(0, od) - lo(0, od)) * (hi(1, oh) - lo(1, oh)) * (hi(2, ow) - lo(2, ow));
    return (T)(s / (double)n);
  });
  return result;
}

Tensor adaptiveAvgPool2d(const Tensor &self, std::vector<int64_t> o) {
  return adaptiveAvgPool(self, o, 2, "aten::adaptive_avg_pool2d");
}
Tensor adaptiveAvgPool3d(const Tensor &self, std::vector<int64_t> o) {
  return adaptiveAvgPool(self, o, 3, "aten::adaptive_avg_pool3d");
}

Tensor maxPool2dWithIndicesBackward(const Tensor &gradOut, const Tensor &self,
                                    std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>,
                                    std::vector<int64_t>, bool, const Tensor &indices) {
  const char *op = "aten::max_pool2d_with_indices_backward";
  check(gradOut.sizes() == indices.sizes(), op, "grad_output and indices differ in shape");
  check(indices.dtype() == DType::Int64, op, "indices must be int64");
  Tensor out = Tensor::empty(self.sizes(), self.dtype(), self.device());
  if (isMeta(self) || isMeta(gradOut)) return out;
  int64_t H = self.size(-2), W = self.size(-1);
  int64_t planes = self.numel() / std::max<int64_t>(1, H * W);
  int64_t P = gradOut.size(-2) * gradOut.size(-1);
  Tensor g = gradOut.contiguous(), idx = indices.contiguous();
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T *o = out.data<T>();
    std::fill(o, o + out.numel(), T(0));
    const T *pg = g.data<T>();
    const int64_t *pi = idx.data<int64_t>();
    parallelFor(planes, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t k = 0; k < P; ++k) {
          int64_t i = pi[p * P + k];
          if (i >= 0) o[p * H * W + i] += pg[p * P + k];
        }
    });
  });
  return out;
}

Tensor adaptiveAvgPool2dBackward(const Tensor &gradOut, const Tensor &self) {
  const char *op = "aten::_adaptive_avg_pool2d_backward";
  Tensor out = Tensor::empty(self.sizes(), self.dtype(), self.device());
  if (isMeta(self) || isMeta(gradOut)) return out;
  int64_t H = self.size(-2), W = self.size(-1), OH = gradOut.size(-2), OW = gradOut.size(-1);
  int64_t planes = self.numel() / std::max<int64_t>(1, H * W);
  Tensor g = gradOut.contiguous();
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T *o = out.data<T>();
    std::fill(o, o + out.numel(), T(0));
    const T *pg = g.data<T>();
    parallelFor(planes, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t oh = 0; oh < OH; ++oh) {
          int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
          for (int64_t ow = 0; ow < OW; ++ow) {
            int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
            T share = pg[(p * OH + oh) * OW + ow] / (T)((h1 - h0) * (w1 - w0));
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) o[p * H * W + h * W + w] += share;
          }
        }
    });
  });
  return out;
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("max_pool2d", maxPool2d);
  m.impl("max_pool3d", maxPool3d);
  m.impl("avg_pool3d", avgPool3d);
  m.impl("max_pool2d_with_indices", maxPool2dWithIndices);
  m.impl("max_pool3d_with_indices", maxPool3dWithIndices);
  m.impl("adaptive_avg_pool2d", adaptiveAvgPool2d);
  m.impl("adaptive_avg_pool3d", adaptiveAvgPool3d);
  // Core ATen IR's names of the same ops (adaptive_avg_pool2d's decomposition).
  m.impl("_adaptive_avg_pool2d", adaptiveAvgPool2d);
  m.impl("_adaptive_avg_pool3d", adaptiveAvgPool3d);
  m.impl("max_pool2d_with_indices_backward", maxPool2dWithIndicesBackward);
  m.impl("_adaptive_avg_pool2d_backward", adaptiveAvgPool2dBackward);
}

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True, int? divisor_override=None) -> Tensor");
  m.def("max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, "
        "bool ceil_mode=False) -> Tensor");
  m.def("max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
        "int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)");
  m.def("adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor");
  m.def("_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor");
  m.def("_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor");
}
