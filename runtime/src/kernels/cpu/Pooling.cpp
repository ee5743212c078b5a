// kiln runtime — eager CPU (and Meta) kernels: max_pool2d,
// max_pool2d_with_indices, adaptive_avg_pool2d and their backward ops.
#include "KernelUtils.h"

#include <cmath>
#include <limits>

namespace kiln::cpu {
namespace {

int64_t poolOutSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  // With ceil_mode the last window must start inside the input or left padding.
  if (ceil && (out - 1) * s >= in + p) --out;
  return out;
}

std::vector<int64_t> two(std::vector<int64_t> v, const char *op, const char *what) {
  if (v.size() == 1) v.push_back(v[0]);
  check(v.size() == 2, op, std::string(what) + " must have 1 or 2 values");
  return v;
}

std::tuple<Tensor, Tensor> maxPoolImpl(const Tensor &self, std::vector<int64_t> kernel,
                                       std::vector<int64_t> stride, std::vector<int64_t> padding,
                                       std::vector<int64_t> dilation, bool ceil, bool wantIndices,
                                       const char *op) {
  kernel = two(kernel, op, "kernel_size");
  stride = stride.empty() ? kernel : two(stride, op, "stride");
  padding = two(padding, op, "padding");
  dilation = two(dilation, op, "dilation");
  check(self.dim() == 3 || self.dim() == 4, op, "expected a 3-D or 4-D input, got " + self.shapeString());
  for (int i = 0; i < 2; ++i) {
    check(kernel[i] > 0 && stride[i] > 0 && dilation[i] > 0, op,
          "kernel_size, stride and dilation must be positive");
    check(padding[i] >= 0 && padding[i] * 2 <= kernel[i], op,
          "padding must be at most half of kernel_size");
  }
  int64_t H = self.size(-2), W = self.size(-1);
  int64_t planes = self.numel() / std::max<int64_t>(1, H * W);
  int64_t OH = poolOutSize(H, kernel[0], stride[0], padding[0], dilation[0], ceil);
  int64_t OW = poolOutSize(W, kernel[1], stride[1], padding[1], dilation[1], ceil);
  check(OH > 0 && OW > 0, op, "output size is too small for input " + self.shapeString());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 2);
  shape.push_back(OH);
  shape.push_back(OW);
  Tensor out = Tensor::empty(shape, self.dtype(), self.device());
  Tensor idx = wantIndices ? Tensor::empty(shape, DType::Int64, self.device()) : Tensor();
  if (isMeta(self)) return {out, idx};
  Tensor x = self.contiguous();
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    int64_t *pi = wantIndices ? idx.data<int64_t>() : nullptr;
    parallelFor(planes, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const T *in = px + p * H * W;
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            T best = -std::numeric_limits<T>::infinity();
            int64_t bi = -1;
            for (int64_t kh = 0; kh < kernel[0]; ++kh) {
              int64_t ih = oh * stride[0] - padding[0] + kh * dilation[0];
              if (ih < 0 || ih >= H) continue;
              for (int64_t kw = 0; kw < kernel[1]; ++kw) {
                int64_t iw = ow * stride[1] - padding[1] + kw * dilation[1];
                if (iw < 0 || iw >= W) continue;
                T v = in[ih * W + iw];
                if (v > best || std::isnan(v) || bi < 0) {
                  best = v;
                  bi = ih * W + iw;
                  if (std::isnan(v)) goto done;
                }
              }
            }
          done:
            po[(p * OH + oh) * OW + ow] = best;
            if (pi) pi[(p * OH + oh) * OW + ow] = bi;
          }
      }
    });
  });
  return {out, idx};
}

Tensor maxPool2d(const Tensor &self, std::vector<int64_t> k, std::vector<int64_t> s,
                 std::vector<int64_t> p, std::vector<int64_t> d, bool ceil) {
  return std::get<0>(maxPoolImpl(self, k, s, p, d, ceil, false, "aten::max_pool2d"));
}
std::tuple<Tensor, Tensor> maxPool2dWithIndices(const Tensor &self, std::vector<int64_t> k,
                                                std::vector<int64_t> s, std::vector<int64_t> p,
                                                std::vector<int64_t> d, bool ceil) {
  return maxPoolImpl(self, k, s, p, d, ceil, true, "aten::max_pool2d_with_indices");
}

Tensor adaptiveAvgPool2d(const Tensor &self, std::vector<int64_t> outputSize) {
  const char *op = "aten::adaptive_avg_pool2d";
  outputSize = two(outputSize, op, "output_size");
  check(self.dim() == 3 || self.dim() == 4, op, "expected a 3-D or 4-D input, got " + self.shapeString());
  int64_t H = self.size(-2), W = self.size(-1), OH = outputSize[0], OW = outputSize[1];
  check(OH >= 0 && OW >= 0, op, "output_size must be non-negative");
  int64_t planes = self.numel() / std::max<int64_t>(1, H * W);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 2);
  shape.push_back(OH);
  shape.push_back(OW);
  Tensor out = Tensor::empty(shape, self.dtype(), self.device());
  if (isMeta(self)) return out;
  Tensor x = self.contiguous();
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    parallelFor(planes, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const T *in = px + p * H * W;
        for (int64_t oh = 0; oh < OH; ++oh) {
          int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
          for (int64_t ow = 0; ow < OW; ++ow) {
            int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
            double s = 0;
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) s += in[h * W + w];
            po[(p * OH + oh) * OW + ow] = (T)(s / (double)((h1 - h0) * (w1 - w0)));
          }
        }
      }
    });
  });
  return out;
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

namespace {
/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
void registerKernels(kiln::Library &m) {
  using namespace kiln::cpu;
  m.impl("max_pool2d", maxPool2d);
  m.impl("max_pool2d_with_indices", maxPool2dWithIndices);
  m.impl("adaptive_avg_pool2d", adaptiveAvgPool2d);
  m.impl("max_pool2d_with_indices_backward", maxPool2dWithIndicesBackward);
  m.impl("_adaptive_avg_pool2d_backward", adaptiveAvgPool2dBackward);
}
} // namespace

KILN_LIBRARY_IMPL(aten, CPU, m) { registerKernels(m); }
KILN_LIBRARY_IMPL(aten, Meta, m) { registerKernels(m); }
