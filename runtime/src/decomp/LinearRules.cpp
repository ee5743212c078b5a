// kiln runtime — composite rules: products of vectors and matrices.
#include "Rules.h"

namespace kiln::decomp {

const char *const kLinearRules = R"(
# vdot on real tensors is dot
def vdot(Tensor self, Tensor other) -> Tensor
  r = aten::dot.default(self=self, tensor=other)
  return r
# linear of integer tensors (kiln's linear op is for floats): input @ weight.T (+ bias)
def linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
  when int input
  when rank weight == 2
  when bias is None
  t = aten::t.default(self=weight) : dims weight [@1, @0]
  r = aten::matmul.default(self=input, other=t)
  return r
def linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
  when int input
  when rank weight == 2
  t = aten::t.default(self=weight) : dims weight [@1, @0]
  m = aten::matmul.default(self=input, other=t) : like out0
  r = aten::add.Tensor(self=m, other=bias)
  return r
def linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
  when int input
  when rank weight == 1
  when bias is None
  r = aten::matmul.default(self=input, other=weight)
  return r
def linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
  when int input
  when rank weight == 1
  m = aten::matmul.default(self=input, other=weight) : like out0
  r = aten::add.Tensor(self=m, other=bias)
  return r
# addr = beta * self + alpha * outer(vec1, vec2) (floats and integers; bool is logical)
def addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
  when numeric self
  a = aten::unsqueeze.default(self=vec1, dim=1) : dims vec1 [@0, 1]
  o = aten::mul.Tensor(self=a, other=vec2) : bcast a vec2
  s = aten::mul.Tensor(self=o, other=alpha) : like o
  b = aten::mul.Tensor(self=self, other=beta) : like self
  r = aten::add.Tensor(self=b, other=s)
  return r
# addbmm = beta * self + alpha * sum_b(batch1[b] @ batch2[b])
def addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
  when numeric self
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
  when numeric self
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

# transformers::grouped_mm_fallback(input [S, K] sorted by group, weight [E, K, N],
# offs [E] cumulative row counts): rows offs[e-1] <= s < offs[e] are multiplied by
# weight[e]; rows past offs[E-1] are zero (the custom op transformers registers
# for its mixture-of-experts layers). Without a data-dependent loop: every
# group's product, y[e] = input @ weight[e], masked by the group of each row,
# group(s) = searchsorted(offs, s, right=True), and summed over e.
def transformers::grouped_mm_fallback(Tensor input, Tensor weight, Tensor offs) -> Tensor
  when rank input == 2
  when rank weight == 3
  when rank offs == 1
  u = aten::unsqueeze.default(self=input, dim=0) : dims input [1, @0, @1]
  y = aten::matmul.default(self=u, other=weight) : dims input [weight@0, @0, weight@2]
  o = aten::_to_copy.default(self=offs, dtype=#int64) : like offs as int64
  col = aten::select.int(self=input, dim=1, index=0) : dims input [@0]
  one = aten::ones_like.default(self=col, dtype=#int64) : dims input [@0] as int64
  pos1 = aten::cumsum.default(self=one, dim=0, dtype=None) : dims input [@0] as int64
  pos = aten::sub.Tensor(self=pos1, other=1, alpha=1) : dims input [@0] as int64
  grp = aten::searchsorted.Tensor(sorted_sequence=o, self=pos, out_int32=False, right=True, side=None, sorter=None) : dims input [@0] as int64
  eone = aten::ones_like.default(self=o) : like o
  eid1 = aten::cumsum.default(self=eone, dim=0, dtype=None) : like o
  eid = aten::sub.Tensor(self=eid1, other=1, alpha=1) : like o
  g2 = aten::unsqueeze.default(self=grp, dim=0) : dims input [1, @0] as int64
  e2 = aten::unsqueeze.default(self=eid, dim=1) : dims offs [@0, 1] as int64
  m = aten::eq.Tensor(self=g2, other=e2) : dims offs [@0, input@0] as bool
  mf = aten::_to_copy.default(self=m, dtype=dtype(input)) : dims offs [@0, input@0] as input
  m3 = aten::unsqueeze.default(self=mf, dim=2) : dims offs [@0, input@0, 1] as input
  p = aten::mul.Tensor(self=y, other=m3) : like y
  r = aten::sum.dim_IntList(self=p, dim=[0], keepdim=False, dtype=None)
  return r
)";

} // namespace kiln::decomp
