// kiln runtime — the spatial dims of convolutions and poolings over 1, 2 or 3 dims,
// lifted to three (leading unit sizes) so one loop nest serves every rank.
#pragma once

#include "KernelUtils.h"

#include <array>

namespace kiln::cpu {

constexpr int kSpatialDims = 3;
using Dims = std::array<int64_t, kSpatialDims>;

inline int64_t product(const Dims &d) { return d[0] * d[1] * d[2]; }

/// A per-dim parameter (kernel size, stride, padding, ...) of an op over `d` spatial dims:
/// one value for every dim or one per dim (none: `unit`), lifted with `unit` in front.
inline Dims spatialParam(const std::vector<int64_t> &v, int d, int64_t unit, const char *op, const char *what) {
  check(v.size() <= 1 || (int)v.size() == d, op,
        std::string(what) + " must have 1 or " + std::to_string(d) + " values, got " + std::to_string(v.size()));
  Dims r{unit, unit, unit};
  for (int i = 0; i < d; ++i) r[kSpatialDims - d + i] = v.empty() ? unit : v.size() == 1 ? v[0] : v[i];
  return r;
}

/// The trailing `d` sizes of `t`, lifted.
inline Dims spatialSizes(const Tensor &t, int d) {
  Dims r{1, 1, 1};
  for (int i = 0; i < d; ++i) r[kSpatialDims - d + i] = t.size(t.dim() - d + i);
  return r;
}

/// `lead` (the sizes before the spatial dims) followed by the last `d` of `dims`.
inline std::vector<int64_t> withSpatial(std::vector<int64_t> lead, const Dims &dims, int d) {
  for (int i = kSpatialDims - d; i < kSpatialDims; ++i) lead.push_back(dims[i]);
  return lead;
}

} // namespace kiln::cpu
