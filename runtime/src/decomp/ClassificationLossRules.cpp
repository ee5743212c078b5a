// kiln runtime — composite rules: cross_entropy beyond plain class indices (label smoothing,
// class probabilities, spatial [N, C, d...] scores) and nll_loss over [N, C, d...] (nll_loss2d).
#include "Rules.h"

namespace kiln::decomp {

// The plain forms (class indices over [N, C] or [C], no smoothing) are LossRules.cpp's,
// tried first.
const char *const kClassificationLossRules = R"(
# cross_entropy with class indices over [N, C] and label smoothing ls (ATen's
# cross_entropy_loss_label_smoothing): (1 - ls) nll + ls / C * smooth, where
# smooth = -sum_c w_c log p_c, zero for ignored targets, reduced as nll is
# (mean: divided by nll's total weight).
def cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor
  when int target
  when rank self == 2
  l = aten::_log_softmax.default(self=self, dim=1, half_to_float=False) : like self
  wl = kiln::weighted(self=l, weight=weight) : like self
  s = aten::sum.dim_IntList(self=wl, dim=[1], keepdim=False, dtype=None) : reduce self 1 False
  ns = aten::neg.default(self=s) : like s
  m = aten::ne.Scalar(self=target, other=ignore_index) : like target as bool
  sm = aten::where.self(condition=m, self=ns, other=0.0) : like s
  r = kiln::smoothed_nll(logp=l, smooth=sm, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index, label_smoothing=label_smoothing)
  return r
def kiln::smoothed_nll(Tensor logp, Tensor smooth, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, float label_smoothing) -> Tensor
  when reduction == 0
  o, tw = aten::nll_loss_forward.default(self=logp, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index) : like target as logp ; dims logp []
  r = kiln::smoothing_mix(nll=o, smooth=smooth, scores=logp, label_smoothing=label_smoothing)
  return r
def kiln::smoothed_nll(Tensor logp, Tensor smooth, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, float label_smoothing) -> Tensor
  when reduction == 1
  o, tw = aten::nll_loss_forward.default(self=logp, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index) : dims logp [] ; dims logp []
  ss = aten::sum.default(self=smooth, dtype=None) : dims logp []
  sm = aten::div.Tensor(self=ss, other=tw) : dims logp []
  r = kiln::smoothing_mix(nll=o, smooth=sm, scores=logp, label_smoothing=label_smoothing)
  return r
def kiln::smoothed_nll(Tensor logp, Tensor smooth, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, float label_smoothing) -> Tensor
  when reduction == 2
  o, tw = aten::nll_loss_forward.default(self=logp, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index) : dims logp [] ; dims logp []
  ss = aten::sum.default(self=smooth, dtype=None) : dims logp []
  r = kiln::smoothing_mix(nll=o, smooth=ss, scores=logp, label_smoothing=label_smoothing)
  return r
# (1 - ls) nll + ls / C * smooth, C the size of dim 1 of the scores.
def kiln::smoothing_mix(Tensor nll, Tensor smooth, Tensor scores, float label_smoothing) -> Tensor
  c = aten::sym_size.int(self=scores, dim=1) : index
  a = aten::mul.Tensor(self=nll, other=label_smoothing) : like nll
  b = aten::sub.Tensor(self=nll, other=a) : like nll
  d = aten::mul.Tensor(self=smooth, other=label_smoothing) : like smooth
  e = aten::div.Tensor(self=d, other=c) : like smooth
  r = aten::add.Tensor(self=b, other=e)
  return r

# cross_entropy with class probabilities over [N, C]: -sum_c w_c t_c log p_c per
# row, the target smoothed to (1 - ls) t + ls / C; mean divides by N.
def cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor
  when float target
  when rank self == 2
  l = aten::_log_softmax.default(self=self, dim=1, half_to_float=False) : like self
  t = kiln::smoothed_target(target=target, label_smoothing=label_smoothing) : like target
  p = aten::mul.Tensor(self=l, other=t) : like self
  w = kiln::weighted(self=p, weight=weight) : like self
  s = aten::sum.dim_IntList(self=w, dim=[1], keepdim=False, dtype=None) : reduce self 1 False
  n = aten::neg.default(self=s) : like s
  r = kiln::loss_reduction(self=n, reduction=reduction)
  return r
def kiln::smoothed_target(Tensor target, float label_smoothing) -> Tensor
  when label_smoothing == 0.0
  return target
def kiln::smoothed_target(Tensor target, float label_smoothing) -> Tensor
  c = aten::sym_size.int(self=target, dim=1) : index
  a = aten::mul.Tensor(self=target, other=label_smoothing) : like target
  b = aten::sub.Tensor(self=target, other=a) : like target
  o = aten::ones_like.default(self=target) : like target
  q = aten::mul.Tensor(self=o, other=label_smoothing) : like target
  e = aten::div.Tensor(self=q, other=c) : like target
  r = aten::add.Tensor(self=b, other=e)
  return r

# cross_entropy with class indices over [N, C, d1] or [N, C, d1, d2] (no smoothing):
# nll of log_softmax over dim 1.
def cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor
  when int target
  when label_smoothing == 0.0
  when rank self >= 3
  l = aten::_log_softmax.default(self=self, dim=1, half_to_float=False) : like self
  r = aten::nll_loss_nd.default(self=l, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index)
  return r
# nll_loss over [N, C, d1] / [N, C, d1, d2] (nll_loss2d): -w[t] x[n, t, ...] per
# element, ignored targets weigh 0; mean divides by the total weight.
def nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor
  when rank self == 3
  m = aten::ne.Scalar(self=target, other=ignore_index) : like target as bool
  t = aten::where.self(condition=m, self=target, other=0) : like target
  u = aten::unsqueeze.default(self=t, dim=1) : dims target [@0, 1, @1]
  g = aten::gather.default(self=self, dim=1, index=u, sparse_grad=False) : dims target [@0, 1, @1] as self
  s = aten::squeeze.dim(self=g, dim=1) : like target as self
  w = kiln::class_weight_nd(weight=weight, index=t, like=s) : like s
  r = kiln::nll_nd_tail(self=s, weight=w, mask=m, reduction=reduction)
  return r
def nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor
  when rank self == 4
  m = aten::ne.Scalar(self=target, other=ignore_index) : like target as bool
  t = aten::where.self(condition=m, self=target, other=0) : like target
  u = aten::unsqueeze.default(self=t, dim=1) : dims target [@0, 1, @1, @2]
  g = aten::gather.default(self=self, dim=1, index=u, sparse_grad=False) : dims target [@0, 1, @1, @2] as self
  s = aten::squeeze.dim(self=g, dim=1) : like target as self
  w = kiln::class_weight_nd(weight=weight, index=t, like=s) : like s
  r = kiln::nll_nd_tail(self=s, weight=w, mask=m, reduction=reduction)
  return r
# w[t] for a target of any shape: the weight as an embedding table of width 1.
def kiln::class_weight_nd(Tensor? weight, Tensor index, Tensor like) -> Tensor
  when weight is None
  r = aten::ones_like.default(self=like)
  return r
def kiln::class_weight_nd(Tensor? weight, Tensor index, Tensor like) -> Tensor
  when rank index == 2
  w2 = aten::unsqueeze.default(self=weight, dim=1) : dims weight [@0, 1]
  e = aten::embedding.default(weight=w2, indices=index, padding_idx=-1, scale_grad_by_freq=False, sparse=False) : dims index [@0, @1, 1] as weight
  r = aten::squeeze.dim(self=e, dim=-1)
  return r
def kiln::class_weight_nd(Tensor? weight, Tensor index, Tensor like) -> Tensor
  when rank index == 3
  w2 = aten::unsqueeze.default(self=weight, dim=1) : dims weight [@0, 1]
  e = aten::embedding.default(weight=w2, indices=index, padding_idx=-1, scale_grad_by_freq=False, sparse=False) : dims index [@0, @1, @2, 1] as weight
  r = aten::squeeze.dim(self=e, dim=-1)
  return r
def kiln::nll_nd_tail(Tensor self, Tensor weight, Tensor mask, int reduction) -> Tensor
  wm = aten::where.self(condition=mask, self=weight, other=0.0) : like self
  l = aten::mul.Tensor(self=self, other=wm) : like self
  n = aten::neg.default(self=l) : like self
  o, tw = kiln::nll_reduction(self=n, weight=wm, reduction=reduction) : dims self [] ; dims self []
  return o
)";

} // namespace kiln::decomp
