// kiln runtime — backward formulas of the runtime's segment-reducing ops:
// segment_reduce, embedding_bag (every overload and mode) and the margin
// losses multi_margin_loss / multilabel_margin_loss.
#include "FormulaUtils.h"

#include <cmath>
#include <map>

namespace kiln {
namespace {

using namespace formulas;


/// segment_reduce(data, reduce, *, lengths, indices, offsets, axis, unsafe, initial): segments
/// of consecutive elements along `axis`; sum and mean spread the gradient, max and min give it
/// to the elements equal to the result (shared evenly among ties), prod to each element times
/// the product of the others.
Grads segmentReduce(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  const Tensor &data = c.input(0);
  std::string reduce = c.inputs[1].toString();
  int64_t axis = c.inputs[5].toInt();
  axis = axis < 0 ? axis + data.dim() : axis;
  Tensor x = f64(data), y = f64(c.output(0)), gy = f64(g[0]), gx = Tensor::zeros(data.sizes(), DType::Float64);
  int64_t outer = 1, inner = 1, n = data.size(axis), S = y.size(axis);
  for (int64_t d = 0; d < axis; ++d) outer *= data.size(d);
  for (int64_t d = axis + 1; d < data.dim(); ++d) inner *= data.size(d);
  // Segment starts per outer row: from lengths [.., S] or offsets [.., S + 1].
  bool fromLengths = !c.inputs[2].isNone();
  std::vector<int64_t> v = ints(fromLengths ? c.input(2) : c.input(4));
  int64_t per = fromLengths ? S : S + 1;
  auto segment = [&](int64_t o, int64_t s) -> std::pair<int64_t, int64_t> {
    int64_t row = (int64_t)v.size() == per ? 0 : o;
    if (!fromLengths) return {v[row * per + s], v[row * per + s + 1]};
    int64_t b = 0;
    for (int64_t k = 0; k < s; ++k) b += v[row * per + k];
    return {b, b + v[row * per + s]};
  };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t s = 0; s < S; ++s) {
      auto [b, e] = segment(o, s);
      for (int64_t i = 0; i < inner; ++i) {
        double gv = dp(gy)[(o * S + s) * inner + i], out = dp(y)[(o * S + s) * inner + i];
        auto at = [&](int64_t j) { return (o * n + j) * inner + i; };
        int64_t len = e - b;
        if (len <= 0) continue;
        if (reduce == "sum") {
          for (int64_t j = b; j < e; ++j) dp(gx)[at(j)] += gv;
        } else if (reduce == "mean") {
          for (int64_t j = b; j < e; ++j) dp(gx)[at(j)] += gv / (double)len;
        } else if (reduce == "max" || reduce == "min") {
          auto hit = [&](double e) { return std::isnan(out) ? std::isnan(e) : e == out; };
          int64_t ties = 0;
          for (int64_t j = b; j < e; ++j) ties += hit(dp(x)[at(j)]);
          for (int64_t j = b; j < e; ++j)
            if (hit(dp(x)[at(j)])) dp(gx)[at(j)] += gv / (double)ties;
        } else if (reduce == "prod") {
          for (int64_t j = b; j < e; ++j) {
            double p = 1;
            for (int64_t k = b; k < e; ++k)
              if (k != j) p *= dp(x)[at(k)];
            dp(gx)[at(j)] += gv * p;
          }
        } else {
          throw Error("kiln: segment_reduce backward: unknown reduce '" + reduce + "'");
        }
      }
    }
  return {as(gx, data.dtype())};
}

/// embedding_bag (weight, indices, offsets, scale_grad_by_freq, mode, sparse,
/// per_sample_weights, include_last_offset, padding_idx) -> (out, offset2bag, bag_size,
/// max_indices): the gradients of weight and per_sample_weights.
Grads embeddingBag(const Ctx &c, const Grads &g) {
  Grads out(c.inputs.size());
  if (!has(g, 0)) return out;
  const Tensor &weight = c.input(0), &indices = c.input(1);
  bool byFreq = c.inputs[3].toBool(), lastOffset = c.inputs[7].toBool();
  int64_t mode = c.inputs[4].toInt();
  int64_t padding = c.inputs.size() > 8 && !c.inputs[8].isNone() ? c.inputs[8].toInt() : -1;
  bool hasPsw = !c.inputs[6].isNone();
  Tensor W = f64(weight), gy = f64(g[0]), gW = Tensor::zeros(weight.sizes(), DType::Float64);
  Tensor psw = hasPsw ? f64(c.input(6)) : Tensor();
  Tensor gPsw = hasPsw ? Tensor::zeros(c.input(6).sizes(), DType::Float64) : Tensor();
  std::vector<int64_t> idx = ints(indices);
  int64_t D = weight.size(1), N = (int64_t)idx.size(), R = weight.size(0);
  if (padding < 0 && padding != -1) padding += R;
  // Bag boundaries.
  std::vector<int64_t> starts;
  if (indices.dim() == 2) {
    for (int64_t b = 0; b < indices.size(0); ++b) starts.push_back(b * indices.size(1));
  } else {
    starts = ints(c.input(2));
    if (lastOffset && !starts.empty()) starts.pop_back();
  }
  int64_t B = (int64_t)starts.size();
  std::map<int64_t, int64_t> freq;
  for (int64_t i : idx) ++freq[i];
  std::vector<int64_t> maxIdx = mode == 2 ? ints(c.output(3)) : std::vector<int64_t>();
  for (int64_t b = 0; b < B; ++b) {
    int64_t s = starts[b], e = b + 1 < B ? starts[b + 1] : N;
    if (lastOffset && indices.dim() == 1) e = std::min<int64_t>(e, N);
    if (mode == 2) { // max: each feature's gradient to the row that gave the max
      for (int64_t d = 0; d < D; ++d) {
        int64_t r = maxIdx[b * D + d];
        if (r >= 0 && r < R) dp(gW)[r * D + d] += dp(gy)[b * D + d];
      }
      continue;
    }
    int64_t count = 0;
    for (int64_t i = s; i < e; ++i) count += idx[i] != padding;
    for (int64_t i = s; i < e; ++i) {
      int64_t r = idx[i];
      if (r == padding) continue;
      double scaleBy = mode == 1 ? 1.0 / (double)std::max<int64_t>(count, 1) : 1.0;
      if (byFreq) scaleBy /= (double)freq[r];
      double w = hasPsw ? dp(psw)[i] : 1.0, dot = 0;
      for (int64_t d = 0; d < D; ++d) {
        dp(gW)[r * D + d] += dp(gy)[b * D + d] * scaleBy * w;
        dot += dp(gy)[b * D + d] * dp(W)[r * D + d];
      }
      if (hasPsw) dp(gPsw)[i] += dot * scaleBy;
    }
  }
  out[0] = as(gW, weight.dtype());
  if (hasPsw) out[6] = as(gPsw, c.input(6).dtype());
  return out;
}

/// The weight of row `i`'s loss in the total (reduction 0 none, 1 mean, 2 sum).
double rowScale(const Tensor &gy, int64_t reduction, int64_t i, int64_t rows) {
  if (reduction == 0) return dp(gy)[i];
  return dp(gy)[0] / (reduction == 1 ? (double)rows : 1.0);
}

/// multi_margin_loss(self, target, p, margin, weight, reduction): per row
/// sum_{j != y} w_y max(0, margin - x_y + x_j)^p / C.
Grads multiMargin(const Ctx &c, const Grads &g) {
  Grads out(c.inputs.size());
  if (!has(g, 0)) return out;
  const Tensor &self = c.input(0);
  int64_t p = c.inputs[2].toInt();
  double margin = c.inputs[3].toDouble();
  bool hasW = !c.inputs[4].isNone();
  int64_t reduction = c.inputs[5].toInt();
  Tensor x = f64(self), gy = f64(g[0]), gx = Tensor::zeros(self.sizes(), DType::Float64);
  Tensor w = hasW ? f64(c.input(4)) : Tensor();
  std::vector<int64_t> y = ints(c.input(1));
  int64_t C = self.dim() == 0 ? 1 : self.size(-1), rows = C ? std::max<int64_t>(1, x.numel() / C) : 0;
  if ((int64_t)y.size() < rows) throw Error("kiln: multi_margin_loss backward: fewer targets than rows");
  for (int64_t i = 0; i < rows; ++i) {
    int64_t t = y[i];
    if (t < 0 || t >= C)
      throw Error("kiln: multi_margin_loss backward: target " + std::to_string(t) + " is out of range");
    double gi = rowScale(gy, reduction, i, rows) * (hasW ? dp(w)[t] : 1.0) / (double)C;
    for (int64_t j = 0; j < C; ++j) {
      if (j == t) continue;
      double z = margin - dp(x)[i * C + t] + dp(x)[i * C + j];
      if (z <= 0) continue;
      double d = (p == 1 ? 1.0 : 2.0 * z) * gi;
      dp(gx)[i * C + j] += d;
      dp(gx)[i * C + t] -= d;
    }
  }
  out[0] = as(gx, self.dtype());
  return out;
}

/// multilabel_margin_loss(self, target, reduction): per row, over the labels j (target's
/// entries before the first -1) and the other classes k, sum max(0, 1 - (x_j - x_k)) / C.
Grads multilabelMargin(const Ctx &c, const Grads &g) {
  Grads out(c.inputs.size());
  if (!has(g, 0)) return out;
  const Tensor &self = c.input(0);
  int64_t reduction = c.inputs[2].toInt();
  Tensor x = f64(self), gy = f64(g[0]), gx = Tensor::zeros(self.sizes(), DType::Float64);
  std::vector<int64_t> y = ints(c.input(1));
  int64_t C = self.dim() == 0 ? 1 : self.size(-1), rows = C ? std::max<int64_t>(1, x.numel() / C) : 0;
  for (int64_t i = 0; i < rows; ++i) {
    double gi = rowScale(gy, reduction, i, rows) / (double)C;
    std::vector<bool> isLabel(C, false);
    std::vector<int64_t> labels;
    for (int64_t k = 0; k < C && y[i * C + k] >= 0; ++k) {
      if (y[i * C + k] >= C)
        throw Error("kiln: multilabel_margin_loss backward: target " + std::to_string(y[i * C + k]) +
                    " is out of range");
      labels.push_back(y[i * C + k]);
      isLabel[y[i * C + k]] = true;
    }
    for (int64_t j : labels)
      for (int64_t k = 0; k < C; ++k) {
        if (isLabel[k]) continue;
        if (1.0 - (dp(x)[i * C + j] - dp(x)[i * C + k]) <= 0) continue;
        dp(gx)[i * C + j] -= gi;
        dp(gx)[i * C + k] += gi;
      }
  }
  out[0] = as(gx, self.dtype());
  return out;
}

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  m.register_autograd("segment_reduce", segmentReduce);
  for (const char *op : {"embedding_bag.padding_idx", "_embedding_bag_forward_only", "_embedding_bag"})
    m.register_autograd(op, embeddingBag);
  m.register_autograd("multi_margin_loss", multiMargin);
  m.register_autograd("multilabel_margin_loss", multilabelMargin);
}
