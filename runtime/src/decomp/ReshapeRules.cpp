// kiln runtime — composite rules: products and shuffles built from views (kron, channel_shuffle, tile).
#include "Rules.h"

namespace kiln::decomp {

const char *const kReshapeRules = R"(
# kron(a, b): a viewed as [a0, 1, a1, 1, ...], b as [1, b0, 1, b1, ...], their
# product viewed as [a0*b0, a1*b1, ...] (ATen's kron, operands of one rank)
def kron(Tensor self, Tensor other) -> Tensor
  when rank self == 1
  when rank other == 1
  a0 = aten::sym_size.int(self=self, dim=0) : index
  b0 = aten::sym_size.int(self=other, dim=0) : index
  m0 = _operator.mul(a=a0, b=b0) : index
  va = aten::view.default(self=self, size=[a0, 1]) : dims self [@0, 1]
  vb = aten::view.default(self=other, size=[1, b0]) : dims other [1, @0]
  p = aten::mul.Tensor(self=va, other=vb) : bcast va vb
  r = aten::view.default(self=p, size=[m0])
  return r
def kron(Tensor self, Tensor other) -> Tensor
  when rank self == 2
  when rank other == 2
  a0 = aten::sym_size.int(self=self, dim=0) : index
  a1 = aten::sym_size.int(self=self, dim=1) : index
  b0 = aten::sym_size.int(self=other, dim=0) : index
  b1 = aten::sym_size.int(self=other, dim=1) : index
  m0 = _operator.mul(a=a0, b=b0) : index
  m1 = _operator.mul(a=a1, b=b1) : index
  va = aten::view.default(self=self, size=[a0, 1, a1, 1]) : dims self [@0, 1, @1, 1]
  vb = aten::view.default(self=other, size=[1, b0, 1, b1]) : dims other [1, @0, 1, @1]
  p = aten::mul.Tensor(self=va, other=vb) : bcast va vb
  r = aten::view.default(self=p, size=[m0, m1])
  return r
def kron(Tensor self, Tensor other) -> Tensor
  when rank self == 3
  when rank other == 3
  a0 = aten::sym_size.int(self=self, dim=0) : index
  a1 = aten::sym_size.int(self=self, dim=1) : index
  a2 = aten::sym_size.int(self=self, dim=2) : index
  b0 = aten::sym_size.int(self=other, dim=0) : index
  b1 = aten::sym_size.int(self=other, dim=1) : index
  b2 = aten::sym_size.int(self=other, dim=2) : index
  m0 = _operator.mul(a=a0, b=b0) : index
  m1 = _operator.mul(a=a1, b=b1) : index
  m2 = _operator.mul(a=a2, b=b2) : index
  va = aten::view.default(self=self, size=[a0, 1, a1, 1, a2, 1]) : dims self [@0, 1, @1, 1, @2, 1]
  vb = aten::view.default(self=other, size=[1, b0, 1, b1, 1, b2]) : dims other [1, @0, 1, @1, 1, @2]
  p = aten::mul.Tensor(self=va, other=vb) : bcast va vb
  r = aten::view.default(self=p, size=[m0, m1, m2])
  return r

# channel_shuffle(x, g): the channels viewed as [g, C/g], those two dims swapped,
# and reshaped back (ATen's math_channel_shuffle)
def channel_shuffle(Tensor self, SymInt groups) -> Tensor
  when rank self == 3
  n = aten::sym_size.int(self=self, dim=0) : index
  c = aten::sym_size.int(self=self, dim=1) : index
  l = aten::sym_size.int(self=self, dim=2) : index
  cg = _operator.floordiv(a=c, b=groups) : index
  v = aten::view.default(self=self, size=[n, groups, cg, l]) : dims self [@0, groups, @1/groups, @2]
  t = aten::permute.default(self=v, dims=[0, 2, 1, 3]) : dims self [@0, @1/groups, groups, @2]
  r = aten::reshape.default(self=t, shape=[n, c, l])
  return r
def channel_shuffle(Tensor self, SymInt groups) -> Tensor
  when rank self == 4
  n = aten::sym_size.int(self=self, dim=0) : index
  c = aten::sym_size.int(self=self, dim=1) : index
  h = aten::sym_size.int(self=self, dim=2) : index
  w = aten::sym_size.int(self=self, dim=3) : index
  cg = _operator.floordiv(a=c, b=groups) : index
  v = aten::view.default(self=self, size=[n, groups, cg, h, w]) : dims self [@0, groups, @1/groups, @2, @3]
  t = aten::permute.default(self=v, dims=[0, 2, 1, 3, 4]) : dims self [@0, @1/groups, groups, @2, @3]
  r = aten::reshape.default(self=t, shape=[n, c, h, w])
  return r
def channel_shuffle(Tensor self, SymInt groups) -> Tensor
  when rank self == 5
  n = aten::sym_size.int(self=self, dim=0) : index
  c = aten::sym_size.int(self=self, dim=1) : index
  d = aten::sym_size.int(self=self, dim=2) : index
  h = aten::sym_size.int(self=self, dim=3) : index
  w = aten::sym_size.int(self=self, dim=4) : index
  cg = _operator.floordiv(a=c, b=groups) : index
  v = aten::view.default(self=self, size=[n, groups, cg, d, h, w]) : dims self [@0, groups, @1/groups, @2, @3, @4]
  t = aten::permute.default(self=v, dims=[0, 2, 1, 3, 4, 5]) : dims self [@0, @1/groups, groups, @2, @3, @4]
  r = aten::reshape.default(self=t, shape=[n, c, d, h, w])
  return r
def native_channel_shuffle(Tensor self, SymInt groups) -> Tensor
  r = aten::channel_shuffle.default(self=self, groups=groups)
  return r

# tile(x, dims): repeat with dims padded by leading 1s to x's rank (ATen's tile:
# fewer dims than the rank repeat the trailing dims; as many or more are
# repeat's own)
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 1
  when len dims == 0
  r = aten::repeat.default(self=self, repeats=[1])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 2
  when len dims == 0
  r = aten::repeat.default(self=self, repeats=[1, 1])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 2
  when len dims == 1
  r = aten::repeat.default(self=self, repeats=[1, dims.0])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 3
  when len dims == 0
  r = aten::repeat.default(self=self, repeats=[1, 1, 1])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 3
  when len dims == 1
  r = aten::repeat.default(self=self, repeats=[1, 1, dims.0])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 3
  when len dims == 2
  r = aten::repeat.default(self=self, repeats=[1, dims.0, dims.1])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 4
  when len dims == 0
  r = aten::repeat.default(self=self, repeats=[1, 1, 1, 1])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 4
  when len dims == 1
  r = aten::repeat.default(self=self, repeats=[1, 1, 1, dims.0])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 4
  when len dims == 2
  r = aten::repeat.default(self=self, repeats=[1, 1, dims.0, dims.1])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 4
  when len dims == 3
  r = aten::repeat.default(self=self, repeats=[1, dims.0, dims.1, dims.2])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 5
  when len dims == 0
  r = aten::repeat.default(self=self, repeats=[1, 1, 1, 1, 1])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 5
  when len dims == 1
  r = aten::repeat.default(self=self, repeats=[1, 1, 1, 1, dims.0])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 5
  when len dims == 2
  r = aten::repeat.default(self=self, repeats=[1, 1, 1, dims.0, dims.1])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 5
  when len dims == 3
  r = aten::repeat.default(self=self, repeats=[1, 1, dims.0, dims.1, dims.2])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  when rank self == 5
  when len dims == 4
  r = aten::repeat.default(self=self, repeats=[1, dims.0, dims.1, dims.2, dims.3])
  return r
def tile(Tensor self, SymInt[] dims) -> Tensor
  r = aten::repeat.default(self=self, repeats=dims)
  return r
)";

} // namespace kiln::decomp
