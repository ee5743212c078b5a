// Tests of the eager kernels — tensors made from and read back as lists of values.
#ifndef KILN_TEST_UNITTESTS_RUNTIME_DISPATCH_TENSORVALUES_H
#define KILN_TEST_UNITTESTS_RUNTIME_DISPATCH_TENSORVALUES_H

#include "kiln/library.h"

#include <gtest/gtest.h>
#include <vector>

namespace kiln::test {

/// A contiguous tensor of `shape` and `dt` (float32, float64, int64, int32 or
/// bool: nonzero is true) holding `v` in row-major order.
template <typename V> Tensor make(const std::vector<int64_t> &shape, DType dt, const std::vector<V> &v) {
  Tensor t = Tensor::empty(shape, dt);
  EXPECT_EQ((size_t)t.numel(), v.size());
  for (size_t i = 0; i < v.size() && i < (size_t)t.numel(); ++i) {
    switch (dt) {
    case DType::Float32: t.data<float>()[i] = (float)v[i]; break;
    case DType::Float64: t.data<double>()[i] = (double)v[i]; break;
    case DType::Int64: t.data<int64_t>()[i] = (int64_t)v[i]; break;
    case DType::Int32: t.data<int32_t>()[i] = (int32_t)v[i]; break;
    case DType::Bool: t.data<uint8_t>()[i] = v[i] != 0; break;
    default: ADD_FAILURE() << "dtype";
    }
  }
  return t;
}

/// The elements of `t` in row-major order, as doubles.
inline std::vector<double> vals(const Tensor &t) {
  Tensor c = t.contiguous();
  std::vector<double> r;
  for (int64_t i = 0; i < c.numel(); ++i) {
    switch (c.dtype()) {
    case DType::Float32: r.push_back(c.data<float>()[i]); break;
    case DType::Float64: r.push_back(c.data<double>()[i]); break;
    case DType::Int64: r.push_back((double)c.data<int64_t>()[i]); break;
    case DType::Int32: r.push_back(c.data<int32_t>()[i]); break;
    case DType::Bool: r.push_back(c.data<uint8_t>()[i]); break;
    default: ADD_FAILURE() << "dtype";
    }
  }
  return r;
}

} // namespace kiln::test

#endif
