// kiln runtime — composite rules: special functions and ranges built from elementwise ops (entr, linspace and logspace).
#include "Rules.h"

namespace kiln::decomp {

const char *const kSpecialRules = R"(
# entr(x) = -x log x for x > 0, 0 at 0, -inf below 0, NaN stays NaN (torch/_refs); the
# -inf is log(0) of a constant, so no gradient flows through it
def special_entr(Tensor self) -> Tensor
  when float self
  ninf = aten::log.default(self=0.0) : dims self []
  e = aten::eq.Scalar(self=self, other=0) : like self as bool
  a = aten::where.self(condition=e, self=0.0, other=ninf) : like self
  lg = aten::log.default(self=self) : like self
  n = aten::neg.default(self=self) : like self
  m = aten::mul.Tensor(self=n, other=lg) : like self
  p = aten::gt.Scalar(self=self, other=0) : like self as bool
  b = aten::where.self(condition=p, self=m, other=a) : like self
  q = aten::isnan.default(self=self) : like self as bool
  r = aten::where.self(condition=q, self=self, other=b)
  return r

# logspace: base ** linspace(start, end, steps), computed in float64 and
# rounded once to the result dtype (float32 by default)
def logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  when dtype is None
  l = aten::linspace.default(start=start, end=end, steps=steps, dtype=#float64, layout=None, device=None, pin_memory=None) : dims out0 [@0] as float64
  p = aten::pow.Scalar(self=base, exponent=l) : like l
  r = aten::_to_copy.default(self=p, dtype=#float32)
  return r
def logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  l = aten::linspace.default(start=start, end=end, steps=steps, dtype=#float64, layout=None, device=None, pin_memory=None) : dims out0 [@0] as float64
  p = aten::pow.Scalar(self=base, exponent=l) : like l
  r = aten::_to_copy.default(self=p, dtype=dtype)
  return r

# linspace with 0-d tensor ends, as ATen's kernel computes it (the ends in the result dtype, then
# float64, rounded once to the result dtype): start + step i over the first half, end - step (steps - 1 - i) over the second,
# step = (end - start) / (steps - 1); one step is [start], none is empty
def linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  when steps == 0
  r = aten::arange.start(start=0, end=0, dtype=dtype(out0), layout=None, device=None, pin_memory=None)
  return r
def linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  when steps == 1
  r = aten::reshape.default(self=start, shape=[1]) : dims out0 [1] as start
  c = aten::_to_copy.default(self=r, dtype=dtype(out0))
  return c
def linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  s0 = aten::_to_copy.default(self=start, dtype=dtype(out0)) : like start as out0
  e0 = aten::_to_copy.default(self=end, dtype=dtype(out0)) : like end as out0
  s = aten::_to_copy.default(self=s0, dtype=#float64) : like start as float64
  e = aten::_to_copy.default(self=e0, dtype=#float64) : like end as float64
  i = aten::arange.start(start=0, end=steps, dtype=#float64, layout=None, device=None, pin_memory=None) : dims out0 [@0] as float64
  n = aten::select.int(self=i, dim=0, index=-1) : dims s []
  d = aten::sub.Tensor(self=e, other=s) : like s
  st = aten::div.Tensor(self=d, other=n) : like s
  a0 = aten::mul.Tensor(self=i, other=st) : like i
  a = aten::add.Tensor(self=a0, other=s) : like i
  j = aten::flip.default(self=i, dims=[0]) : like i
  b0 = aten::mul.Tensor(self=j, other=st) : like i
  b = aten::sub.Tensor(self=e, other=b0) : like i
  h = aten::mul.Tensor(self=i, other=2) : like i
  c = aten::lt.Scalar(self=h, other=steps) : like i as bool
  w = aten::where.self(condition=c, self=a, other=b) : like i
  r = aten::_to_copy.default(self=w, dtype=dtype(out0))
  return r
def linspace.Tensor_Scalar(Tensor start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  e = aten::scalar_tensor.default(s=end, dtype=#float64, layout=None, device=None, pin_memory=None) : dims start [] as float64
  r = aten::linspace.Tensor_Tensor(start=start, end=e, steps=steps, dtype=dtype(out0), layout=None, device=None, pin_memory=None)
  return r
def linspace.Scalar_Tensor(Scalar start, Tensor end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  s = aten::scalar_tensor.default(s=start, dtype=#float64, layout=None, device=None, pin_memory=None) : dims end [] as float64
  r = aten::linspace.Tensor_Tensor(start=s, end=end, steps=steps, dtype=dtype(out0), layout=None, device=None, pin_memory=None)
  return r
# logspace with tensor ends: base ** linspace, in float64, rounded once
def logspace.Tensor_Tensor(Tensor start, Tensor end, int steps, float base=10.0, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  l = aten::linspace.Tensor_Tensor(start=start, end=end, steps=steps, dtype=#float64, layout=None, device=None, pin_memory=None) : dims out0 [@0] as float64
  p = aten::pow.Scalar(self=base, exponent=l) : like l
  r = aten::_to_copy.default(self=p, dtype=dtype(out0))
  return r
def logspace.Tensor_Scalar(Tensor start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  e = aten::scalar_tensor.default(s=end, dtype=#float64, layout=None, device=None, pin_memory=None) : dims start [] as float64
  r = aten::logspace.Tensor_Tensor(start=start, end=e, steps=steps, base=base, dtype=dtype(out0), layout=None, device=None, pin_memory=None)
  return r
def logspace.Scalar_Tensor(Scalar start, Tensor end, int steps, float base=10.0, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  s = aten::scalar_tensor.default(s=start, dtype=#float64, layout=None, device=None, pin_memory=None) : dims end [] as float64
  r = aten::logspace.Tensor_Tensor(start=s, end=end, steps=steps, base=base, dtype=dtype(out0), layout=None, device=None, pin_memory=None)
  return r
)";

} // namespace kiln::decomp
