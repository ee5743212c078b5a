// kiln runtime — composite rules: scaled_dot_product_attention with dropout (training), as
// softmax(Q K^T * scale + mask), dropped out, times V; without dropout it keeps its own op.
#include "Rules.h"

namespace kiln::decomp {

const char *const kAttentionRules = R"(
# Attention with dropout_p > 0 (a model in training mode): the probabilities
# go through dropout, so the fused op cannot be used. Float, bool or no
# masks, no causal flag, no grouped-query heads.
def scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor
  when dropout_p != 0.0
  when is_causal == False
  when enable_gqa == False
  when rank query == 4
  when rank key == 4
  kt = aten::transpose.int(self=key, dim0=2, dim1=3) : dims key [@0, @1, @3, @2]
  s = aten::matmul.default(self=query, other=kt) : dims query [@0, @1, @2, key@2]
  sc = kiln::attention_scale(scores=s, query=query, scale=scale) : like s
  m = kiln::attention_mask(scores=sc, mask=attn_mask) : like s
  p = aten::_softmax.default(self=m, dim=-1, half_to_float=False) : like s
  d = aten::dropout.default(input=p, p=dropout_p, train=True) : like s
  r = aten::matmul.default(self=d, other=value)
  return r
# scores / sqrt(E) (E the query's last dim, counted as a sum of ones so that a
# symbolic E works too), or scores * scale.
def kiln::attention_scale(Tensor scores, Tensor query, float? scale) -> Tensor
  when scale is None
  o = aten::ones_like.default(self=query) : like query
  e = aten::sum.dim_IntList(self=o, dim=[3], keepdim=True, dtype=None) : reduce query 3 True
  rs = aten::rsqrt.default(self=e) : like e
  r = aten::mul.Tensor(self=scores, other=rs)
  return r
def kiln::attention_scale(Tensor scores, Tensor query, float? scale) -> Tensor
  r = aten::mul.Tensor(self=scores, other=scale)
  return r
def kiln::attention_mask(Tensor scores, Tensor? mask) -> Tensor
  when mask is None
  return scores
def kiln::attention_mask(Tensor scores, Tensor? mask) -> Tensor
  when float mask
  r = aten::add.Tensor(self=scores, other=mask)
  return r
# A bool mask keeps the scores where it is true; elsewhere the lowest float32
# (the table has no infinity), so a row with every key masked averages its
# values where PyTorch gives NaN.
def kiln::attention_mask(Tensor scores, Tensor? mask) -> Tensor
  when int mask
  r = aten::where.self(condition=mask, self=scores, other=-3.4028234663852886e+38)
  return r
)";

} // namespace kiln::decomp
