// kiln runtime — composite rules: products of vectors and matrices.
#include "Rules.h"

namespace kiln::decomp {

const char *const kLinearRules = R"(
# vdot on real tensors is dot
def vdot(Tensor self, Tensor other) -> Tensor
  r = aten::dot.default(self=self, tensor=other)
  return r
# addr = beta * self + alpha * outer(vec1, vec2)
def addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
  when float self
  a = aten::unsqueeze.default(self=vec1, dim=1) : dims vec1 [@0, 1]
  o = aten::mul.Tensor(self=a, other=vec2) : bcast a vec2
  s = aten::mul.Tensor(self=o, other=alpha) : like o
  b = aten::mul.Tensor(self=self, other=beta) : like self
  r = aten::add.Tensor(self=b, other=s)
  return r
# addbmm = beta * self + alpha * sum_b(batch1[b] @ batch2[b])
def addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
  when float self
  m = aten::bmm.default(self=batch1, mat2=batch2) : dims batch1 [@0, @1, batch2@2]
  s = aten::sum.dim_IntList(self=m, dim=[0], keepdim=False, dtype=None) : dims batch1 [@1, batch2@2]
  t = aten::mul.Tensor(self=s, other=alpha) : like s
  b = aten::mul.Tensor(self=self, other=beta) : like self
  r = aten::add.Tensor(self=b, other=t)
  return r

# inner of vectors is dot; of matrices, a @ b.T
def inner(Tensor self, Tensor other) -> Tensor
  when rank self == 1
  when rank other == 1
  r = aten::dot.default(self=self, tensor=other)
  return r
def inner(Tensor self, Tensor other) -> Tensor
  when rank self == 2
  when rank other == 2
  t = aten::t.default(self=other) : dims other [@1, @0]
  r = aten::mm.default(self=self, mat2=t)
  return r
# conv1d: convolution over one spatial dim
def conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, SymInt[1] dilation=1, SymInt groups=1) -> Tensor
  r = aten::convolution.default(input=input, weight=weight, bias=bias, stride=stride, padding=padding, dilation=dilation, transposed=False, output_padding=[0], groups=groups)
  return r

# cross products of 3-vectors along dim: roll(a, -1) roll(b, -2) - roll(a, -2) roll(b, -1)
def linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor
  when float self
  a1 = aten::roll.default(self=self, shifts=[-1], dims=[dim]) : like self
  a2 = aten::roll.default(self=self, shifts=[-2], dims=[dim]) : like self
  b1 = aten::roll.default(self=other, shifts=[-1], dims=[dim]) : like other
  b2 = aten::roll.default(self=other, shifts=[-2], dims=[dim]) : like other
  p = aten::mul.Tensor(self=a1, other=b2) : bcast a1 b2
  q = aten::mul.Tensor(self=a2, other=b1) : bcast a2 b1
  r = aten::sub.Tensor(self=p, other=q)
  return r
def cross(Tensor self, Tensor other, int? dim=None) -> Tensor
  when dim is not None
  r = aten::linalg_cross.default(self=self, other=other, dim=dim)
  return r
# bilinear: x1^T W x2 (+ bias), one einsum
def bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor
  when rank input1 == 2
  when bias is None
  r = aten::einsum.default(equation='bi,oij,bj->bo', tensors=[input1, weight, input2], path=None)
  return r
def bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor
  when rank input1 == 2
  e = aten::einsum.default(equation='bi,oij,bj->bo', tensors=[input1, weight, input2], path=None) : dims input1 [@0, weight@0]
  r = aten::add.Tensor(self=e, other=bias)
  return r
# bilinear of single vectors: x1^T W x2 (+ bias)
def bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor
  when rank input1 == 1
  when bias is None
  r = aten::einsum.default(equation='i,oij,j->o', tensors=[input1, weight, input2], path=None)
  return r
def bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor
  when rank input1 == 1
  e = aten::einsum.default(equation='i,oij,j->o', tensors=[input1, weight, input2], path=None) : dims weight [@0]
  r = aten::add.Tensor(self=e, other=bias)
  return r
def linalg_multi_dot(Tensor[] tensors) -> Tensor
  when len tensors == 2
  when rank tensors.0 == 2
  when rank tensors.1 == 2
  r = aten::mm.default(self=tensors.0, mat2=tensors.1)
  return r
def linalg_multi_dot(Tensor[] tensors) -> Tensor
  when len tensors == 3
  when rank tensors.0 == 2
  when rank tensors.1 == 2
  when rank tensors.2 == 2
  a = aten::mm.default(self=tensors.0, mat2=tensors.1) : dims tensors.0 [@0, tensors.1@1]
  r = aten::mm.default(self=a, mat2=tensors.2)
  return r

def inner(Tensor self, Tensor other) -> Tensor
  when rank self == 0
  r = aten::mul.Tensor(self=self, other=other)
  return r
def inner(Tensor self, Tensor other) -> Tensor
  when rank other == 0
  r = aten::mul.Tensor(self=self, other=other)
  return r
)";

} // namespace kiln::decomp
