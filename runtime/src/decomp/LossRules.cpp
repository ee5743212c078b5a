// kiln runtime — composite rules: loss functions (at::Reduction: 0 none, 1 mean, 2 sum).
#include "Rules.h"

namespace kiln::decomp {

const char *const kLossRules = R"(
# A loss's reduction argument: 0 none, 1 mean, 2 sum (at::Reduction).
def kiln::loss_reduction(Tensor self, int reduction) -> Tensor
  when reduction == 0
  return self
def kiln::loss_reduction(Tensor self, int reduction) -> Tensor
  when reduction == 1
  r = aten::mean.default(self=self, dtype=None)
  return r
def kiln::loss_reduction(Tensor self, int reduction) -> Tensor
  when reduction == 2
  r = aten::sum.default(self=self, dtype=None)
  return r

# soft_margin_loss = log1p(exp(-target * x))
def soft_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor
  when float self
  t = aten::mul.Tensor(self=target, other=self) : bcast self target
  n = aten::neg.default(self=t) : like t
  e = aten::exp.default(self=n) : like t
  l = aten::log1p.default(self=e) : like t
  r = kiln::loss_reduction(self=l, reduction=reduction)
  return r
# margin_ranking_loss = max(0, -target * (x1 - x2) + margin)
def margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=1) -> Tensor
  when float input1
  d = aten::sub.Tensor(self=input1, other=input2) : bcast input1 input2
  t = aten::mul.Tensor(self=target, other=d) : bcast d target
  n = aten::neg.default(self=t) : like t
  a = aten::add.Tensor(self=n, other=margin) : like t
  c = aten::clamp_min.default(self=a, min=0) : like t
  r = kiln::loss_reduction(self=c, reduction=reduction)
  return r
# hinge_embedding_loss: x where target is 1, max(0, margin - x) where it is -1
def hinge_embedding_loss(Tensor self, Tensor target, float margin=1., int reduction=1) -> Tensor
  when float self
  m = aten::rsub.Scalar(self=self, other=margin) : like self
  c = aten::clamp_min.default(self=m, min=0) : like self
  n1 = aten::ne.Scalar(self=target, other=1) : like target as bool
  a = aten::where.self(condition=n1, self=c, other=0.0) : bcast self target
  n2 = aten::ne.Scalar(self=target, other=-1) : like target as bool
  b = aten::where.self(condition=n2, self=self, other=0.0) : bcast self target
  l = aten::add.Tensor(self=a, other=b) : like a
  r = kiln::loss_reduction(self=l, reduction=reduction)
  return r
# binary_cross_entropy: -w (t log x + (1 - t) log(1 - x)), the logs clamped at -100
def binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor
  when float self
  lx = aten::log.default(self=self) : like self
  cx = aten::clamp_min.default(self=lx, min=-100) : like self
  om = aten::neg.default(self=self) : like self
  ly = aten::log1p.default(self=om) : like self
  cy = aten::clamp_min.default(self=ly, min=-100) : like self
  t1 = aten::mul.Tensor(self=target, other=cx) : like self
  ot = aten::rsub.Scalar(self=target, other=1) : like target
  t2 = aten::mul.Tensor(self=ot, other=cy) : like self
  s = aten::add.Tensor(self=t1, other=t2) : like self
  n = aten::neg.default(self=s) : like self
  w = kiln::weighted(self=n, weight=weight) : like self
  r = kiln::loss_reduction(self=w, reduction=reduction)
  return r
# binary_cross_entropy_with_logits: (1 - t) x + (1 + (pw - 1) t) (log1p(exp(-|x|)) + max(-x, 0))
def binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, int reduction=1) -> Tensor
  when float self
  ot = aten::rsub.Scalar(self=target, other=1) : like target
  a = aten::mul.Tensor(self=ot, other=self) : bcast self target
  ab = aten::abs.default(self=self) : like self
  na = aten::neg.default(self=ab) : like self
  e = aten::exp.default(self=na) : like self
  l = aten::log1p.default(self=e) : like self
  nx = aten::neg.default(self=self) : like self
  m = aten::clamp_min.default(self=nx, min=0) : like self
  sp = aten::add.Tensor(self=l, other=m) : like self
  q = kiln::pos_weighted(self=sp, target=target, pos_weight=pos_weight) : bcast self target
  s = aten::add.Tensor(self=a, other=q) : bcast a q
  w = kiln::weighted(self=s, weight=weight) : like s
  r = kiln::loss_reduction(self=w, reduction=reduction)
  return r
# The log-sigmoid term of binary_cross_entropy_with_logits times 1 + (pos_weight - 1) target.
def kiln::pos_weighted(Tensor self, Tensor target, Tensor? pos_weight) -> Tensor
  when pos_weight is None
  return self
def kiln::pos_weighted(Tensor self, Tensor target, Tensor? pos_weight) -> Tensor
  pm = aten::sub.Tensor(self=pos_weight, other=1) : like pos_weight
  pt = aten::mul.Tensor(self=pm, other=target) : bcast target pos_weight
  lw = aten::add.Tensor(self=pt, other=1) : like pt
  q = aten::mul.Tensor(self=lw, other=self) : bcast pt self
  return q
# An optional elementwise weight.
def kiln::weighted(Tensor self, Tensor? weight) -> Tensor
  when weight is None
  return self
def kiln::weighted(Tensor self, Tensor? weight) -> Tensor
  r = aten::mul.Tensor(self=self, other=weight)
  return r


# l1 / mse / huber / smooth l1 losses of x - target
def l1_loss(Tensor self, Tensor target, int reduction=1) -> Tensor
  when float self
  d = aten::sub.Tensor(self=self, other=target) : bcast self target
  a = aten::abs.default(self=d) : like d
  r = kiln::loss_reduction(self=a, reduction=reduction)
  return r
def mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor
  when float self
  d = aten::sub.Tensor(self=self, other=target) : bcast self target
  a = aten::mul.Tensor(self=d, other=d) : like d
  r = kiln::loss_reduction(self=a, reduction=reduction)
  return r
def huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.) -> Tensor
  when float self
  d = aten::sub.Tensor(self=self, other=target) : bcast self target
  a = aten::abs.default(self=d) : like d
  lt = aten::lt.Scalar(self=a, other=delta) : like d as bool
  sq = aten::mul.Tensor(self=a, other=a) : like d
  q = aten::mul.Tensor(self=sq, other=0.5) : like d
  m = aten::sub.Tensor(self=a, other=delta, alpha=0.5) : like d
  l = aten::mul.Tensor(self=m, other=delta) : like d
  w = aten::where.self(condition=lt, self=q, other=l) : like d
  r = kiln::loss_reduction(self=w, reduction=reduction)
  return r
def smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.) -> Tensor
  when float self
  when beta == 0.0
  d = aten::sub.Tensor(self=self, other=target) : bcast self target
  a = aten::abs.default(self=d) : like d
  r = kiln::loss_reduction(self=a, reduction=reduction)
  return r
def smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.) -> Tensor
  when float self
  d = aten::sub.Tensor(self=self, other=target) : bcast self target
  a = aten::abs.default(self=d) : like d
  lt = aten::lt.Scalar(self=a, other=beta) : like d as bool
  sq = aten::mul.Tensor(self=a, other=a) : like d
  h = aten::mul.Tensor(self=sq, other=0.5) : like d
  q = aten::div.Tensor(self=h, other=beta) : like d
  l = aten::sub.Tensor(self=a, other=beta, alpha=0.5) : like d
  w = aten::where.self(condition=lt, self=q, other=l) : like d
  r = kiln::loss_reduction(self=w, reduction=reduction)
  return r
# kl_div: target (log target - x), or exp(t) (t - x) with log_target
def kl_div(Tensor self, Tensor target, int reduction=1, *, bool log_target=False) -> Tensor
  when float self
  when log_target == False
  xl = aten::xlogy.Tensor(self=target, other=target) : like target
  tx = aten::mul.Tensor(self=target, other=self) : bcast self target
  l = aten::sub.Tensor(self=xl, other=tx) : like tx
  r = kiln::loss_reduction(self=l, reduction=reduction)
  return r
def kl_div(Tensor self, Tensor target, int reduction=1, *, bool log_target=False) -> Tensor
  when float self
  e = aten::exp.default(self=target) : like target
  d = aten::sub.Tensor(self=target, other=self) : bcast self target
  l = aten::mul.Tensor(self=e, other=d) : like d
  r = kiln::loss_reduction(self=l, reduction=reduction)
  return r
# poisson_nll_loss without the Stirling term
def poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction) -> Tensor
  when float input
  when full == False
  when log_input == True
  e = aten::exp.default(self=input) : like input
  t = aten::mul.Tensor(self=target, other=input) : bcast input target
  l = aten::sub.Tensor(self=e, other=t) : like t
  r = kiln::loss_reduction(self=l, reduction=reduction)
  return r
def poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction) -> Tensor
  when float input
  when full == False
  a = aten::add.Tensor(self=input, other=eps) : like input
  lg = aten::log.default(self=a) : like input
  t = aten::mul.Tensor(self=target, other=lg) : bcast input target
  l = aten::sub.Tensor(self=input, other=t) : like t
  r = kiln::loss_reduction(self=l, reduction=reduction)
  return r
# nll_loss over class scores [N, C] or [C]: nll_loss_forward's output
def nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor
  when rank self == 2
  when reduction == 0
  o, w = aten::nll_loss_forward.default(self=self, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index) : like target as self ; dims self []
  return o
def nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor
  when rank self <= 2
  o, w = aten::nll_loss_forward.default(self=self, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index) : dims self [] ; dims self []
  return o
# cross_entropy with class indices = nll_loss of log_softmax over the class dim
def cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor
  when int target
  when label_smoothing == 0.0
  when rank self == 2
  l = aten::_log_softmax.default(self=self, dim=1, half_to_float=False) : like self
  r = aten::nll_loss_nd.default(self=l, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index)
  return r
def cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor
  when int target
  when label_smoothing == 0.0
  when rank self == 1
  l = aten::_log_softmax.default(self=self, dim=0, half_to_float=False) : like self
  r = aten::nll_loss_nd.default(self=l, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index)
  return r

# poisson_nll_loss with the Stirling term t log t - t + log(2 pi t) / 2 where t > 1
def poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction) -> Tensor
  when float input
  when log_input == True
  e = aten::exp.default(self=input) : like input
  t = aten::mul.Tensor(self=target, other=input) : bcast input target
  l = aten::sub.Tensor(self=e, other=t) : like t
  s = kiln::stirling(target=target) : like target
  a = aten::add.Tensor(self=l, other=s) : like t
  r = kiln::loss_reduction(self=a, reduction=reduction)
  return r
def poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction) -> Tensor
  when float input
  p = aten::add.Tensor(self=input, other=eps) : like input
  lg = aten::log.default(self=p) : like input
  t = aten::mul.Tensor(self=target, other=lg) : bcast input target
  l = aten::sub.Tensor(self=input, other=t) : like t
  s = kiln::stirling(target=target) : like target
  a = aten::add.Tensor(self=l, other=s) : like t
  r = kiln::loss_reduction(self=a, reduction=reduction)
  return r
def kiln::stirling(Tensor target) -> Tensor
  lt = aten::log.default(self=target) : like target
  a = aten::mul.Tensor(self=target, other=lt) : like target
  b = aten::sub.Tensor(self=a, other=target) : like target
  c = aten::add.Tensor(self=lt, other=1.8378770664093453) : like target
  d = aten::mul.Tensor(self=c, other=0.5) : like target
  e = aten::add.Tensor(self=b, other=d) : like target
  g = aten::gt.Scalar(self=target, other=1) : like target as bool
  r = aten::where.self(condition=g, self=e, other=0.0)
  return r
# nll_loss over [N, C] scores: -w[t] x[n, t], ignored targets weigh 0
def nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)
  when rank self == 2
  m = aten::ne.Scalar(self=target, other=ignore_index) : like target as bool
  t = aten::where.self(condition=m, self=target, other=0) : like target
  u = aten::unsqueeze.default(self=t, dim=1) : dims target [@0, 1]
  g = aten::gather.default(self=self, dim=1, index=u, sparse_grad=False) : dims target [@0, 1] as self
  s = aten::squeeze.dim(self=g, dim=1) : like target as self
  w = kiln::class_weight(weight=weight, index=t, like=s) : like s
  wm = aten::where.self(condition=m, self=w, other=0.0) : like s
  l = aten::mul.Tensor(self=s, other=wm) : like s
  n = aten::neg.default(self=l) : like s
  o, tw = kiln::nll_reduction(self=n, weight=wm, reduction=reduction)
  return o, tw
def kiln::class_weight(Tensor? weight, Tensor index, Tensor like) -> Tensor
  when weight is None
  r = aten::ones_like.default(self=like)
  return r
def kiln::class_weight(Tensor? weight, Tensor index, Tensor like) -> Tensor
  r = aten::index_select.default(self=weight, dim=0, index=index)
  return r
def kiln::nll_reduction(Tensor self, Tensor weight, int reduction) -> (Tensor, Tensor)
  when reduction == 0
  tw = aten::sum.default(self=weight, dtype=None)
  return self, tw
def kiln::nll_reduction(Tensor self, Tensor weight, int reduction) -> (Tensor, Tensor)
  when reduction == 1
  tw = aten::sum.default(self=weight, dtype=None)
  s = aten::sum.default(self=self, dtype=None) : reduce self None False
  r = aten::div.Tensor(self=s, other=tw)
  return r, tw
def kiln::nll_reduction(Tensor self, Tensor weight, int reduction) -> (Tensor, Tensor)
  when reduction == 2
  tw = aten::sum.default(self=weight, dtype=None)
  r = aten::sum.default(self=self, dtype=None)
  return r, tw
# cosine_embedding_loss: 1 - cos where target is 1, max(0, cos - margin) where it is -1
def cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=1) -> Tensor
  when float input1
  p = aten::mul.Tensor(self=input1, other=input2) : bcast input1 input2
  ps = aten::sum.dim_IntList(self=p, dim=[-1], keepdim=False, dtype=None) : reduce p -1 False
  q1 = aten::mul.Tensor(self=input1, other=input1) : like input1
  s1 = aten::sum.dim_IntList(self=q1, dim=[-1], keepdim=False, dtype=None) : reduce input1 -1 False
  m1 = aten::add.Tensor(self=s1, other=1e-12) : like s1
  q2 = aten::mul.Tensor(self=input2, other=input2) : like input2
  s2 = aten::sum.dim_IntList(self=q2, dim=[-1], keepdim=False, dtype=None) : reduce input2 -1 False
  m2 = aten::add.Tensor(self=s2, other=1e-12) : like s2
  mm = aten::mul.Tensor(self=m1, other=m2) : bcast m1 m2
  d = aten::sqrt.default(self=mm) : like mm
  c = aten::div.Tensor(self=ps, other=d) : like ps
  pos = aten::rsub.Scalar(self=c, other=1) : like ps
  cm = aten::sub.Tensor(self=c, other=margin) : like ps
  neg = aten::clamp_min.default(self=cm, min=0) : like ps
  t1 = aten::eq.Scalar(self=target, other=1) : like target as bool
  o1 = aten::where.self(condition=t1, self=pos, other=0.0) : bcast ps target
  t2 = aten::eq.Scalar(self=target, other=-1) : like target as bool
  o2 = aten::where.self(condition=t2, self=neg, other=0.0) : bcast ps target
  o = aten::add.Tensor(self=o1, other=o2) : like o1
  r = kiln::loss_reduction(self=o, reduction=reduction)
  return r
)";

} // namespace kiln::decomp
