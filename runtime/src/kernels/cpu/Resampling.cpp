// kiln runtime — eager CPU (and Meta) kernels that gather windows or sample
// points: adaptive max pooling (1-d, 2-d, 3-d, with indices), grid_sampler
// (2-d and 3-d; bilinear/trilinear, nearest and 2-d bicubic; zeros, border and reflection
// padding), index_reduce and segment_reduce. Computed in float64.
#include "KernelUtils.h"

#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

namespace kiln::cpu {
namespace {

using T2 = std::tuple<Tensor, Tensor>;
constexpr double kInf = std::numeric_limits<double>::infinity();

double get(const Tensor &t, int64_t i) {
  return loadDouble(static_cast<const char *>(t.rawData()) + i * dtypeSize(t.dtype()), t.dtype());
}
void set(Tensor &t, int64_t i, double v) {
  storeDouble(static_cast<char *>(t.rawData()) + i * dtypeSize(t.dtype()), t.dtype(), v);
}

// --- adaptive max pooling ---------------------------------------------------------

/// Max over ATen's adaptive windows [floor(i In / Out), ceil((i+1) In / Out))
/// of the last D dims; indices are flat within the pooled dims; NaN wins.
T2 adaptiveMaxPool(const char *op, const Tensor &self, const std::vector<int64_t> &outSize) {
  int64_t D = (int64_t)outSize.size();
  check(self.dim() == D + 1 || self.dim() == D + 2, op,
        "expects a " + std::to_string(D + 1) + "-d or " + std::to_string(D + 2) +
            "-d input, got " + self.shapeString());
  std::vector<int64_t> in(self.sizes().end() - D, self.sizes().end());
  for (int64_t d = 0; d < D; ++d) {
    check(outSize[d] > 0, op, "output_size must be positive");
    check(in[d] > 0, op, "the pooled dims of " + self.shapeString() + " must be non-empty");
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - D);
  shape.insert(shape.end(), outSize.begin(), outSize.end());
  Tensor v = emptyLike(shape, self.dtype(), self), idx = emptyLike(shape, DType::Int64, self);
  if (isMeta(self) || v.numel() == 0) return {v, idx};
  Tensor x = self.contiguous();
  int64_t planes = 1, inPlane = 1, outPlane = 1;
  for (int64_t s : std::vector<int64_t>(self.sizes().begin(), self.sizes().end() - D)) planes *= s;
  for (int64_t d = 0; d < D; ++d) {
    inPlane *= in[d];
    outPlane *= outSize[d];
  }
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t o = 0; o < outPlane; ++o) {
      std::vector<int64_t> lo(D), hi(D);
      for (int64_t d = D - 1, rest = o; d >= 0; --d) {
        int64_t i = rest % outSize[d];
        rest /= outSize[d];
        lo[d] = (i * in[d]) / outSize[d];
        hi[d] = ((i + 1) * in[d] + outSize[d] - 1) / outSize[d];
      }
      double best = -kInf;
      int64_t bi = -1;
      std::vector<int64_t> cur = lo;
      while (true) {
        int64_t flat = 0;
        for (int64_t d = 0; d < D; ++d) flat = flat * in[d] + cur[d];
        double val = get(x, p * inPlane + flat);
        if (bi < 0 || val > best || std::isnan(val)) {
          if (!(bi >= 0 && std::isnan(best))) {
            best = val;
            bi = flat;
          }
        }
        int64_t d = D - 1;
        while (d >= 0 && ++cur[d] == hi[d]) cur[d] = lo[d], --d;
        if (d < 0) break;
      }
      set(v, p * outPlane + o, best);
      idx.data<int64_t>()[p * outPlane + o] = bi;
    }
  return {v, idx};
}
T2 adaptiveMaxPool1d(const Tensor &self, const std::vector<int64_t> &s) {
  return adaptiveMaxPool("aten::adaptive_max_pool1d", self, s);
}
T2 adaptiveMaxPool2d(const Tensor &self, const std::vector<int64_t> &s) {
  return adaptiveMaxPool("aten::adaptive_max_pool2d", self, s);
}
T2 adaptiveMaxPool3d(const Tensor &self, const std::vector<int64_t> &s) {
  return adaptiveMaxPool("aten::adaptive_max_pool3d", self, s);
}

// --- grid_sampler ----------------------------------------------------------------

/// Reflects x into [lo, hi] (given doubled, as ATen does).
double reflect(double x, int64_t twiceLow, int64_t twiceHigh) {
  if (twiceLow == twiceHigh) return 0;
  double mn = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0;
  x = std::abs(x - mn);
  double extra = std::fmod(x, span);
  int64_t flips = (int64_t)std::floor(x / span);
  return flips % 2 == 0 ? extra + mn : span - extra + mn;
}

/// The source coordinate of a normalized grid value in [-1, 1] along a dim of `size`.
double sourceIndex(double c, int64_t size, int64_t padding, bool alignCorners) {
  c = alignCorners ? (c + 1) / 2 * (size - 1) : ((c + 1) * size - 1) / 2;
  if (padding == 1) { // border
    c = std::min<double>(size - 1, std::max(0.0, c));
  } else if (padding == 2) { // reflection
    c = alignCorners ? reflect(c, 0, 2 * (size - 1)) : reflect(c, -1, 2 * size - 1);
    c = std::min<double>(size - 1, std::max(0.0, c));
  }
  return c;
}

/// An integer source coordinate with the padding mode applied (zeros: unchanged,
/// read as 0 outside); ATen's compute_coordinates.
double paddedCoordinate(double c, int64_t size, int64_t padding, bool alignCorners) {
  if (padding == 1) return std::min<double>(size - 1, std::max(0.0, c));
  if (padding == 2) {
    c = alignCorners ? reflect(c, 0, 2 * (size - 1)) : reflect(c, -1, 2 * size - 1);
    return std::min<double>(size - 1, std::max(0.0, c));
  }
  return c;
}

/// The weights of the 4 taps at offsets -1, 0, 1, 2 for a fraction t (cubic
/// convolution with A = -0.75, as ATen's bicubic sampling).
void cubicCoefficients(double t, double w[4]) {
  const double A = -0.75;
  auto near = [A](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto far = [A](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

Tensor gridSample(const char *op, const Tensor &input, const Tensor &grid, int64_t mode,
                  int64_t padding, bool alignCorners) {
  int64_t D = input.dim() - 2;
  check(D == 2 || D == 3, op, "expects a 4-d or 5-d input, got " + input.shapeString());
  check(grid.dim() == D + 2 && grid.size(-1) == D && grid.size(0) == input.size(0), op,
        "grid " + grid.shapeString() + " does not match input " + input.shapeString());
  check(mode == 0 || mode == 1 || mode == 2, op,
        "interpolation must be bilinear (0), nearest (1) or bicubic (2), got " + std::to_string(mode));
  check(mode != 2 || D == 2, op, "bicubic interpolation needs a 4-d input (as in PyTorch), got " +
                                     input.shapeString());
  check(padding >= 0 && padding <= 2, op, "padding_mode must be 0, 1 or 2");
  int64_t N = input.size(0), C = input.size(1);
  std::vector<int64_t> in(input.sizes().begin() + 2, input.sizes().end());
  std::vector<int64_t> outS(grid.sizes().begin() + 1, grid.sizes().end() - 1);
  std::vector<int64_t> shape = {N, C};
  shape.insert(shape.end(), outS.begin(), outS.end());
  Tensor out = emptyLike(shape, input.dtype(), input);
  if (isMeta(input) || out.numel() == 0) return out;
  Tensor x = input.contiguous(), g = grid.contiguous();
  int64_t inPlane = 1, outPlane = 1;
  for (int64_t s : in) inPlane *= s;
  for (int64_t s : outS) outPlane *= s;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < outPlane; ++o) {
      // Grid values are (x, y[, z]): x indexes the last dim.
      std::vector<double> src(D), rawSrc(D);
      for (int64_t d = 0; d < D; ++d) {
        double c = get(g, (n * outPlane + o) * D + d);
        src[D - 1 - d] = sourceIndex(c, in[D - 1 - d], padding, alignCorners);
        int64_t size = in[D - 1 - d];
        rawSrc[D - 1 - d] = alignCorners ? (c + 1) / 2 * (size - 1) : ((c + 1) * size - 1) / 2;
      }
      for (int64_t ch = 0; ch < C; ++ch) {
        int64_t base = (n * C + ch) * inPlane;
        auto at = [&](const std::vector<int64_t> &p) {
          int64_t flat = 0;
          for (int64_t d = 0; d < D; ++d) {
            if (p[d] < 0 || p[d] >= in[d]) return 0.0; // zeros outside
            flat = flat * in[d] + p[d];
          }
          return get(x, base + flat);
        };
        double val = 0;
        if (mode == 2) {
          // ATen's bicubic: the unpadded source point, a 4 x 4 neighbourhood whose
          // integer coordinates get the padding (border or reflection; zeros outside).
          double sx = rawSrc[1], sy = rawSrc[0];
          double fx = std::floor(sx), fy = std::floor(sy);
          double cx[4], cy[4];
          cubicCoefficients(sx - fx, cx);
          cubicCoefficients(sy - fy, cy);
          for (int64_t j = 0; j < 4; ++j)
            for (int64_t i = 0; i < 4; ++i) {
              double py = paddedCoordinate(fy - 1 + j, in[0], padding, alignCorners);
              double px = paddedCoordinate(fx - 1 + i, in[1], padding, alignCorners);
              val += cy[j] * cx[i] * at({(int64_t)py, (int64_t)px});
            }
        } else if (mode == 1) {
          std::vector<int64_t> p(D);
          for (int64_t d = 0; d < D; ++d) p[d] = (int64_t)std::nearbyint(src[d]);
          val = at(p);
        } else {
          for (int64_t corner = 0; corner < (1 << D); ++corner) {
            std::vector<int64_t> p(D);
            double w = 1;
            for (int64_t d = 0; d < D; ++d) {
              double f = std::floor(src[d]);
              bool up = (corner >> d) & 1;
              p[d] = (int64_t)f + up;
              w *= up ? src[d] - f : 1 - (src[d] - f);
            }
            if (w != 0) val += w * at(p);
          }
        }
        set(out, (n * C + ch) * outPlane + o, val);
      }
    }
  return out;
}
Tensor gridSampler(const Tensor &input, const Tensor &grid, int64_t mode, int64_t padding,
                   bool alignCorners) {
  return gridSample("aten::grid_sampler", input, grid, mode, padding, alignCorners);
}

// --- index_reduce and segment_reduce ------------------------------------------------

/// out = self, then out.select(dim, index[i]) reduced with source.select(dim, i).
Tensor indexReduce(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &source,
                   const std::string &reduce, bool includeSelf) {
  const char *op = "aten::index_reduce";
  check(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin", op,
        "reduce must be 'prod', 'mean', 'amax' or 'amin', got '" + reduce + "'");
  Tensor out = emptyLike(self.sizes(), self.dtype(), self);
  if (isMeta(self) || out.numel() == 0) return out;
  int64_t rank = self.dim();
  int64_t d = rank == 0 ? 0 : wrapDim(dim, rank, op);
  int64_t n = rank == 0 ? 1 : self.size(d), inner = 1, outer = 1;
  for (int64_t i = 0; i < d; ++i) outer *= self.size(i);
  for (int64_t i = d + 1; i < rank; ++i) inner *= self.size(i);
  int64_t sn = source.dim() == 0 ? 1 : source.size(d);
  check(index.numel() == sn, op, "index has " + std::to_string(index.numel()) +
                                     " entries, source has " + std::to_string(sn) + " along dim");
  check(source.numel() == outer * sn * inner, op, "source " + source.shapeString() +
                                                      " does not match self " + self.shapeString());
  Tensor x = self.contiguous(), s = source.contiguous(), ix = index.contiguous();
  std::vector<double> acc(x.numel());
  std::vector<int64_t> count(x.numel(), 0);
  std::vector<bool> touched(x.numel(), false);
  for (int64_t i = 0; i < x.numel(); ++i) acc[i] = get(x, i);
  bool isMax = reduce == "amax", isMin = reduce == "amin", isProd = reduce == "prod";
  for (int64_t j = 0; j < sn; ++j) {
    int64_t t = (int64_t)get(ix, j);
    check(t >= -n && t < n, op, "index " + std::to_string(t) + " is out of range for a dim of " +
                                    std::to_string(n));
    if (t < 0) t += n;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        int64_t pos = (o * n + t) * inner + in;
        double v = get(s, (o * sn + j) * inner + in);
        if (!touched[pos]) {
          touched[pos] = true;
          if (!includeSelf) acc[pos] = isMax ? -kInf : isMin ? kInf : isProd ? 1 : 0;
          count[pos] = includeSelf ? 1 : 0;
        }
        double &a = acc[pos];
        if (isMax) a = (std::isnan(v) || v > a) && !std::isnan(a) ? v : a;
        else if (isMin) a = (std::isnan(v) || v < a) && !std::isnan(a) ? v : a;
        else if (isProd) a *= v;
        else a += v;
        ++count[pos];
      }
  }
  bool integral = !(self.dtype() == DType::Float32 || self.dtype() == DType::Float64 ||
                    self.dtype() == DType::Float16 || self.dtype() == DType::BFloat16);
  for (int64_t i = 0; i < x.numel(); ++i) {
    double v = acc[i];
    if (reduce == "mean" && touched[i]) {
      v = v / std::max<int64_t>(count[i], 1);
      if (integral) v = std::floor(v);
    }
    set(out, i, v);
  }
  return out;
}

/// Reductions of consecutive segments along `axis`, given by lengths or offsets.
Tensor segmentReduce(const Tensor &data, const std::string &reduce,
                     const std::optional<Tensor> &lengths, const std::optional<Tensor> &indices,
                     const std::optional<Tensor> &offsets, int64_t axis, bool unsafe,
                     const std::optional<double> &initial) {
  const char *op = "aten::segment_reduce";
  (void)unsafe;
  check(!indices, op, "segments given by indices are not supported (as in ATen)");
  check(lengths || offsets, op, "expects lengths or offsets");
  check(reduce == "sum" || reduce == "mean" || reduce == "max" || reduce == "min" ||
            reduce == "prod",
        op, "reduce must be 'sum', 'mean', 'max', 'min' or 'prod', got '" + reduce + "'");
  const Tensor &seg = lengths ? *lengths : *offsets;
  check(seg.dim() == 1, op, "kiln supports 1-d lengths/offsets, got " + seg.shapeString());
  int64_t ax = wrapDim(axis, data.dim(), op);
  int64_t segments = lengths ? seg.numel() : seg.numel() - 1;
  std::vector<int64_t> shape = data.sizes();
  shape[ax] = segments;
  Tensor out = emptyLike(shape, data.dtype(), data);
  if (isMeta(data) || out.numel() == 0) return out;
  Tensor x = data.contiguous(), sg = seg.contiguous();
  std::vector<int64_t> start(segments), len(segments);
  for (int64_t i = 0, off = 0; i < segments; ++i) {
    if (lengths) {
      len[i] = (int64_t)get(sg, i);
      start[i] = off;
      off += len[i];
    } else {
      start[i] = (int64_t)get(sg, i);
      len[i] = (int64_t)get(sg, i + 1) - start[i];
    }
    check(len[i] >= 0 && start[i] + len[i] <= data.size(ax), op, "segment " + std::to_string(i) +
                                                                   " is out of range");
  }
  int64_t n = data.size(ax), outer = 1, inner = 1;
  for (int64_t i = 0; i < ax; ++i) outer *= data.size(i);
  for (int64_t i = ax + 1; i < data.dim(); ++i) inner *= data.size(i);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t sgi = 0; sgi < segments; ++sgi)
      for (int64_t in = 0; in < inner; ++in) {
        double acc = initial ? *initial
                     : reduce == "max" ? -kInf
                     : reduce == "min" ? kInf
                     : reduce == "prod" ? 1 : 0;
        for (int64_t k = start[sgi]; k < start[sgi] + len[sgi]; ++k) {
          double v = get(x, (o * n + k) * inner + in);
          if (reduce == "max") acc = std::isnan(v) || v > acc ? v : acc;
          else if (reduce == "min") acc = std::isnan(v) || v < acc ? v : acc;
          else if (reduce == "prod") acc *= v;
          else acc += v;
        }
        if (reduce == "mean")
          acc = len[sgi] > 0 ? acc / len[sgi] : initial ? acc : std::nan("");
        set(out, (o * segments + sgi) * inner + in, acc);
      }
  return out;
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("adaptive_max_pool1d", adaptiveMaxPool1d);
  m.impl("adaptive_max_pool2d", adaptiveMaxPool2d);
  m.impl("adaptive_max_pool3d", adaptiveMaxPool3d);
  m.impl("grid_sampler", gridSampler);
  m.impl("grid_sampler_2d", gridSampler);
  m.impl("grid_sampler_3d", gridSampler);
  m.impl("index_reduce", indexReduce);
  m.impl("segment_reduce", segmentReduce);
}
