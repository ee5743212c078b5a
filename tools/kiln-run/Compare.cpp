// kiln-run — comparing outputs with expected tensors, and describing them.
#include "KilnRunInternal.h"
#include "kiln/half.h"
#include "kiln/abi/io_names.h"

#include "kiln/gpu.h"
#include "kiln/dispatcher.h"
#include "kiln/eager.h"
#include "kiln/kiln.h"
#include "kiln/npy.h"


#include <algorithm>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <iomanip>
#include <ostream>
#include <sstream>


namespace kiln::run {

namespace {

double elementAsDouble(const Tensor &t, int64_t i) {
  const char *p = static_cast<const char *>(t.rawData());
  switch (t.dtype()) {
  case DType::Float32: return reinterpret_cast<const float *>(p)[i];
  case DType::Float64: return reinterpret_cast<const double *>(p)[i];
  case DType::Float16: return halfBitsToFloat(reinterpret_cast<const uint16_t *>(p)[i]);
  case DType::BFloat16: return bf16BitsToFloat(reinterpret_cast<const uint16_t *>(p)[i]);
  case DType::Int64: return (double)reinterpret_cast<const int64_t *>(p)[i];
  case DType::Int32: return reinterpret_cast<const int32_t *>(p)[i];
  case DType::Int16: return reinterpret_cast<const int16_t *>(p)[i];
  case DType::Int8: return reinterpret_cast<const int8_t *>(p)[i];
  case DType::UInt8: return reinterpret_cast<const uint8_t *>(p)[i];
  case DType::Bool: return reinterpret_cast<const uint8_t *>(p)[i] != 0;
  }
  return 0;
}

/// Integer and bool elements exactly (int64 values beyond 2^53 included).
int64_t elementAsInt64(const Tensor &t, int64_t i) {
  const char *p = static_cast<const char *>(t.rawData());
  switch (t.dtype()) {
  case DType::Int64: return reinterpret_cast<const int64_t *>(p)[i];
  case DType::Int32: return reinterpret_cast<const int32_t *>(p)[i];
  case DType::Int16: return reinterpret_cast<const int16_t *>(p)[i];
  case DType::Int8: return reinterpret_cast<const int8_t *>(p)[i];
  case DType::UInt8: return reinterpret_cast<const uint8_t *>(p)[i];
  case DType::Bool: return reinterpret_cast<const uint8_t *>(p)[i] != 0;
  default: return (int64_t)elementAsDouble(t, i);
  }
}

std::string fmt(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

std::string indexString(const std::vector<int64_t> &sizes, int64_t flat) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = sizes[d] ? flat % sizes[d] : 0;
    flat = sizes[d] ? flat / sizes[d] : 0;
  }
  return shapeToString(idx);
}

} // namespace

Tolerance torchTolerance(DType t) {
  switch (t) {
  case DType::Float64: return {1e-7, 1e-7};
  case DType::Float32: return {1.3e-6, 1e-5};
  case DType::Float16: return {1e-3, 1e-5};
  case DType::BFloat16: return {1.6e-2, 1e-5};
  default: return {0, 0};
  }
}

/// "min -1.2 max 3.4 mean 0.1" (with a count of NaN and infinite elements
/// where there are any) or, for integers and bool, min and max.
std::string describeOutput(const Tensor &t0) {
  Tensor t = t0.contiguous();
  std::ostringstream s;
  int64_t n = t.numel();
  if (n == 0) return "empty";
  if (!isFloatingPoint(t.dtype())) {
    int64_t lo = elementAsInt64(t, 0), hi = lo;
    for (int64_t i = 1; i < n; ++i) {
      int64_t v = elementAsInt64(t, i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    s << "min " << lo << " max " << hi;
    return s.str();
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nonFinite = 0, finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = elementAsDouble(t, i);
    if (!std::isfinite(v)) {
      ++nonFinite;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
    ++finite;
  }
  s << std::setprecision(6);
  if (finite) s << "min " << lo << " max " << hi << " mean " << sum / static_cast<double>(finite);
  if (nonFinite) s << (finite ? ", " : "") << nonFinite << " of " << n << " elements NaN or infinite";
  return s.str();
}

Comparison compareTensors(const Tensor &actual0, const Tensor &expected0, double rtol, double atol) {
  Comparison c;
  // bf16 data travels as f32 .npy files, so a bf16 output is compared with f32 data.
  bool dtypeOk = actual0.dtype() == expected0.dtype() ||
                 (actual0.dtype() == DType::BFloat16 && expected0.dtype() == DType::Float32);
  if (!dtypeOk) {
    c.detail = std::string("dtype ") + dtypeName(actual0.dtype()) + " differs from expected " +
               dtypeName(expected0.dtype());
    return c;
  }
  if (actual0.sizes() != expected0.sizes()) {
    c.detail = "shape " + actual0.shapeString() + " differs from expected " + expected0.shapeString();
    return c;
  }
  Tensor a = actual0.contiguous(), e = expected0.contiguous();
  int64_t bad = 0, firstBad = -1, n = a.numel();
  if (!isFloatingPoint(a.dtype())) {
    // Integers and bool compare exactly, whatever the tolerances.
    int64_t maxAbs = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t x = elementAsInt64(a, i), y = elementAsInt64(e, i);
      if (x == y) continue;
      uint64_t d = x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
      maxAbs = std::max<int64_t>(maxAbs, d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d);
      if (bad++ == 0) firstBad = i;
    }
    c.match = bad == 0;
    c.detail = "max abs error " + std::to_string(maxAbs) + " (exact)";
    if (!c.match)
      c.detail += "; " + std::to_string(bad) + " of " + std::to_string(n) + " elements differ, first at " +
                  indexString(a.sizes(), firstBad) + ": got " + std::to_string(elementAsInt64(a, firstBad)) +
                  ", expected " + std::to_string(elementAsInt64(e, firstBad));
    return c;
  }
  double maxAbs = 0, maxRel = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = elementAsDouble(a, i), y = elementAsDouble(e, i);
    bool ok;
    double absErr, relErr;
    if (std::isnan(x) || std::isnan(y)) {
      ok = std::isnan(x) && std::isnan(y);
      absErr = relErr = ok ? 0 : INFINITY;
    } else if (x == y) {  // also equal infinities
      ok = true;
      absErr = relErr = 0;
    } else {
      absErr = std::fabs(x - y);
      relErr = y != 0 ? absErr / std::fabs(y) : INFINITY;
      ok = absErr <= atol + rtol * std::fabs(y);
    }
    maxAbs = std::max(maxAbs, absErr);
    maxRel = std::max(maxRel, relErr);
    if (!ok && bad++ == 0) firstBad = i;
  }
  c.match = bad == 0;
  c.detail = "max abs error " + fmt(maxAbs) + ", max rel error " + fmt(maxRel);
  if (!c.match)
    c.detail += "; " + std::to_string(bad) + " of " + std::to_string(n) +
                " elements outside atol + rtol*|expected|, first at " +
                indexString(a.sizes(), firstBad) + ": got " + fmt(elementAsDouble(a, firstBad)) +
                ", expected " + fmt(elementAsDouble(e, firstBad));
  return c;
}

} // namespace kiln::run
