// kiln runtime — eager CPU (and Meta) scaled_dot_product_attention without
// dropout: softmax(Q K^T * scale + mask) V with bool/float masks, is_causal and
// grouped-query heads; a fully masked row gives zeros as ATen's math path does.
#include "TensorIter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::cpu {
namespace {

Tensor sdpa(const Tensor &q, const Tensor &k, const Tensor &v, const Tensor &mask, double dropoutP, bool causal,
            std::optional<double> scale, bool gqa) {
  const char *op = "aten::scaled_dot_product_attention";
  check(q.dim() >= 2 && k.dim() == q.dim() && v.dim() == q.dim(), op,
        "query, key and value must have the same rank (at least 2), got " + q.shapeString() + ", " +
            k.shapeString() + ", " + v.shapeString());
  check(dropoutP == 0, op,
        "dropout_p > 0 runs as its decomposition (softmax, dropout, matmul), which covers 4-D inputs "
        "without is_causal or enable_gqa; export the model in eval mode or decompose it to Core ATen IR");
  check(!(causal && mask.defined()), op, "attn_mask and is_causal cannot both be set");
  int64_t r = q.dim(), L = q.size(-2), E = q.size(-1), S = k.size(-2), Ev = v.size(-1);
  check(k.size(-1) == E && v.size(-2) == S, op,
        "key " + k.shapeString() + " and value " + v.shapeString() + " do not fit query " + q.shapeString());
  // Leading (batch) dims; with enable_gqa the head dim (-3) of key/value may divide query's.
  std::vector<int64_t> lead(q.sizes().begin(), q.sizes().end() - 2);
  int64_t groups = 1;
  for (int64_t d = 0; d < r - 2; ++d) {
    bool headDim = d == r - 3;
    if (gqa && headDim && k.size(d) != q.size(d)) {
      check(k.size(d) > 0 && q.size(d) % k.size(d) == 0 && v.size(d) == k.size(d), op,
            "with enable_gqa, query's heads must be a multiple of key's and value's");
      groups = q.size(d) / k.size(d);
      continue;
    }
    // A key/value batch dim of 1 broadcasts to the query's (one key head for every query head).
    check((k.size(d) == q.size(d) || k.size(d) == 1) && (v.size(d) == q.size(d) || v.size(d) == 1), op,
          "query " + q.shapeString() + ", key " + k.shapeString() + " and value " + v.shapeString() +
              " differ in batch dims");
  }
  std::vector<int64_t> shape = lead;
  shape.push_back(L);
  shape.push_back(Ev);
  // The result keeps the query's memory layout (its dims ordered by stride), as
  // ATen's does; exported graphs may view it with that layout in mind.
  std::vector<int64_t> order(r);
  for (int64_t d = 0; d < r; ++d) order[d] = d;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return q.stride(a) > q.stride(b); });
  std::vector<int64_t> phys(r), ost(r);
  for (int64_t i = 0; i < r; ++i) phys[i] = shape[order[i]];
  Tensor pt = emptyLike(phys, q.dtype(), q);
  std::vector<int64_t> pst = Tensor::contiguousStrides(phys);
  for (int64_t i = 0; i < r; ++i) ost[order[i]] = pst[i];
  Tensor out = Tensor::view(pt.storage(), 0, shape, ost, q.dtype());
  if (isMeta(out) || isMeta(k) || isMeta(v) || (mask.defined() && isMeta(mask))) return out;
  check(q.dtype() == k.dtype() && q.dtype() == v.dtype(), op, "query, key and value must have the same dtype");
  std::vector<int64_t> ls = lead;
  ls.push_back(L);
  ls.push_back(S);
  Tensor m;
  if (mask.defined()) {
    check(mask.dtype() == DType::Bool || mask.dtype() == q.dtype(), op,
          std::string("attn_mask must be bool or the query's dtype, got ") + dtypeTorchName(mask.dtype()));
    m = Tensor::empty(ls, mask.dtype() == DType::Bool ? DType::Bool : DType::Float64);
    copyInto(m, mask, op); // broadcast to [..., L, S]
  }
  double sc = scale ? *scale : 1.0 / std::sqrt((double)E);
  // Key and value broadcast to the query's batch dims (keeping their own grouped head dim).
  auto broadcastLead = [&](const Tensor &t) {
    std::vector<int64_t> want = lead;
    if (groups > 1) want[r - 3] = t.size(r - 3);
    want.push_back(t.size(-2));
    want.push_back(t.size(-1));
    if (want == t.sizes()) return t.contiguous();
    Tensor b = Tensor::empty(want, t.dtype());
    copyInto(b, t, op);
    return b;
  };
  Tensor qc = q.contiguous(), kc = broadcastLead(k), vc = broadcastLead(v);
  int64_t B = 1;
  for (int64_t s : lead) B *= s;
  dispatchFloat(q.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *pq = qc.data<T>(), *pk = kc.data<T>(), *pv = vc.data<T>();
    T *po = out.data<T>();
    const double *pmf = m.defined() && m.dtype() == DType::Float64 ? m.data<double>() : nullptr;
    const uint8_t *pmb = m.defined() && m.dtype() == DType::Bool ? m.data<uint8_t>() : nullptr;
    parallelFor(B * L, 1, [&](int64_t b0, int64_t b1) {
      std::vector<double> sco(S), acc(Ev);
      for (int64_t bl = b0; bl < b1; ++bl) {
        int64_t b = bl / L, l = bl % L, bk = b / groups; // key/value batch (heads are the innermost lead dim)
        const T *qr = pq + (b * L + l) * E;
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t s = 0; s < S; ++s) {
          double x;
          if ((causal && s > l) || (pmb && !pmb[bl * S + s])) x = -std::numeric_limits<double>::infinity();
          else {
            const T *kr = pk + (bk * S + s) * E;
            double dot = 0;
            for (int64_t e = 0; e < E; ++e) dot += (double)qr[e] * (double)kr[e];
            x = dot * sc + (pmf ? pmf[bl * S + s] : 0.0);
          }
          sco[s] = x;
          mx = std::max(mx, x);
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        int64_t off = l * ost[r - 2], es = ost[r - 1];
        for (int64_t d = r - 3, rem = b; d >= 0; --d) {
          off += (rem % shape[d]) * ost[d];
          rem /= shape[d];
        }
        T *orow = po + off;
        if (mx == -std::numeric_limits<double>::infinity()) {
          for (int64_t e = 0; e < Ev; ++e) orow[e * es] = T(0);
          continue;
        }
        double sum = 0;
        for (int64_t s = 0; s < S; ++s) sum += sco[s] = std::exp(sco[s] - mx);
        for (int64_t s = 0; s < S; ++s) {
          double p = sco[s] / sum;
          if (p == 0) continue;
          const T *vr = pv + (bk * S + s) * Ev;
          for (int64_t e = 0; e < Ev; ++e) acc[e] += p * (double)vr[e];
        }
        for (int64_t e = 0; e < Ev; ++e) orow[e * es] = (T)acc[e];
      }
    });
  });
  return out;
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) { m.impl("scaled_dot_product_attention", sdpa); }

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
        "float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor");
}
