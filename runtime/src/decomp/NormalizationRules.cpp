// kiln runtime — composite rules: normalisation layers.
#include "Rules.h"

namespace kiln::decomp {

const char *const kNormalizationRules = R"(
# layer_norm: native_layer_norm's first result
def layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor
  y, m, s = aten::native_layer_norm.default(input=input, normalized_shape=normalized_shape, weight=weight, bias=bias, eps=eps) : like input ; trailing1 input normalized_shape ; trailing1 input normalized_shape
  return y

# _weight_norm(v, g, dim) = v * g / ||v||, the 2-norm over every dim but dim
# (over all of v for dim -1): the weight of nn.utils.weight_norm (and of its
# parametrization); sqrt(sum(v*v)) so the eager runtime runs it too
def _weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor
  when float v
  when dim == -1
  v2 = aten::mul.Tensor(self=v, other=v) : like v
  s = aten::sum.default(self=v2, dtype=None) : reduce v None False
  n = aten::sqrt.default(self=s) : like s
  q = aten::div.Tensor(self=g, other=n) : like g
  r = aten::mul.Tensor(self=v, other=q)
  return r
def _weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor
  when float v
  when rank v == 1
  when dim == 0
  n = aten::abs.default(self=v) : like v
  q = aten::div.Tensor(self=g, other=n) : bcast g n
  r = aten::mul.Tensor(self=v, other=q)
  return r
def _weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor
  when float v
  when rank v >= 2
  v2 = aten::mul.Tensor(self=v, other=v) : like v
  s = aten::sum.dim_IntList(self=v2, dim=others(v dim), keepdim=True, dtype=None) : reduce v others(v dim) True
  n = aten::sqrt.default(self=s) : like s
  q = aten::div.Tensor(self=g, other=n) : bcast g n
  r = aten::mul.Tensor(self=v, other=q)
  return r

# _batch_norm_with_update: batch norm over the batch with the running statistics updated in
# place (ATen's _native_batch_norm_legit in training) and an empty reserve (CPU); its functional
# form returns the new statistics instead
def _batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)
  o, m, v = aten::_native_batch_norm_legit.default(input=input, weight=weight, bias=bias, running_mean=running_mean, running_var=running_var, training=True, momentum=momentum, eps=eps) : like input ; like running_mean ; like running_mean
  e = aten::new_zeros.default(self=input, size=[0], dtype=#uint8, layout=None, device=None, pin_memory=None) : dims input [0] as uint8
  return o, m, v, e
def _batch_norm_with_update_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)
  o, m, v, rm, rv = aten::_native_batch_norm_legit_functional.default(input=input, weight=weight, bias=bias, running_mean=running_mean, running_var=running_var, training=True, momentum=momentum, eps=eps) : like input ; like running_mean ; like running_mean ; like running_mean ; like running_var
  e = aten::new_zeros.default(self=input, size=[0], dtype=#uint8, layout=None, device=None, pin_memory=None) : dims input [0] as uint8
  return o, m, v, e, rm, rv
)";

} // namespace kiln::decomp
