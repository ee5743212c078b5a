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

# affine_grid_generator (F.affine_grid), 2-d: grid[n, h, w] = theta[n] @ [x_w, y_h, 1] with
# x, y spaced over [-1, 1]: 2i / (W - 1) - 1 with align_corners (-1 for one pixel, as
# linspace), else the pixel centres (2i + 1) / W - 1; a 5-d size has no rule yet
def affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor
  when len size == 4
  when align_corners == True
  i = aten::arange.start(start=0, end=size.3, dtype=dtype(theta), layout=None, device=None, pin_memory=None) : dims out0 [out0@2] as theta
  il = aten::select.int(self=i, dim=0, index=-1) : dims theta []
  in = aten::clamp_min.default(self=il, min=1) : like il
  i2 = aten::mul.Tensor(self=i, other=2) : like i
  i4 = aten::div.Tensor(self=i2, other=in) : like i
  x = aten::sub.Tensor(self=i4, other=1, alpha=1) : like i
  j = aten::arange.start(start=0, end=size.2, dtype=dtype(theta), layout=None, device=None, pin_memory=None) : dims out0 [out0@1] as theta
  jl = aten::select.int(self=j, dim=0, index=-1) : dims theta []
  jn = aten::clamp_min.default(self=jl, min=1) : like jl
  j2 = aten::mul.Tensor(self=j, other=2) : like j
  j4 = aten::div.Tensor(self=j2, other=jn) : like j
  y = aten::sub.Tensor(self=j4, other=1, alpha=1) : like j
  t0 = aten::select.int(self=theta, dim=2, index=0) : dims theta [theta@0, theta@1]
  t1 = aten::select.int(self=theta, dim=2, index=1) : dims theta [theta@0, theta@1]
  t2 = aten::select.int(self=theta, dim=2, index=2) : dims theta [theta@0, theta@1]
  a0 = aten::reshape.default(self=t0, shape=[-1, 1, 1, 2]) : dims theta [theta@0, 1, 1, 2]
  a1 = aten::reshape.default(self=t1, shape=[-1, 1, 1, 2]) : dims theta [theta@0, 1, 1, 2]
  a2 = aten::reshape.default(self=t2, shape=[-1, 1, 1, 2]) : dims theta [theta@0, 1, 1, 2]
  xv = aten::reshape.default(self=x, shape=[1, 1, -1, 1]) : dims theta [1, 1, out0@2, 1]
  yv = aten::reshape.default(self=y, shape=[1, -1, 1, 1]) : dims theta [1, out0@1, 1, 1]
  p = aten::mul.Tensor(self=a0, other=xv) : bcast a0 xv
  q = aten::mul.Tensor(self=a1, other=yv) : bcast a1 yv
  s = aten::add.Tensor(self=p, other=q, alpha=1) : bcast p q
  r = aten::add.Tensor(self=s, other=a2, alpha=1)
  return r
def affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor
  when len size == 4
  i = aten::arange.start(start=0, end=size.3, dtype=dtype(theta), layout=None, device=None, pin_memory=None) : dims out0 [out0@2] as theta
  i2 = aten::mul.Tensor(self=i, other=2) : like i
  i3 = aten::add.Tensor(self=i2, other=1, alpha=1) : like i
  i4 = aten::div.Scalar(self=i3, other=size.3) : like i
  x = aten::sub.Tensor(self=i4, other=1, alpha=1) : like i
  j = aten::arange.start(start=0, end=size.2, dtype=dtype(theta), layout=None, device=None, pin_memory=None) : dims out0 [out0@1] as theta
  j2 = aten::mul.Tensor(self=j, other=2) : like j
  j3 = aten::add.Tensor(self=j2, other=1, alpha=1) : like j
  j4 = aten::div.Scalar(self=j3, other=size.2) : like j
  y = aten::sub.Tensor(self=j4, other=1, alpha=1) : like j
  t0 = aten::select.int(self=theta, dim=2, index=0) : dims theta [theta@0, theta@1]
  t1 = aten::select.int(self=theta, dim=2, index=1) : dims theta [theta@0, theta@1]
  t2 = aten::select.int(self=theta, dim=2, index=2) : dims theta [theta@0, theta@1]
  a0 = aten::reshape.default(self=t0, shape=[-1, 1, 1, 2]) : dims theta [theta@0, 1, 1, 2]
  a1 = aten::reshape.default(self=t1, shape=[-1, 1, 1, 2]) : dims theta [theta@0, 1, 1, 2]
  a2 = aten::reshape.default(self=t2, shape=[-1, 1, 1, 2]) : dims theta [theta@0, 1, 1, 2]
  xv = aten::reshape.default(self=x, shape=[1, 1, -1, 1]) : dims theta [1, 1, out0@2, 1]
  yv = aten::reshape.default(self=y, shape=[1, -1, 1, 1]) : dims theta [1, out0@1, 1, 1]
  p = aten::mul.Tensor(self=a0, other=xv) : bcast a0 xv
  q = aten::mul.Tensor(self=a1, other=yv) : bcast a1 yv
  s = aten::add.Tensor(self=p, other=q, alpha=1) : bcast p q
  r = aten::add.Tensor(self=s, other=a2, alpha=1)
  return r
)";

} // namespace kiln::decomp
