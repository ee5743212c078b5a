// kiln runtime — a convolution's rank-5 operands as oneDNN sees them (forward and gradient calls).
#ifndef KILN_RUNTIME_CPU_CONVGEOMETRY_H
#define KILN_RUNTIME_CPU_CONVGEOMETRY_H

#include "Dnnl.h"

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cpu {

/// The dims and strides of x, y and w without their leading unit spatial
/// dims (where unpadded), a grouped filter as (G, F/G, C/G, ...); stride,
/// oneDNN's dilation (minus one) and the padding per remaining spatial dim.
/// Rows past the last window (a negative right padding) are left out of x's
/// view, and `cropped` says so.
struct ConvGeometry {
  std::vector<int64_t> xd, xs, yd, ys, wd, ws, stride, dilate, padL, padR;
  bool cropped = false;
  int first = 2;  ///< the first spatial dim of the rank-5 views that is kept

  /// The strides of a view of y's shape (a tensor added to the output) over
  /// the dims kept for y.
  std::vector<int64_t> keptStrides(const Desc<5> *v) const {
    std::vector<int64_t> s{v->strides[0], v->strides[1]};
    for (int i = first; i < 5; ++i) s.push_back(v->strides[i]);
    return s;
  }

  /// Appends every vector, its length first, to a plan-cache key.
  void appendKey(std::vector<int64_t> &key) const {
    for (const auto *v : {&xd, &xs, &yd, &ys, &wd, &ws, &stride, &dilate, &padL, &padR}) {
      key.push_back(static_cast<int64_t>(v->size()));
      key.insert(key.end(), v->begin(), v->end());
    }
  }
};

/// `params` are stride, padding and dilation per spatial dim (D, H, W);
/// throws naming `who` for a stride, padding or dilation that fits no window.
/// With `floorRows`, rows past the last window that are fewer than a stride
/// (a strided convolution over an even input) stay in x's view with a right
/// padding of 0, as oneDNN's output size (rounding down) has them: a
/// cropped view is not dense, which oneDNN's fast kernels cannot read (it
/// reordered the source on every call).
inline ConvGeometry convGeometry(const std::string &who, int64_t groups, const std::array<int64_t, 9> &params,
                                 const Desc<5> *X, const Desc<5> *W, const Desc<5> *Y, bool floorRows = false) {
  int first = 2;
  while (first < 4 && X->sizes[first] == 1 && W->sizes[first] == 1 && Y->sizes[first] == 1 &&
         params[3 + first - 2] == 0)
    ++first;
  ConvGeometry g;
  g.first = first;
  g.xd = {X->sizes[0], X->sizes[1]}, g.xs = {X->strides[0], X->strides[1]};
  g.yd = {Y->sizes[0], Y->sizes[1]}, g.ys = {Y->strides[0], Y->strides[1]};
  if (groups > 1) {
    g.wd = {groups, W->sizes[0] / groups, W->sizes[1]};
    g.ws = {W->strides[0] * (W->sizes[0] / groups), W->strides[0], W->strides[1]};
  } else {
    g.wd = {W->sizes[0], W->sizes[1]};
    g.ws = {W->strides[0], W->strides[1]};
  }
  for (int i = first; i < 5; ++i) {
    int64_t s = params[i - 2], p = params[3 + i - 2], dl = params[6 + i - 2];
    int64_t k = W->sizes[i], in = X->sizes[i], out = Y->sizes[i];
    // The right padding that gives `out` outputs.
    int64_t right = (out - 1) * s + (k - 1) * dl + 1 - in - p;
    if (right < 0 && floorRows && right > -s && (in + p - (k - 1) * dl - 1) / s + 1 == out)
      right = 0;
    if (right < 0) in += right, right = 0, g.cropped = true;
    if (s < 1 || dl < 1 || p < 0 || in + p + right < (k - 1) * dl + 1 || in < 1)
      throw std::runtime_error(who + ": invalid stride, padding or dilation for a " + std::to_string(X->sizes[i]) +
                               "-wide input");
    g.xd.push_back(in), g.xs.push_back(X->strides[i]);
    g.yd.push_back(out), g.ys.push_back(Y->strides[i]);
    g.wd.push_back(k), g.ws.push_back(W->strides[i]);
    g.stride.push_back(s), g.dilate.push_back(dl - 1), g.padL.push_back(p), g.padR.push_back(right);
  }
  return g;
}

} // namespace kiln::cpu

#endif // KILN_RUNTIME_CPU_CONVGEOMETRY_H
