// kiln runtime — composite rules: views, broadcasts, flips and copies of views.
#include "Rules.h"

namespace kiln::decomp {

const char *const kShapeRules = R"(
def expand_as(Tensor(a) self, Tensor other) -> Tensor(a)
  r = aten::expand.default(self=self, size=sizes(other), implicit=False)
  return r
def broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)
  r = aten::expand.default(self=self, size=size, implicit=False)
  return r
def flipud(Tensor self) -> Tensor
  r = aten::flip.default(self=self, dims=[0])
  return r
def fliplr(Tensor self) -> Tensor
  r = aten::flip.default(self=self, dims=[1])
  return r
def alias_copy(Tensor self) -> Tensor
  r = aten::clone.default(self=self, memory_format=None)
  return r
def expand_copy(Tensor self, SymInt[] size, *, bool implicit=False) -> Tensor
  r = aten::expand.default(self=self, size=size, implicit=implicit)
  return r

# Matrix transposes of real tensors.
def mT(Tensor(a) self) -> Tensor(a)
  r = aten::transpose.int(self=self, dim0=-2, dim1=-1)
  return r
def mH(Tensor(a) self) -> Tensor(a)
  r = aten::transpose.int(self=self, dim0=-2, dim1=-1)
  return r
def matrix_H(Tensor(a) self) -> Tensor(a)
  r = aten::transpose.int(self=self, dim0=0, dim1=1)
  return r
def numpy_T(Tensor(a) self) -> Tensor(a)
  when rank self <= 1
  return self
def numpy_T(Tensor(a) self) -> Tensor(a)
  when rank self == 2
  r = aten::permute.default(self=self, dims=[1, 0])
  return r
def numpy_T(Tensor(a) self) -> Tensor(a)
  when rank self == 3
  r = aten::permute.default(self=self, dims=[2, 1, 0])
  return r
def numpy_T(Tensor(a) self) -> Tensor(a)
  when rank self == 4
  r = aten::permute.default(self=self, dims=[3, 2, 1, 0])
  return r
# swapaxes / swapdims: NumPy's names for transpose.
def swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)
  r = aten::transpose.int(self=self, dim0=axis0, dim1=axis1)
  return r
def swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
  r = aten::transpose.int(self=self, dim0=dim0, dim1=dim1)
  return r
def ravel(Tensor(a) self) -> Tensor(a)
  r = aten::reshape.default(self=self, shape=[-1])
  return r
# atleast_Nd: leading (and, for 3-d, trailing) unit dims
def atleast_1d(Tensor self) -> Tensor
  when rank self == 0
  r = aten::reshape.default(self=self, shape=[1])
  return r
def atleast_1d(Tensor self) -> Tensor
  return self
def atleast_2d(Tensor self) -> Tensor
  when rank self == 0
  r = aten::reshape.default(self=self, shape=[1, 1])
  return r
def atleast_2d(Tensor self) -> Tensor
  when rank self == 1
  r = aten::unsqueeze.default(self=self, dim=0)
  return r
def atleast_2d(Tensor self) -> Tensor
  return self
def atleast_3d(Tensor self) -> Tensor
  when rank self == 0
  r = aten::reshape.default(self=self, shape=[1, 1, 1])
  return r
def atleast_3d(Tensor self) -> Tensor
  when rank self == 1
  a = aten::unsqueeze.default(self=self, dim=0) : dims self [1, @0]
  r = aten::unsqueeze.default(self=a, dim=2)
  return r
def atleast_3d(Tensor self) -> Tensor
  when rank self == 2
  r = aten::unsqueeze.default(self=self, dim=2)
  return r
def atleast_3d(Tensor self) -> Tensor
  return self
# diag of a matrix is its diagonal
def diag(Tensor self, int diagonal=0) -> Tensor
  when rank self == 2
  r = aten::diagonal.default(self=self, offset=diagonal, dim1=0, dim2=1)
  return r
def linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor(a)
  r = aten::diagonal.default(self=A, offset=offset, dim1=dim1, dim2=dim2)
  return r

# concatenate and concat: NumPy-style names of cat (torch.concatenate; Zamba2's default IR)
def concatenate(Tensor[] tensors, int dim=0) -> Tensor
  r = aten::cat.default(tensors=tensors, dim=dim)
  return r
def concat(Tensor[] tensors, int dim=0) -> Tensor
  r = aten::cat.default(tensors=tensors, dim=dim)
  return r

# broadcast_tensors: each tensor expanded to the common shape
def broadcast_tensors(Tensor[] tensors) -> Tensor[]
  when len tensors == 1
  return tensors.0
def broadcast_tensors(Tensor[] tensors) -> Tensor[]
  when len tensors == 2
  a = aten::expand.default(self=tensors.0, size=bsizes(tensors.0 tensors.1), implicit=False)
  b = aten::expand.default(self=tensors.1, size=bsizes(tensors.0 tensors.1), implicit=False)
  return a, b
def broadcast_tensors(Tensor[] tensors) -> Tensor[]
  when len tensors == 3
  a = aten::expand.default(self=tensors.0, size=bsizes(tensors.0 tensors.1 tensors.2), implicit=False)
  b = aten::expand.default(self=tensors.1, size=bsizes(tensors.0 tensors.1 tensors.2), implicit=False)
  c = aten::expand.default(self=tensors.2, size=bsizes(tensors.0 tensors.1 tensors.2), implicit=False)
  return a, b, c

def broadcast_tensors(Tensor[] tensors) -> Tensor[]
  when len tensors == 4
  a = aten::expand.default(self=tensors.0, size=bsizes(tensors.0 tensors.1 tensors.2 tensors.3), implicit=False)
  b = aten::expand.default(self=tensors.1, size=bsizes(tensors.0 tensors.1 tensors.2 tensors.3), implicit=False)
  c = aten::expand.default(self=tensors.2, size=bsizes(tensors.0 tensors.1 tensors.2 tensors.3), implicit=False)
  d = aten::expand.default(self=tensors.3, size=bsizes(tensors.0 tensors.1 tensors.2 tensors.3), implicit=False)
  return a, b, c, d
# meshgrid of vectors: each viewed along its own dim, expanded to the grid
def meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]
  when len tensors == 1
  when rank tensors.0 == 1
  return tensors.0
def meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]
  when len tensors == 1
  when rank tensors.0 == 0
  r = aten::reshape.default(self=tensors.0, shape=[1])
  return r
def meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]
  when len tensors == 2
  when indexing == 'ij'
  n0 = aten::sym_size.int(self=tensors.0, dim=0) : index
  n1 = aten::sym_size.int(self=tensors.1, dim=0) : index
  a = aten::view.default(self=tensors.0, size=[-1, 1]) : dims tensors.0 [@0, 1]
  b = aten::view.default(self=tensors.1, size=[1, -1]) : dims tensors.1 [1, @0]
  x = aten::expand.default(self=a, size=[n0, n1], implicit=False)
  y = aten::expand.default(self=b, size=[n0, n1], implicit=False)
  return x, y
def meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]
  when len tensors == 2
  when indexing == 'xy'
  n0 = aten::sym_size.int(self=tensors.0, dim=0) : index
  n1 = aten::sym_size.int(self=tensors.1, dim=0) : index
  a = aten::view.default(self=tensors.0, size=[1, -1]) : dims tensors.0 [1, @0]
  b = aten::view.default(self=tensors.1, size=[-1, 1]) : dims tensors.1 [@0, 1]
  x = aten::expand.default(self=a, size=[n1, n0], implicit=False)
  y = aten::expand.default(self=b, size=[n1, n0], implicit=False)
  return x, y
def meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]
  when len tensors == 3
  when indexing == 'ij'
  n0 = aten::sym_size.int(self=tensors.0, dim=0) : index
  n1 = aten::sym_size.int(self=tensors.1, dim=0) : index
  n2 = aten::sym_size.int(self=tensors.2, dim=0) : index
  a = aten::view.default(self=tensors.0, size=[-1, 1, 1]) : dims tensors.0 [@0, 1, 1]
  b = aten::view.default(self=tensors.1, size=[1, -1, 1]) : dims tensors.1 [1, @0, 1]
  c = aten::view.default(self=tensors.2, size=[1, 1, -1]) : dims tensors.2 [1, 1, @0]
  x = aten::expand.default(self=a, size=[n0, n1, n2], implicit=False)
  y = aten::expand.default(self=b, size=[n0, n1, n2], implicit=False)
  z = aten::expand.default(self=c, size=[n0, n1, n2], implicit=False)
  return x, y, z

# cartesian_prod of one vector is itself; of two, the flattened meshgrid, stacked
def cartesian_prod(Tensor[] tensors) -> Tensor
  when len tensors == 1
  return tensors.0
def cartesian_prod(Tensor[] tensors) -> Tensor
  when len tensors == 2
  n0 = aten::sym_size.int(self=tensors.0, dim=0) : index
  n1 = aten::sym_size.int(self=tensors.1, dim=0) : index
  a = aten::view.default(self=tensors.0, size=[-1, 1]) : dims tensors.0 [@0, 1]
  b = aten::view.default(self=tensors.1, size=[1, -1]) : dims tensors.1 [1, @0]
  x = aten::expand.default(self=a, size=[n0, n1], implicit=False) : dims tensors.0 [@0, tensors.1@0]
  y = aten::expand.default(self=b, size=[n0, n1], implicit=False) : dims tensors.0 [@0, tensors.1@0]
  fx = aten::reshape.default(self=x, shape=[-1]) : dims tensors.0 [@0*tensors.1@0]
  fy = aten::reshape.default(self=y, shape=[-1]) : dims tensors.0 [@0*tensors.1@0]
  r = aten::stack.default(tensors=[fx, fy], dim=1)
  return r
)";

} // namespace kiln::decomp
