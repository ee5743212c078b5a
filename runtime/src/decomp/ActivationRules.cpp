// kiln runtime — composite rules: activation functions.
#include "Rules.h"

namespace kiln::decomp {

const char *const kActivationRules = R"(
# log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))   (ATen's log_sigmoid_forward)
def log_sigmoid(Tensor self) -> Tensor
  when float self
  m = aten::clamp.default(self=self, min=None, max=0.0) : like self
  a = aten::abs.default(self=self) : like self
  n = aten::neg.default(self=a) : like self
  e = aten::exp.default(self=n) : like self
  l = aten::log1p.default(self=e) : like self
  r = aten::sub.Tensor(self=m, other=l)
  return r

# glu(x, dim) = a * sigmoid(b) with a, b the two halves of x along dim
def glu(Tensor self, int dim=-1) -> Tensor
  when float self
  n = aten::sym_size.int(self=self, dim=dim) : index
  h = _operator.floordiv(a=n, b=2) : index
  a = aten::slice.Tensor(self=self, dim=dim, start=0, end=h, step=1) : halve self dim
  b = aten::slice.Tensor(self=self, dim=dim, start=h, end=n, step=1) : halve self dim
  s = aten::sigmoid.default(self=b) : like a
  r = aten::mul.Tensor(self=a, other=s)
  return r

# prelu: x where x > 0, else weight * x, the weight on dim 1 (its channel dim)
def prelu(Tensor self, Tensor weight) -> Tensor
  when rank weight == 0
  p = aten::gt.Scalar(self=self, other=0) : like self as bool
  m = aten::mul.Tensor(self=weight, other=self) : like self
  r = aten::where.self(condition=p, self=self, other=m)
  return r
def prelu(Tensor self, Tensor weight) -> Tensor
  when rank self == 1
  p = aten::gt.Scalar(self=self, other=0) : like self as bool
  m = aten::mul.Tensor(self=weight, other=self) : bcast self weight
  r = aten::where.self(condition=p, self=self, other=m)
  return r
def prelu(Tensor self, Tensor weight) -> Tensor
  when rank self == 2
  p = aten::gt.Scalar(self=self, other=0) : like self as bool
  m = aten::mul.Tensor(self=weight, other=self) : bcast self weight
  r = aten::where.self(condition=p, self=self, other=m)
  return r
def prelu(Tensor self, Tensor weight) -> Tensor
  when rank self == 3
  w = aten::view.default(self=weight, size=[-1, 1]) : dims weight [@0, 1]
  p = aten::gt.Scalar(self=self, other=0) : like self as bool
  m = aten::mul.Tensor(self=w, other=self) : like self
  r = aten::where.self(condition=p, self=self, other=m)
  return r
def prelu(Tensor self, Tensor weight) -> Tensor
  when rank self == 4
  w = aten::view.default(self=weight, size=[-1, 1, 1]) : dims weight [@0, 1, 1]
  p = aten::gt.Scalar(self=self, other=0) : like self as bool
  m = aten::mul.Tensor(self=w, other=self) : like self
  r = aten::where.self(condition=p, self=self, other=m)
  return r
def prelu(Tensor self, Tensor weight) -> Tensor
  when rank self == 5
  w = aten::view.default(self=weight, size=[-1, 1, 1, 1]) : dims weight [@0, 1, 1, 1]
  p = aten::gt.Scalar(self=self, other=0) : like self as bool
  m = aten::mul.Tensor(self=w, other=self) : like self
  r = aten::where.self(condition=p, self=self, other=m)
  return r

# softmax / log_softmax in the default IR: the Core ATen forms
def softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
  when dtype is None
  r = aten::_softmax.default(self=self, dim=dim, half_to_float=False)
  return r
def softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
  c = aten::_to_copy.default(self=self, dtype=dtype) : like self as dtype
  r = aten::_softmax.default(self=c, dim=dim, half_to_float=False)
  return r
def log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
  when dtype is None
  r = aten::_log_softmax.default(self=self, dim=dim, half_to_float=False)
  return r
def log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
  c = aten::_to_copy.default(self=self, dtype=dtype) : like self as dtype
  r = aten::_log_softmax.default(self=c, dim=dim, half_to_float=False)
  return r
# _safe_softmax: softmax, with 0 for rows that are all -inf (those rows are zeroed before the
# softmax too, so its backward reads no NaN there and their gradient is 0, as ATen's)
def _safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
  when dtype is None
  f = aten::isinf.default(self=self) : like self as bool
  n = aten::lt.Scalar(self=self, other=0) : like self as bool
  i = aten::logical_and.default(self=f, other=n) : like self as bool
  a = aten::all.dim(self=i, dim=dim, keepdim=True) : reduce self dim True as bool
  x = aten::where.self(condition=a, self=0.0, other=self) : like self
  s = aten::_softmax.default(self=x, dim=dim, half_to_float=False) : like self
  r = aten::where.self(condition=a, self=0.0, other=s)
  return r

# Backward of _softmax: y * (g - sum(g * y, dim))
def _softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor
  m = aten::mul.Tensor(self=grad_output, other=output) : like output
  s = aten::sum.dim_IntList(self=m, dim=[dim], keepdim=True, dtype=None) : reduce output dim True
  d = aten::sub.Tensor(self=grad_output, other=s) : like output
  r = aten::mul.Tensor(self=output, other=d)
  return r
def native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor
  m = aten::_to_copy.default(self=mask, dtype=dtype(grad_output)) : like mask as grad_output
  p = aten::mul.Tensor(self=grad_output, other=m) : like grad_output
  r = aten::mul.Tensor(self=p, other=scale)
  return r
)";

} // namespace kiln::decomp
