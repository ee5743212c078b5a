// kiln runtime loader — computes the tensors a model derives from its weights at load.
#include "DerivedWeights.h"

#include "kiln/error.h"
#include "kiln/half.h"
#include "kiln/model_format.h"

#include <cmath>
#include <cstring>

namespace kiln {

namespace {

/// Element i of a contiguous float32, float64, bfloat16 or float16 tensor, as double.
double at(const Tensor &t, int64_t i) {
  switch (t.dtype()) {
  case DType::Float64: return t.data<double>()[i];
  case DType::BFloat16: return bf16BitsToFloat(t.data<uint16_t>()[i]);
  case DType::Float16: return halfBitsToFloat(t.data<uint16_t>()[i]);
  default: return t.data<float>()[i];
  }
}

/// The concat-rows recipe: the operands stacked along dim 0, copied exactly
/// (each must be v's dtype with v's trailing dims).
Tensor concatRows(const Manifest &m, const ManifestValue &v, const std::vector<int64_t> &sizes,
                  const std::vector<Tensor> &weights, const std::string &who) {
  Tensor out = Tensor::empty(sizes, v.dtype);
  const int64_t rowBytes = sizes[0] ? out.nbytes() / sizes[0] : 0;
  int64_t row = 0;
  for (int k : v.from) {
    const Tensor &t = weights[k];
    std::vector<int64_t> want = sizes;
    want[0] = t.dim() ? t.sizes()[0] : -1;
    if (t.dtype() != v.dtype || t.sizes() != want || row + want[0] > sizes[0]) {
      std::string trailing;
      for (size_t d = 1; d < sizes.size(); ++d) trailing += ", " + std::to_string(sizes[d]);
      throw Error(KILN_STATUS_INVALID_ARGUMENT, who + ": operand '" + m.args[k].name + "' is " +
                                                    dtypeName(t.dtype()) + " " + t.shapeString() + ", expected " +
                                                    dtypeName(v.dtype) + " [at most " +
                                                    std::to_string(sizes[0] - row) + trailing + "]");
    }
    Tensor c = t.contiguous();
    std::memcpy(static_cast<char *>(out.rawData()) + row * rowBytes, c.rawData(), c.nbytes());
    row += want[0];
  }
  if (row != sizes[0])
    throw Error(KILN_STATUS_INVALID_ARGUMENT, who + ": its operands have " + std::to_string(row) +
                                                  " rows, expected " + std::to_string(sizes[0]));
  return out;
}

} // namespace

Tensor deriveWeight(const Manifest &m, const ManifestValue &v, const std::vector<Tensor> &weights,
                    const std::string &modelPath) {
  std::string who = "model '" + modelPath + "': derived weight '" + v.name + "' (" + v.recipe + ")";
  if (v.dtype != DType::Float32 && v.dtype != DType::Float64 && v.dtype != DType::BFloat16 &&
      v.dtype != DType::Float16)
    throw Error(KILN_STATUS_INVALID_ARGUMENT, who + " is " + dtypeName(v.dtype) + ", expected f32, f64, bf16 or f16");
  std::vector<int64_t> sizes;
  for (const ManifestDim &d : v.dims) sizes.push_back(d.size);
  if (v.recipe == KILN_DERIVE_CONCAT_ROWS && !sizes.empty())
    return concatRows(m, v, sizes, weights, who);
  if (sizes.empty() || (v.recipe == KILN_DERIVE_CONV_BN_BIAS && sizes.size() != 1))
    throw Error(KILN_STATUS_INVALID_ARGUMENT, who + " has rank " + std::to_string(sizes.size()) +
                                                  (v.recipe == KILN_DERIVE_CONV_BN_BIAS ? ", expected 1"
                                                                                        : ", expected 1 or more"));
  const int64_t channels = sizes[0];
  // Each operand: contiguous, v's dtype, per output channel ([channels]) or, the
  // filter, v's own shape.
  std::vector<Tensor> ops;
  for (size_t k = 0; k < v.from.size(); ++k) {
    if (v.from[k] < 0) {
      ops.emplace_back();
      continue;
    }
    const ManifestValue &src = m.args[v.from[k]];
    const Tensor &t = weights[v.from[k]];
    bool filter = v.recipe == KILN_DERIVE_CONV_BN_WEIGHT && k == 0;
    std::vector<int64_t> want = filter ? sizes : std::vector<int64_t>{channels};
    if (t.dtype() != v.dtype || t.sizes() != want)
      throw Error(KILN_STATUS_INVALID_ARGUMENT, who + ": operand '" + src.name + "' is " +
                                                    dtypeName(t.dtype()) + " " + t.shapeString() +
                                                    ", expected " + dtypeName(v.dtype) + " " +
                                                    shapeToString(want));
    ops.push_back(t.contiguous());
  }
  // s[o] = gamma[o] / sqrt(var[o] + eps), gamma absent: 1.
  const Tensor &gamma = ops[1];
  const Tensor &var = v.recipe == KILN_DERIVE_CONV_BN_WEIGHT ? ops[2] : ops[4];
  std::vector<double> scale(channels);
  for (int64_t o = 0; o < channels; ++o)
    scale[o] = (gamma.defined() ? at(gamma, o) : 1.0) / std::sqrt(at(var, o) + v.eps);

  Tensor out = Tensor::empty(sizes, v.dtype);
  int64_t inner = channels ? out.numel() / channels : 0;
  // Computed in double, rounded once to the weights' type (a 16-bit one to
  // nearest even, as PyTorch rounds).
  auto store = [&](int64_t i, double x) {
    switch (v.dtype) {
    case DType::Float64: out.data<double>()[i] = x; break;
    case DType::BFloat16: out.data<uint16_t>()[i] = floatToBF16Bits((float)x); break;
    case DType::Float16: out.data<uint16_t>()[i] = floatToHalfBits((float)x); break;
    default: out.data<float>()[i] = (float)x;
    }
  };
  if (v.recipe == KILN_DERIVE_CONV_BN_WEIGHT) {
    // W'[o, ...] = W[o, ...] * s[o]
    for (int64_t o = 0; o < channels; ++o)
      for (int64_t j = 0; j < inner; ++j) store(o * inner + j, at(ops[0], o * inner + j) * scale[o]);
  } else {
    // b'[o] = (b[o] - mean[o]) * s[o] + beta[o]; b, beta absent: 0
    const Tensor &bias = ops[0], &beta = ops[2], &mean = ops[3];
    for (int64_t o = 0; o < channels; ++o)
      store(o, ((bias.defined() ? at(bias, o) : 0.0) - at(mean, o)) * scale[o] +
                   (beta.defined() ? at(beta, o) : 0.0));
  }
  return out;
}

} // namespace kiln
