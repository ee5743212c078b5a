// kiln runtime — backward formulas of grid_sampler (2-d and 3-d, bilinear and
// nearest, zeros/border/reflection padding): the input's gradient is the
// cotangent spread onto the corners each sample read, the grid's the
// interpolation's slope times the slope of the coordinate mapping.
#include "FormulaUtils.h"

#include <cmath>

namespace kiln {
namespace {

using namespace formulas;

/// x reflected into [lo, hi] (given doubled, as ATen does) and d result / d x.
double reflectWithSlope(double x, int64_t twiceLow, int64_t twiceHigh, double &slope) {
  if (twiceLow == twiceHigh) {
    slope = 0;
    return 0;
  }
  double mn = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0, sign = 1;
  x -= mn;
  if (x < 0) {
    sign = -1;
    x = -x;
  }
  double extra = std::fmod(x, span);
  int64_t flips = (int64_t)std::floor(x / span);
  slope = flips % 2 == 0 ? sign : -sign;
  return flips % 2 == 0 ? extra + mn : span - extra + mn;
}

/// Clipped into [0, size - 1], with the slope 0 at and beyond the ends.
double clipWithSlope(double c, int64_t size, double &slope) {
  if (c <= 0) {
    slope = 0;
    return 0;
  }
  if (c >= (double)(size - 1)) {
    slope = 0;
    return (double)(size - 1);
  }
  return c;
}

/// The source coordinate of a grid value along a dim of `size` and d coordinate / d grid value.
double sourceWithSlope(double g, int64_t size, int64_t padding, bool alignCorners, double &slope) {
  double c = alignCorners ? (g + 1) / 2 * (double)(size - 1) : ((g + 1) * (double)size - 1) / 2;
  slope = alignCorners ? (double)(size - 1) / 2 : (double)size / 2;
  if (padding == 1) {
    double s = 1;
    c = clipWithSlope(c, size, s);
    slope *= s;
  } else if (padding == 2) {
    double s = 1;
    c = alignCorners ? reflectWithSlope(c, 0, 2 * (size - 1), s) : reflectWithSlope(c, -1, 2 * size - 1, s);
    slope *= s;
    s = 1;
    c = clipWithSlope(c, size, s);
    slope *= s;
  }
  return c;
}

/// grid_sampler(input [N, C, in...], grid [N, out..., D], mode, padding, align_corners).
Grads gridSampler(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  const Tensor &input = c.input(0), &grid = c.input(1);
  int64_t mode = c.inputs[2].toInt(), padding = c.inputs[3].toInt();
  bool align = c.inputs[4].toBool();
  if (mode != 0 && mode != 1)
    throw Error("kiln: the gradient of grid_sampler supports bilinear (0) and nearest (1) interpolation, got " +
                std::to_string(mode));
  int64_t D = input.dim() - 2, N = input.size(0), C = input.size(1);
  Shape in(input.sizes().begin() + 2, input.sizes().end());
  Tensor x = f64(input), gr = f64(grid), gy = f64(g[0]);
  Tensor gx = Tensor::zeros(input.sizes(), DType::Float64), gg = Tensor::zeros(grid.sizes(), DType::Float64);
  int64_t inPlane = 1, outPlane = gr.numel() / std::max<int64_t>(1, N * D);
  for (int64_t s : in) inPlane *= s;
  double *X = x.data<double>(), *G = gr.data<double>(), *GY = gy.data<double>();
  double *GX = gx.data<double>(), *GG = gg.data<double>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < outPlane; ++o) {
      std::vector<double> src(D), slope(D);
      for (int64_t d = 0; d < D; ++d) // grid values are (x, y[, z]): x indexes the last dim
        src[D - 1 - d] = sourceWithSlope(G[(n * outPlane + o) * D + d], in[D - 1 - d], padding, align,
                                         slope[D - 1 - d]);
      auto flatOf = [&](const std::vector<int64_t> &p) -> int64_t {
        int64_t flat = 0;
        for (int64_t d = 0; d < D; ++d) {
          if (p[d] < 0 || p[d] >= in[d]) return -1; // zeros outside
          flat = flat * in[d] + p[d];
        }
        return flat;
      };
      std::vector<double> dsrc(D, 0.0);
      for (int64_t ch = 0; ch < C; ++ch) {
        int64_t base = (n * C + ch) * inPlane;
        double gv = GY[(n * C + ch) * outPlane + o];
        if (mode == 1) {
          std::vector<int64_t> p(D);
          for (int64_t d = 0; d < D; ++d) p[d] = (int64_t)std::nearbyint(src[d]);
          int64_t f = flatOf(p);
          if (f >= 0) GX[base + f] += gv;
          continue;
        }
        for (int64_t corner = 0; corner < (1 << D); ++corner) {
          std::vector<int64_t> p(D);
          std::vector<double> w(D);
          for (int64_t d = 0; d < D; ++d) {
            double fl = std::floor(src[d]);
            bool up = (corner >> d) & 1;
            p[d] = (int64_t)fl + up;
            w[d] = up ? src[d] - fl : 1 - (src[d] - fl);
          }
          int64_t f = flatOf(p);
          if (f < 0) continue;
          double weight = 1;
          for (double wd : w) weight *= wd;
          GX[base + f] += weight * gv;
          double v = X[base + f] * gv;
          for (int64_t d = 0; d < D; ++d) { // d weight / d src[d] = +-(product of the other weights)
            double others = 1;
            for (int64_t e = 0; e < D; ++e)
              if (e != d) others *= w[e];
            dsrc[d] += (((corner >> d) & 1) ? 1.0 : -1.0) * others * v;
          }
        }
      }
      for (int64_t d = 0; d < D; ++d) GG[(n * outPlane + o) * D + d] = dsrc[D - 1 - d] * slope[D - 1 - d];
    }
  return {as(gx, input.dtype()), as(gg, grid.dtype())};
}

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  for (const char *op : {"grid_sampler", "grid_sampler_2d", "grid_sampler_3d"}) m.register_autograd(op, gridSampler);
}
