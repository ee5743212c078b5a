// kiln runtime — eager CPU (and Meta) kernels: lstm.input, gru.input,
// rnn_tanh.input and rnn_relu.input (multi-layer, bidirectional, batch_first,
// with or without biases, LSTM projections), as PyTorch's nn.LSTM / nn.GRU / nn.RNN compute them.
#include "KernelUtils.h"

#include <cmath>

namespace kiln::cpu {
namespace {

enum class Cell { LSTM, GRU, Tanh, Relu };

int64_t gatesOf(Cell c) { return c == Cell::LSTM ? 4 : c == Cell::GRU ? 3 : 1; }

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// Dims 0 and 1 of a 3-D tensor swapped, as a view.
Tensor swap01(const Tensor &t) {
  std::vector<int64_t> sz = t.sizes(), st = t.strides();
  std::swap(sz[0], sz[1]);
  std::swap(st[0], st[1]);
  return Tensor::view(t.storage(), t.offset(), sz, st, t.dtype());
}

struct RnnResult {
  Tensor output, h, c;
};

/// Runs every layer and direction. `h0` is [layers * directions, B, P] and
/// `c0` (an LSTM's) [layers * directions, B, H]; params per layer and
/// direction: w_ih, w_hh and, with biases, b_ih, b_hh, and for an LSTM with
/// proj_size P the projection w_hr [P, H] (h = w_hr (o * tanh(c))); P = H
/// without one.
RnnResult runRnn(Cell cell, const Tensor &input0, const Tensor &h0, const Tensor &c0,
                 const std::vector<Tensor> &params, bool hasBiases, int64_t layers, double dropout, bool train,
                 bool bidirectional, bool batchFirst, const char *op) {
  check(input0.dim() == 3 || input0.dim() == 2, op, "expected a 2-D or 3-D input, got " + input0.shapeString());
  bool unbatched = input0.dim() == 2;
  Tensor input = unbatched ? input0.reshape({input0.size(0), 1, input0.size(1)})
                           : batchFirst ? swap01(input0) : input0;
  int64_t T = input.size(0), B = input.size(1), I = input.size(2), D = bidirectional ? 2 : 1;
  int64_t base = hasBiases ? 4 : 2;
  bool proj = cell == Cell::LSTM && layers >= 1 && (int64_t)params.size() == layers * D * (base + 1);
  int64_t per = base + (proj ? 1 : 0);
  check(layers >= 1 && (int64_t)params.size() == layers * D * per, op,
        "expected " + std::to_string(layers * D * base) + " parameter tensors (" + std::to_string(layers) +
            " layers, " + std::to_string(D) + " directions" + (hasBiases ? ", with biases" : "") + "), got " +
            std::to_string(params.size()));
  check(!(train && dropout > 0 && layers > 1), op, "dropout between layers in training has no eager kernel");
  check(params[1].dim() == 2, op, "w_hh must be 2-D, got " + params[1].shapeString());
  int64_t G = gatesOf(cell), H = params[1].size(0) / G, P = params[1].size(1);
  check(proj || P == H, op, "w_hh " + params[1].shapeString() + " is not [" + std::to_string(G) + " * H, H]");
  check(params[0].dim() == 2 && params[0].size(0) == G * H, op,
        "w_ih " + params[0].shapeString() + " does not hold " + std::to_string(G) + " gates of " +
            std::to_string(H));
  auto stateIn = [&](const Tensor &s) {
    return unbatched && s.defined() && s.dim() == 2 ? s.reshape({s.size(0), 1, s.size(1)}) : s;
  };
  Tensor hInit = stateIn(h0), cInit = stateIn(c0);
  check(hInit.dim() == 3 && hInit.size(0) == layers * D && hInit.size(1) == B && hInit.size(2) == P, op,
        "h0 must be [" + std::to_string(layers * D) + ", " + std::to_string(B) + ", " + std::to_string(P) +
            "], got " + h0.shapeString());
  if (cell == Cell::LSTM)
    check(cInit.defined() && cInit.sizes() == std::vector<int64_t>{layers * D, B, H}, op,
          "c0 must be [" + std::to_string(layers * D) + ", " + std::to_string(B) + ", " + std::to_string(H) +
              "], got " + cInit.shapeString());
  RnnResult r;
  r.output = Tensor::empty({T, B, D * P}, input.dtype(), input.device());
  r.h = Tensor::empty({layers * D, B, P}, input.dtype(), input.device());
  if (cell == Cell::LSTM) r.c = Tensor::empty({layers * D, B, H}, input.dtype(), input.device());
  if (!isMeta(input)) {
    dispatchFloat(input.dtype(), op, [&](auto tag) {
      using T_ = decltype(tag);
      Tensor layerIn = input.contiguous();
      Tensor hs = castTo(hInit, input.dtype()).contiguous();
      Tensor cs = cell == Cell::LSTM ? castTo(cInit, input.dtype()).contiguous() : Tensor();
      int64_t inSize = I;
      for (int64_t l = 0; l < layers; ++l) {
        Tensor layerOut = Tensor::empty({T, B, D * P}, input.dtype());
        for (int64_t d = 0; d < D; ++d) {
          int64_t k = (l * D + d) * per;
          Tensor wih = castTo(params[k], input.dtype()).contiguous();
          Tensor whh = castTo(params[k + 1], input.dtype()).contiguous();
          check(wih.size(1) == inSize && whh.size(0) == G * H && whh.size(1) == P, op,
                "layer " + std::to_string(l) + " weights " + wih.shapeString() + ", " + whh.shapeString() +
                    " do not match input size " + std::to_string(inSize) + " and hidden size " +
                    std::to_string(H));
          Tensor bih = hasBiases ? castTo(params[k + 2], input.dtype()).contiguous() : Tensor();
          Tensor bhh = hasBiases ? castTo(params[k + 3], input.dtype()).contiguous() : Tensor();
          Tensor whr = proj ? castTo(params[k + base], input.dtype()).contiguous() : Tensor();
          if (proj)
            check(whr.dim() == 2 && whr.size(0) == P && whr.size(1) == H, op,
                  "w_hr " + whr.shapeString() + " is not [" + std::to_string(P) + ", " + std::to_string(H) + "]");
          std::vector<T_> h(B * P), hFull(proj ? B * H : 0), c(B * H), gx(B * G * H), gh(B * G * H);
          std::copy(hs.data<T_>() + (l * D + d) * B * P, hs.data<T_>() + (l * D + d + 1) * B * P, h.begin());
          if (cell == Cell::LSTM)
            std::copy(cs.data<T_>() + (l * D + d) * B * H, cs.data<T_>() + (l * D + d + 1) * B * H, c.begin());
          const T_ *px = layerIn.data<T_>();
          T_ *po = layerOut.data<T_>();
          for (int64_t s = 0; s < T; ++s) {
            int64_t t = d == 0 ? s : T - 1 - s;
            // Gates from the input and from the hidden state: [B, G*H] each.
            gemm<T_>(B, G * H, inSize, T_(1), px + t * B * inSize, inSize, 1, wih.data<T_>(), 1, inSize, T_(0),
                     gx.data());
            gemm<T_>(B, G * H, P, T_(1), h.data(), P, 1, whh.data<T_>(), 1, P, T_(0), gh.data());
            for (int64_t b = 0; b < B; ++b)
              for (int64_t j = 0; j < H; ++j) {
                auto x = [&](int64_t g) {
                  return (double)gx[b * G * H + g * H + j] + (hasBiases ? (double)bih.data<T_>()[g * H + j] : 0.0);
                };
                auto hh = [&](int64_t g) {
                  return (double)gh[b * G * H + g * H + j] + (hasBiases ? (double)bhh.data<T_>()[g * H + j] : 0.0);
                };
                double hNew;
                if (cell == Cell::LSTM) {
                  double ig = sigmoid(x(0) + hh(0)), fg = sigmoid(x(1) + hh(1));
                  double gg = std::tanh(x(2) + hh(2)), og = sigmoid(x(3) + hh(3));
                  double cNew = fg * (double)c[b * H + j] + ig * gg;
                  c[b * H + j] = (T_)cNew;
                  hNew = og * std::tanh(cNew);
                } else if (cell == Cell::GRU) {
                  double rg = sigmoid(x(0) + hh(0)), zg = sigmoid(x(1) + hh(1));
                  double ng = std::tanh(x(2) + rg * hh(2));
                  hNew = (1 - zg) * ng + zg * (double)h[b * H + j];
                } else {
                  double a = x(0) + hh(0);
                  hNew = cell == Cell::Tanh ? std::tanh(a) : std::max(a, 0.0);
                }
                // Every (b, j) reads h only through gh, computed above.
                if (proj) {
                  hFull[b * H + j] = (T_)hNew;
                } else {
                  h[b * H + j] = (T_)hNew;
                  po[(t * B + b) * D * H + d * H + j] = (T_)hNew;
                }
              }
            if (proj) { // h = (o * tanh(c)) w_hr^T: [B, P]
              gemm<T_>(B, P, H, T_(1), hFull.data(), H, 1, whr.data<T_>(), 1, H, T_(0), h.data());
              for (int64_t b = 0; b < B; ++b)
                for (int64_t j = 0; j < P; ++j) po[(t * B + b) * D * P + d * P + j] = h[b * P + j];
            }
          }
          std::copy(h.begin(), h.end(), r.h.data<T_>() + (l * D + d) * B * P);
          if (cell == Cell::LSTM) std::copy(c.begin(), c.end(), r.c.data<T_>() + (l * D + d) * B * H);
        }
        layerIn = layerOut;
        inSize = D * P;
      }
      std::copy(layerIn.data<T_>(), layerIn.data<T_>() + T * B * D * P, r.output.data<T_>());
    });
  }
  if (unbatched) {
    r.output = r.output.reshape({T, D * P});
    r.h = r.h.reshape({layers * D, P});
    if (r.c.defined()) r.c = r.c.reshape({layers * D, H});
  } else if (batchFirst) {
    r.output = swap01(r.output).contiguous();
  }
  return r;
}

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor &input, std::vector<Tensor> hx, std::vector<Tensor> params,
                                        bool hasBiases, int64_t layers, double dropout, bool train,
                                        bool bidirectional, bool batchFirst) {
  const char *op = "aten::lstm.input";
  check(hx.size() == 2, op, "hx must hold h0 and c0");
  RnnResult r = runRnn(Cell::LSTM, input, hx[0], hx[1], params, hasBiases, layers, dropout, train, bidirectional,
                       batchFirst, op);
  return {r.output, r.h, r.c};
}

/// gru.input, rnn_tanh.input and rnn_relu.input: one state, returned after the output.
template <Cell C>
std::tuple<Tensor, Tensor> oneStateRnn(const Tensor &input, const Tensor &hx, std::vector<Tensor> params,
                                       bool hasBiases, int64_t layers, double dropout, bool train,
                                       bool bidirectional, bool batchFirst) {
  const char *op = C == Cell::GRU ? "aten::gru.input" : C == Cell::Tanh ? "aten::rnn_tanh.input" : "aten::rnn_relu.input";
  RnnResult r = runRnn(C, input, hx, Tensor(), params, hasBiases, layers, dropout, train, bidirectional, batchFirst, op);
  return {r.output, r.h};
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("lstm.input", lstm);
  m.impl("gru.input", oneStateRnn<Cell::GRU>);
  m.impl("rnn_tanh.input", oneStateRnn<Cell::Tanh>);
  m.impl("rnn_relu.input", oneStateRnn<Cell::Relu>);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, float dropout, "
        "bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)");
  for (const char *n : {"gru.input", "rnn_tanh.input", "rnn_relu.input"})
    m.def(std::string(n) +
          "(Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, "
          "bool bidirectional, bool batch_first) -> (Tensor, Tensor)");
}
