// kiln runtime — composite rules: 1-d pooling as 2-d pooling over a unit height.
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
)";

} // namespace kiln::decomp
