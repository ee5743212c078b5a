// kiln runtime — composite rules: special functions and ranges built from elementwise ops (entr, logspace).
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
)";

} // namespace kiln::decomp
