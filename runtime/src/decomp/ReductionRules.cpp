// kiln runtime — composite rules: reductions, statistics and distances.
#include "Rules.h"

namespace kiln::decomp {

const char *const kReductionRules = R"(
# var_mean / std_mean: the two statistics, each its Core ATen op
def var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)
  v = aten::var.correction(self=self, dim=dim, correction=correction, keepdim=keepdim)
  m = aten::mean.dim(self=self, dim=dim, keepdim=keepdim, dtype=None)
  return v, m
def var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
  when unbiased == True
  v = aten::var.correction(self=self, dim=dim, correction=1, keepdim=keepdim)
  m = aten::mean.dim(self=self, dim=dim, keepdim=keepdim, dtype=None)
  return v, m
def var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
  v = aten::var.correction(self=self, dim=dim, correction=0, keepdim=keepdim)
  m = aten::mean.dim(self=self, dim=dim, keepdim=keepdim, dtype=None)
  return v, m
def var_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
  when unbiased == True
  v = aten::var.correction(self=self, dim=None, correction=1, keepdim=False)
  m = aten::mean.default(self=self, dtype=None)
  return v, m
def var_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
  v = aten::var.correction(self=self, dim=None, correction=0, keepdim=False)
  m = aten::mean.default(self=self, dtype=None)
  return v, m
def std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)
  v = aten::var.correction(self=self, dim=dim, correction=correction, keepdim=keepdim) : reduce self dim keepdim
  s = aten::sqrt.default(self=v)
  m = aten::mean.dim(self=self, dim=dim, keepdim=keepdim, dtype=None)
  return s, m
def std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
  when unbiased == True
  v = aten::var.correction(self=self, dim=dim, correction=1, keepdim=keepdim) : reduce self dim keepdim
  s = aten::sqrt.default(self=v)
  m = aten::mean.dim(self=self, dim=dim, keepdim=keepdim, dtype=None)
  return s, m
def std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
  v = aten::var.correction(self=self, dim=dim, correction=0, keepdim=keepdim) : reduce self dim keepdim
  s = aten::sqrt.default(self=v)
  m = aten::mean.dim(self=self, dim=dim, keepdim=keepdim, dtype=None)
  return s, m
def std_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
  when unbiased == True
  v = aten::var.correction(self=self, dim=None, correction=1, keepdim=False) : reduce self None False
  s = aten::sqrt.default(self=v)
  m = aten::mean.default(self=self, dtype=None)
  return s, m
def std_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
  v = aten::var.correction(self=self, dim=None, correction=0, keepdim=False) : reduce self None False
  s = aten::sqrt.default(self=v)
  m = aten::mean.default(self=self, dtype=None)
  return s, m

# aminmax: (amin, amax) over one dim or all of them
def aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)
  when dim is None
  a = aten::amin.default(self=self, dim=[], keepdim=keepdim)
  b = aten::amax.default(self=self, dim=[], keepdim=keepdim)
  return a, b
def aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)
  a = aten::amin.default(self=self, dim=[dim], keepdim=keepdim)
  b = aten::amax.default(self=self, dim=[dim], keepdim=keepdim)
  return a, b

# pairwise_distance = ||x1 - x2 + eps||_p over the last dim
def pairwise_distance(Tensor x1, Tensor x2, float p=2., float eps=1e-06, bool keepdim=False) -> Tensor
  when float x1
  d = aten::sub.Tensor(self=x1, other=x2) : bcast x1 x2
  e = aten::add.Tensor(self=d, other=eps) : like d
  r = aten::linalg_vector_norm.default(self=e, ord=p, dim=[-1], keepdim=keepdim, dtype=None)
  return r
# cosine_similarity = sum((x1 / max(||x1||, eps)) * (x2 / max(||x2||, eps)), dim)
def cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor
  when float x1
  n1 = aten::linalg_vector_norm.default(self=x1, ord=2, dim=[dim], keepdim=True, dtype=None) : reduce x1 dim True
  c1 = aten::clamp_min.default(self=n1, min=eps) : like n1
  n2 = aten::linalg_vector_norm.default(self=x2, ord=2, dim=[dim], keepdim=True, dtype=None) : reduce x2 dim True
  c2 = aten::clamp_min.default(self=n2, min=eps) : like n2
  a = aten::div.Tensor(self=x1, other=c1) : like x1
  b = aten::div.Tensor(self=x2, other=c2) : like x2
  m = aten::mul.Tensor(self=a, other=b) : bcast a b
  r = aten::sum.dim_IntList(self=m, dim=[dim], keepdim=False, dtype=None)
  return r
# triplet_margin_loss = max(d(a, p) - d(a, n) + margin, 0), d the pairwise distance
def triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1., float p=2., float eps=1e-06, bool swap=False, int reduction=1) -> Tensor
  when float anchor
  when swap == False
  dp = aten::pairwise_distance.default(x1=anchor, x2=positive, p=p, eps=eps, keepdim=False) : reduce anchor -1 False
  dn = aten::pairwise_distance.default(x1=anchor, x2=negative, p=p, eps=eps, keepdim=False) : reduce anchor -1 False
  d = aten::sub.Tensor(self=dp, other=dn) : like dp
  a = aten::add.Tensor(self=d, other=margin) : like dp
  c = aten::clamp_min.default(self=a, min=0) : like dp
  r = kiln::loss_reduction(self=c, reduction=reduction)
  return r
def triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1., float p=2., float eps=1e-06, bool swap=False, int reduction=1) -> Tensor
  when float anchor
  dp = aten::pairwise_distance.default(x1=anchor, x2=positive, p=p, eps=eps, keepdim=False) : reduce anchor -1 False
  dn = aten::pairwise_distance.default(x1=anchor, x2=negative, p=p, eps=eps, keepdim=False) : reduce anchor -1 False
  ds = aten::pairwise_distance.default(x1=positive, x2=negative, p=p, eps=eps, keepdim=False) : reduce anchor -1 False
  mn = aten::minimum.default(self=dn, other=ds) : like dn
  d = aten::sub.Tensor(self=dp, other=mn) : like dp
  a = aten::add.Tensor(self=d, other=margin) : like dp
  c = aten::clamp_min.default(self=a, min=0) : like dp
  r = kiln::loss_reduction(self=c, reduction=reduction)
  return r

# std / var overloads: var.correction (and its square root)
def var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
  when unbiased == True
  r = aten::var.correction(self=self, dim=dim, correction=1, keepdim=keepdim)
  return r
def var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
  r = aten::var.correction(self=self, dim=dim, correction=0, keepdim=keepdim)
  return r
def var(Tensor self, bool unbiased=True) -> Tensor
  when unbiased == True
  r = aten::var.correction(self=self, dim=None, correction=1, keepdim=False)
  return r
def var(Tensor self, bool unbiased=True) -> Tensor
  r = aten::var.correction(self=self, dim=None, correction=0, keepdim=False)
  return r
def std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
  v = aten::var.correction(self=self, dim=dim, correction=correction, keepdim=keepdim) : reduce self dim keepdim
  r = aten::sqrt.default(self=v)
  return r
def std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
  when unbiased == True
  v = aten::var.correction(self=self, dim=dim, correction=1, keepdim=keepdim) : reduce self dim keepdim
  r = aten::sqrt.default(self=v)
  return r
def std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
  v = aten::var.correction(self=self, dim=dim, correction=0, keepdim=keepdim) : reduce self dim keepdim
  r = aten::sqrt.default(self=v)
  return r
def std(Tensor self, bool unbiased=True) -> Tensor
  when unbiased == True
  v = aten::var.correction(self=self, dim=None, correction=1, keepdim=False) : reduce self None False
  r = aten::sqrt.default(self=v)
  return r
def std(Tensor self, bool unbiased=True) -> Tensor
  v = aten::var.correction(self=self, dim=None, correction=0, keepdim=False) : reduce self None False
  r = aten::sqrt.default(self=v)
  return r

# nansum / nanmean: NaNs count as 0 (and, for the mean, not at all)
def nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  when float self
  when dtype is None
  n = aten::isnan.default(self=self) : like self as bool
  z = aten::where.self(condition=n, self=0.0, other=self) : like self
  r = aten::sum.dim_IntList(self=z, dim=dim, keepdim=keepdim, dtype=None)
  return r
# max() / min() of every element: amax / amin over all dims (NaN propagates)
def max(Tensor self) -> Tensor
  r = aten::amax.default(self=self, dim=[], keepdim=False)
  return r
def min(Tensor self) -> Tensor
  r = aten::amin.default(self=self, dim=[], keepdim=False)
  return r
# _is_all_true / _is_any_true: all() / any() of every element as a 0-d bool
# (torch.distributions' argument checks, Tensor.all() inside torch._check)
def _is_all_true(Tensor self) -> Tensor
  r = aten::all.default(self=self)
  return r
def _is_any_true(Tensor self) -> Tensor
  r = aten::any.default(self=self)
  return r
# integers have no NaN: nansum is sum
def nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  when int self
  when dtype is None
  r = aten::sum.dim_IntList(self=self, dim=dim, keepdim=keepdim, dtype=None)
  return r
def nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  when float self
  when dtype is None
  n = aten::isnan.default(self=self) : like self as bool
  z = aten::where.self(condition=n, self=0.0, other=self) : like self
  s = aten::sum.dim_IntList(self=z, dim=dim, keepdim=keepdim, dtype=None) : reduce self dim keepdim
  k = aten::logical_not.default(self=n) : like self as bool
  c = aten::sum.dim_IntList(self=k, dim=dim, keepdim=keepdim, dtype=dtype(self)) : reduce self dim keepdim
  r = aten::div.Tensor(self=s, other=c)
  return r

# dist = ||x - y||_p
def dist(Tensor self, Tensor other, Scalar p=2) -> Tensor
  when float self
  d = aten::sub.Tensor(self=self, other=other) : bcast self other
  r = aten::linalg_vector_norm.default(self=d, ord=p, dim=None, keepdim=False, dtype=None)
  return r
def linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor
  when float x
  m = aten::mul.Tensor(self=x, other=y) : bcast x y
  r = aten::sum.dim_IntList(self=m, dim=[dim], keepdim=False, dtype=None)
  return r

# logcumsumexp = m + log(cumsum(exp(x - m))), m the max along dim (0 where infinite)
def logcumsumexp(Tensor self, int dim) -> Tensor
  when float self
  m = aten::amax.default(self=self, dim=[dim], keepdim=True) : reduce self dim True
  f = aten::isinf.default(self=m) : like m as bool
  z = aten::where.self(condition=f, self=0.0, other=m) : like m
  d = aten::sub.Tensor(self=self, other=z) : like self
  e = aten::exp.default(self=d) : like self
  c = aten::cumsum.default(self=e, dim=dim, dtype=None) : like self
  l = aten::log.default(self=c) : like self
  r = aten::add.Tensor(self=l, other=z)
  return r
def trace(Tensor self) -> Tensor
  when rank self == 2
  d = aten::diagonal.default(self=self, offset=0, dim1=0, dim2=1) : dims self [@0|@1]
  r = aten::sum.default(self=d, dtype=None)
  return r
def argwhere(Tensor self) -> Tensor
  r = aten::nonzero.default(self=self)
  return r

# linalg.norm: without ord, the 2-norm of the values over dim (Frobenius for two
# dims); of a vector, its ord-norm
def linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  when ord is None
  r = aten::linalg_vector_norm.default(self=self, ord=2, dim=dim, keepdim=keepdim, dtype=dtype)
  return r
def linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  when rank self == 1
  r = aten::linalg_vector_norm.default(self=self, ord=ord, dim=dim, keepdim=keepdim, dtype=dtype)
  return r
def linalg_matrix_norm.str_ord(Tensor self, str ord='fro', int[] dim=[-2, -1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  when ord == 'fro'
  r = aten::linalg_vector_norm.default(self=self, ord=2, dim=dim, keepdim=keepdim, dtype=dtype)
  return r
# sum_to_size for the shapes it reduces whole: to a scalar, or a vector to [1]
def sum_to_size(Tensor self, SymInt[] size) -> Tensor
  when len size == 0
  r = aten::sum.default(self=self, dtype=None)
  return r
def sum_to_size(Tensor self, SymInt[] size) -> Tensor
  when rank self == 1
  when size == [1]
  r = aten::sum.dim_IntList(self=self, dim=[0], keepdim=True, dtype=None)
  return r
)";

} // namespace kiln::decomp
