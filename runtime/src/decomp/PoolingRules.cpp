// kiln runtime — composite rules: 1-d pooling (max, average, adaptive average) as 2-d pooling over a
// unit height.
#include "Rules.h"

namespace kiln::decomp {

const char *const kPoolingRules = R"(
def max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> Tensor
  when rank self == 3
  when stride == []
  u = aten::unsqueeze.default(self=self, dim=2) : dims self [@0, @1, 1, @2]
  p = aten::max_pool2d.default(self=u, kernel_size=[1, kernel_size.0], stride=[], padding=[0, padding.0], dilation=[1, dilation.0], ceil_mode=ceil_mode) : dims self [@0, @1, 1, out0@2]
  r = aten::squeeze.dim(self=p, dim=2)
  return r
def max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> Tensor
  when rank self == 3
  u = aten::unsqueeze.default(self=self, dim=2) : dims self [@0, @1, 1, @2]
  p = aten::max_pool2d.default(self=u, kernel_size=[1, kernel_size.0], stride=[1, stride.0], padding=[0, padding.0], dilation=[1, dilation.0], ceil_mode=ceil_mode) : dims self [@0, @1, 1, out0@2]
  r = aten::squeeze.dim(self=p, dim=2)
  return r
def max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> Tensor
  when rank self == 2
  when stride == []
  u = aten::unsqueeze.default(self=self, dim=1) : dims self [@0, 1, @1]
  p = aten::max_pool2d.default(self=u, kernel_size=[1, kernel_size.0], stride=[], padding=[0, padding.0], dilation=[1, dilation.0], ceil_mode=ceil_mode) : dims self [@0, 1, out0@1]
  r = aten::squeeze.dim(self=p, dim=1)
  return r
def max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> Tensor
  when rank self == 2
  u = aten::unsqueeze.default(self=self, dim=1) : dims self [@0, 1, @1]
  p = aten::max_pool2d.default(self=u, kernel_size=[1, kernel_size.0], stride=[1, stride.0], padding=[0, padding.0], dilation=[1, dilation.0], ceil_mode=ceil_mode) : dims self [@0, 1, out0@1]
  r = aten::squeeze.dim(self=p, dim=1)
  return r
def max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> (Tensor, Tensor)
  when rank self == 3
  when stride == []
  u = aten::unsqueeze.default(self=self, dim=2) : dims self [@0, @1, 1, @2]
  p, i = aten::max_pool2d_with_indices.default(self=u, kernel_size=[1, kernel_size.0], stride=[], padding=[0, padding.0], dilation=[1, dilation.0], ceil_mode=ceil_mode) : dims self [@0, @1, 1, out0@2] ; dims self [@0, @1, 1, out0@2] as int64
  r = aten::squeeze.dim(self=p, dim=2)
  s = aten::squeeze.dim(self=i, dim=2)
  return r, s
def max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> (Tensor, Tensor)
  when rank self == 3
  u = aten::unsqueeze.default(self=self, dim=2) : dims self [@0, @1, 1, @2]
  p, i = aten::max_pool2d_with_indices.default(self=u, kernel_size=[1, kernel_size.0], stride=[1, stride.0], padding=[0, padding.0], dilation=[1, dilation.0], ceil_mode=ceil_mode) : dims self [@0, @1, 1, out0@2] ; dims self [@0, @1, 1, out0@2] as int64
  r = aten::squeeze.dim(self=p, dim=2)
  s = aten::squeeze.dim(self=i, dim=2)
  return r, s
def max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> (Tensor, Tensor)
  when rank self == 2
  when stride == []
  u = aten::unsqueeze.default(self=self, dim=1) : dims self [@0, 1, @1]
  p, i = aten::max_pool2d_with_indices.default(self=u, kernel_size=[1, kernel_size.0], stride=[], padding=[0, padding.0], dilation=[1, dilation.0], ceil_mode=ceil_mode) : dims self [@0, 1, out0@1] ; dims self [@0, 1, out0@1] as int64
  r = aten::squeeze.dim(self=p, dim=1)
  s = aten::squeeze.dim(self=i, dim=1)
  return r, s
def max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> (Tensor, Tensor)
  when rank self == 2
  u = aten::unsqueeze.default(self=self, dim=1) : dims self [@0, 1, @1]
  p, i = aten::max_pool2d_with_indices.default(self=u, kernel_size=[1, kernel_size.0], stride=[1, stride.0], padding=[0, padding.0], dilation=[1, dilation.0], ceil_mode=ceil_mode) : dims self [@0, 1, out0@1] ; dims self [@0, 1, out0@1] as int64
  r = aten::squeeze.dim(self=p, dim=1)
  s = aten::squeeze.dim(self=i, dim=1)
  return r, s
def avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], bool ceil_mode=False, bool count_include_pad=True) -> Tensor
  when rank self == 3
  when stride == []
  u = aten::unsqueeze.default(self=self, dim=2) : dims self [@0, @1, 1, @2]
  p = aten::avg_pool2d.default(self=u, kernel_size=[1, kernel_size.0], stride=[], padding=[0, padding.0], ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=None) : dims self [@0, @1, 1, out0@2]
  r = aten::squeeze.dim(self=p, dim=2)
  return r
def avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], bool ceil_mode=False, bool count_include_pad=True) -> Tensor
  when rank self == 3
  u = aten::unsqueeze.default(self=self, dim=2) : dims self [@0, @1, 1, @2]
  p = aten::avg_pool2d.default(self=u, kernel_size=[1, kernel_size.0], stride=[1, stride.0], padding=[0, padding.0], ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=None) : dims self [@0, @1, 1, out0@2]
  r = aten::squeeze.dim(self=p, dim=2)
  return r
def avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], bool ceil_mode=False, bool count_include_pad=True) -> Tensor
  when rank self == 2
  when stride == []
  u = aten::unsqueeze.default(self=self, dim=1) : dims self [@0, 1, @1]
  p = aten::avg_pool2d.default(self=u, kernel_size=[1, kernel_size.0], stride=[], padding=[0, padding.0], ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=None) : dims self [@0, 1, out0@1]
  r = aten::squeeze.dim(self=p, dim=1)
  return r
def avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], bool ceil_mode=False, bool count_include_pad=True) -> Tensor
  when rank self == 2
  u = aten::unsqueeze.default(self=self, dim=1) : dims self [@0, 1, @1]
  p = aten::avg_pool2d.default(self=u, kernel_size=[1, kernel_size.0], stride=[1, stride.0], padding=[0, padding.0], ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=None) : dims self [@0, 1, out0@1]
  r = aten::squeeze.dim(self=p, dim=1)
  return r
def adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor
  when rank self == 3
  u = aten::unsqueeze.default(self=self, dim=2) : dims self [@0, @1, 1, @2]
  p = aten::adaptive_avg_pool2d.default(self=u, output_size=[1, output_size.0]) : dims self [@0, @1, 1, out0@2]
  r = aten::squeeze.dim(self=p, dim=2)
  return r
def adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor
  when rank self == 2
  u = aten::unsqueeze.default(self=self, dim=1) : dims self [@0, 1, @1]
  p = aten::adaptive_avg_pool2d.default(self=u, output_size=[1, output_size.0]) : dims self [@0, 1, out0@1]
  r = aten::squeeze.dim(self=p, dim=1)
  return r

# max_unpool: scatter the values into a zero output at their flat indices
def max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor
  when rank self == 4
  n0 = aten::sym_size.int(self=self, dim=0) : index
  n1 = aten::sym_size.int(self=self, dim=1) : index
  hw = _operator.mul(a=output_size.0, b=output_size.1) : index
  f = aten::flatten.using_ints(self=self, start_dim=2, end_dim=-1) : dims self [@0, @1, @2*@3]
  i = aten::flatten.using_ints(self=indices, start_dim=2, end_dim=-1) : dims indices [@0, @1, @2*@3]
  z = aten::new_zeros.default(self=self, size=[n0, n1, hw], dtype=None, layout=None, device=None, pin_memory=None) : dims out0 [@0, @1, @2*@3]
  s = aten::scatter.src(self=z, dim=2, index=i, src=f) : like z
  r = aten::unflatten.int(self=s, dim=2, sizes=output_size)
  return r
def max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, SymInt[3] stride, SymInt[3] padding) -> Tensor
  when rank self == 5
  n0 = aten::sym_size.int(self=self, dim=0) : index
  n1 = aten::sym_size.int(self=self, dim=1) : index
  dh = _operator.mul(a=output_size.0, b=output_size.1) : index
  dhw = _operator.mul(a=dh, b=output_size.2) : index
  f = aten::flatten.using_ints(self=self, start_dim=2, end_dim=-1) : dims self [@0, @1, @2*@3*@4]
  i = aten::flatten.using_ints(self=indices, start_dim=2, end_dim=-1) : dims indices [@0, @1, @2*@3*@4]
  z = aten::new_zeros.default(self=self, size=[n0, n1, dhw], dtype=None, layout=None, device=None, pin_memory=None) : dims out0 [@0, @1, @2*@3*@4]
  s = aten::scatter.src(self=z, dim=2, index=i, src=f) : like z
  r = aten::unflatten.int(self=s, dim=2, sizes=output_size)
  return r
)";

} // namespace kiln::decomp
