// kiln runtime — composite rules: elementwise math (torch/_refs semantics).
#include "Rules.h"

namespace kiln::decomp {

const char *const kElementwiseRules = R"(
# Identities on real tensors: the value itself.
def positive(Tensor(a) self) -> Tensor(a)
  return self
def resolve_neg(Tensor(a) self) -> Tensor(a)
  return self
def resolve_conj(Tensor(a) self) -> Tensor(a)
  return self
def conj_physical(Tensor self) -> Tensor
  return self

def deg2rad(Tensor self) -> Tensor
  when float self
  r = aten::mul.Tensor(self=self, other=0.017453292519943295)
  return r
def rad2deg(Tensor self) -> Tensor
  when float self
  r = aten::mul.Tensor(self=self, other=57.29577951308232)
  return r

# logaddexp(a, b) = max + log1p(exp(min - max)); a where both are the same infinity
def logaddexp(Tensor self, Tensor other) -> Tensor
  when float self
  ge = aten::ge.Tensor(self=self, other=other) : bcast self other as bool
  mx = aten::where.self(condition=ge, self=self, other=other) : bcast self other
  mn = aten::where.self(condition=ge, self=other, other=self) : bcast self other
  d = aten::sub.Tensor(self=mn, other=mx) : like mx
  e = aten::exp.default(self=d) : like mx
  l = aten::log1p.default(self=e) : like mx
  s = aten::add.Tensor(self=mx, other=l) : like mx
  fin = aten::isinf.default(self=self) : like self as bool
  same = aten::eq.Tensor(self=self, other=other) : bcast self other as bool
  inf = aten::logical_and.default(self=fin, other=same) : bcast self other as bool
  r = aten::where.self(condition=inf, self=self, other=s)
  return r
# logaddexp2(a, b) = max + log2(1 + 2^(min - max))
def logaddexp2(Tensor self, Tensor other) -> Tensor
  when float self
  ge = aten::ge.Tensor(self=self, other=other) : bcast self other as bool
  mx = aten::where.self(condition=ge, self=self, other=other) : bcast self other
  mn = aten::where.self(condition=ge, self=other, other=self) : bcast self other
  d = aten::sub.Tensor(self=mn, other=mx) : like mx
  e = aten::exp2.default(self=d) : like mx
  l = aten::log1p.default(self=e) : like mx
  k = aten::mul.Tensor(self=l, other=1.4426950408889634) : like mx
  s = aten::add.Tensor(self=mx, other=k) : like mx
  fin = aten::isinf.default(self=self) : like self as bool
  same = aten::eq.Tensor(self=self, other=other) : bcast self other as bool
  inf = aten::logical_and.default(self=fin, other=same) : bcast self other as bool
  r = aten::where.self(condition=inf, self=self, other=s)
  return r

# heaviside(x, v) = 0 where x < 0, v where x == 0, 1 where x > 0
def heaviside(Tensor self, Tensor values) -> Tensor
  z = aten::eq.Scalar(self=self, other=0) : like self as bool
  p = aten::gt.Scalar(self=self, other=0) : like self as bool
  c = aten::_to_copy.default(self=p, dtype=dtype(self)) : like self
  r = aten::where.self(condition=z, self=values, other=c)
  return r

# ldexp(x, e) = x * 2^e
def ldexp.Tensor(Tensor self, Tensor other) -> Tensor
  when float self
  c = aten::_to_copy.default(self=other, dtype=dtype(self)) : like other as self
  p = aten::exp2.default(self=c) : like c
  r = aten::mul.Tensor(self=self, other=p)
  return r

# isclose: a == b, or |a - b| <= atol + rtol * |b| where that is finite
def isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor
  when float self
  when equal_nan == False
  eq = aten::eq.Tensor(self=self, other=other) : bcast self other as bool
  d = aten::sub.Tensor(self=self, other=other) : bcast self other
  ad = aten::abs.default(self=d) : like d
  ao = aten::abs.default(self=other) : like other
  t = aten::mul.Tensor(self=ao, other=rtol) : like other
  al = aten::add.Tensor(self=t, other=atol) : like other
  le = aten::le.Tensor(self=ad, other=al) : like d as bool
  fi = aten::isfinite.default(self=ad) : like d as bool
  ok = aten::logical_and.default(self=le, other=fi) : like d as bool
  r = aten::logical_or.default(self=eq, other=ok)
  return r
# isclose of integers (ATen): a == b, or |a - b| <= atol + |rtol * b|, the difference taken in
# the integer dtype and compared in float32 (integers have no NaN or infinity)
def isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor
  when numeric self
  when int self
  eq = aten::eq.Tensor(self=self, other=other) : bcast self other as bool
  d = aten::sub.Tensor(self=self, other=other) : bcast self other
  ad = aten::abs.default(self=d) : like d
  af = aten::_to_copy.default(self=ad, dtype=#float32) : like d as float32
  of = aten::_to_copy.default(self=other, dtype=#float32) : like other as float32
  t = aten::mul.Tensor(self=of, other=rtol) : like of
  at = aten::abs.default(self=t) : like of
  al = aten::add.Tensor(self=at, other=atol) : like of
  le = aten::le.Tensor(self=af, other=al) : like d as bool
  r = aten::logical_or.default(self=eq, other=le)
  return r
# isclose with equal_nan: the rule above, or NaN on both sides
def isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor
  when float self
  when equal_nan == True
  c = aten::isclose.default(self=self, other=other, rtol=rtol, atol=atol, equal_nan=False) : bcast self other as bool
  n1 = aten::isnan.default(self=self) : like self as bool
  n2 = aten::isnan.default(self=other) : like other as bool
  nn = aten::logical_and.default(self=n1, other=n2) : bcast self other as bool
  r = aten::logical_or.default(self=c, other=nn)
  return r

# xlogy(x, y) = 0 where x == 0, else x log(y); NaN where y is NaN
def xlogy.Tensor(Tensor self, Tensor other) -> Tensor
  when float self
  z = aten::eq.Scalar(self=self, other=0) : like self as bool
  l = aten::log.default(self=other) : like other
  m = aten::mul.Tensor(self=self, other=l) : bcast self other
  w = aten::where.self(condition=z, self=0.0, other=m) : like m
  n = aten::isnan.default(self=other) : like other as bool
  r = aten::where.self(condition=n, self=other, other=w)
  return r
# sinc(x) = sin(pi x) / (pi x), 1 at 0
def sinc(Tensor self) -> Tensor
  when float self
  p = aten::mul.Tensor(self=self, other=3.141592653589793) : like self
  s = aten::sin.default(self=p) : like self
  d = aten::div.Tensor(self=s, other=p) : like self
  z = aten::eq.Scalar(self=self, other=0) : like self as bool
  r = aten::where.self(condition=z, self=1.0, other=d)
  return r
# float_power computes in float64
def float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
  a = aten::_to_copy.default(self=self, dtype=#float64) : like self as float64
  b = aten::_to_copy.default(self=exponent, dtype=#float64) : like exponent as float64
  r = aten::pow.Tensor_Tensor(self=a, exponent=b)
  return r
def float_power.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
  a = aten::_to_copy.default(self=self, dtype=#float64) : like self as float64
  r = aten::pow.Tensor_Scalar(self=a, exponent=exponent)
  return r
# Real tensors: real is the value, isreal is all true.
def real(Tensor(a) self) -> Tensor(a)
  return self
def isreal(Tensor self) -> Tensor
  r = aten::ones_like.default(self=self, dtype=#bool)
  return r

# angle of a real number: pi where negative, 0 elsewhere, NaN kept
def angle(Tensor self) -> Tensor
  when float self
  n = aten::lt.Scalar(self=self, other=0) : like self as bool
  c = aten::_to_copy.default(self=n, dtype=dtype(self)) : like self
  a = aten::mul.Tensor(self=c, other=3.141592653589793) : like self
  i = aten::isnan.default(self=self) : like self as bool
  r = aten::where.self(condition=i, self=self, other=a)
  return r
def special_xlog1py(Tensor self, Tensor other) -> Tensor
  when float self
  z = aten::eq.Scalar(self=self, other=0) : like self as bool
  l = aten::log1p.default(self=other) : like other
  m = aten::mul.Tensor(self=self, other=l) : bcast self other
  w = aten::where.self(condition=z, self=0.0, other=m) : like m
  n = aten::isnan.default(self=other) : like other as bool
  r = aten::where.self(condition=n, self=other, other=w)
  return r
# ndtr(x) = (1 + erf(x / sqrt 2)) / 2
def special_ndtr(Tensor self) -> Tensor
  when float self
  s = aten::mul.Tensor(self=self, other=0.7071067811865476) : like self
  e = aten::erf.default(self=s) : like self
  a = aten::add.Tensor(self=e, other=1) : like self
  r = aten::mul.Tensor(self=a, other=0.5)
  return r
# bucketize is searchsorted with the arguments swapped
def bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor
  r = aten::searchsorted.Tensor(sorted_sequence=boundaries, self=self, out_int32=out_int32, right=right, side=None, sorter=None)
  return r

# isin of vectors: any(elements[:, None] == test_elements[None, :], 1)
def isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor
  when rank elements == 1
  when rank test_elements == 1
  when invert == False
  e = aten::unsqueeze.default(self=elements, dim=1) : dims elements [@0, 1]
  q = aten::eq.Tensor(self=e, other=test_elements) : dims elements [@0, test_elements@0] as bool
  r = aten::any.dim(self=q, dim=1, keepdim=False)
  return r

# one_hot with a class count given (torch/_decomp: self[..., None] == arange(num_classes),
# as int64); with num_classes=-1 the count is data-dependent and no rule applies.
def one_hot(Tensor self, int num_classes=-1) -> Tensor
  when rank self == 0
  when num_classes != -1
  c = aten::arange.start(start=0, end=num_classes, dtype=#int64, layout=None, device=None, pin_memory=None) : dims self [num_classes] as int64
  u = aten::unsqueeze.default(self=self, dim=-1) : dims self [1]
  q = aten::eq.Tensor(self=u, other=c) : dims self [num_classes] as bool
  r = aten::_to_copy.default(self=q, dtype=#int64)
  return r
def one_hot(Tensor self, int num_classes=-1) -> Tensor
  when rank self == 1
  when num_classes != -1
  c = aten::arange.start(start=0, end=num_classes, dtype=#int64, layout=None, device=None, pin_memory=None) : dims self [num_classes] as int64
  u = aten::unsqueeze.default(self=self, dim=-1) : dims self [@0, 1]
  q = aten::eq.Tensor(self=u, other=c) : dims self [@0, num_classes] as bool
  r = aten::_to_copy.default(self=q, dtype=#int64)
  return r
def one_hot(Tensor self, int num_classes=-1) -> Tensor
  when rank self == 2
  when num_classes != -1
  c = aten::arange.start(start=0, end=num_classes, dtype=#int64, layout=None, device=None, pin_memory=None) : dims self [num_classes] as int64
  u = aten::unsqueeze.default(self=self, dim=-1) : dims self [@0, @1, 1]
  q = aten::eq.Tensor(self=u, other=c) : dims self [@0, @1, num_classes] as bool
  r = aten::_to_copy.default(self=q, dtype=#int64)
  return r
def one_hot(Tensor self, int num_classes=-1) -> Tensor
  when rank self == 3
  when num_classes != -1
  c = aten::arange.start(start=0, end=num_classes, dtype=#int64, layout=None, device=None, pin_memory=None) : dims self [num_classes] as int64
  u = aten::unsqueeze.default(self=self, dim=-1) : dims self [@0, @1, @2, 1]
  q = aten::eq.Tensor(self=u, other=c) : dims self [@0, @1, @2, num_classes] as bool
  r = aten::_to_copy.default(self=q, dtype=#int64)
  return r
def one_hot(Tensor self, int num_classes=-1) -> Tensor
  when rank self == 4
  when num_classes != -1
  c = aten::arange.start(start=0, end=num_classes, dtype=#int64, layout=None, device=None, pin_memory=None) : dims self [num_classes] as int64
  u = aten::unsqueeze.default(self=self, dim=-1) : dims self [@0, @1, @2, @3, 1]
  q = aten::eq.Tensor(self=u, other=c) : dims self [@0, @1, @2, @3, num_classes] as bool
  r = aten::_to_copy.default(self=q, dtype=#int64)
  return r
)";

} // namespace kiln::decomp
