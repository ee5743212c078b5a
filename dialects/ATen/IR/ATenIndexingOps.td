//===- ATenIndexingOps.td - aten ops: gathers, scatters, pads -*- tablegen -*-===//
//
// Ops that read or write elements at computed positions. Indices are integer
// tensors of any width; at run time a negative index counts from the end and
// an index still outside the dim is clamped into it, so compiled code never
// reads or writes outside a tensor (docs/Rationale/functionalisation.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_INDEXING_OPS
#define KILN_ATEN_INDEXING_OPS

include "ATenBase.td"

def ATen_IntTensor : RankedTensorOf<[I8, I16, I32, I64]>;

def ATen_IndexSelectOp : ATen_Op<"index_select"> {
  let summary = "aten::index_select: slices of self at the entries of a 1-d index along dim";
  let arguments = (ins ATen_Tensor:$self, ATen_IntTensor:$index, ATen_I64Attr:$dim);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self `,` $index attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_GatherOp : ATen_Op<"gather"> {
  let summary = "aten::gather: result[i] = self[i with i[dim] replaced by index[i]]";
  let arguments = (ins ATen_Tensor:$self, ATen_IntTensor:$index, ATen_I64Attr:$dim);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self `,` $index attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_ScatterOp : ATen_Op<"scatter"> {
  let summary = "aten::scatter / scatter_add / scatter_reduce: writes src at index along dim";
  let description = [{
    For every element i of `index`, position p (i with p[dim] = index[i]) of
    the result receives src[i] (`reduce` = "none": the last write wins) or is
    combined with it ("sum", "prod", "mean", "amax", "amin"). With
    `include_self` false, a position that receives any element starts from
    the reduction's identity instead of self's value; "mean" divides by the
    number of values combined (integer dtypes round down). A 0-d `src` is a
    value written everywhere (`scatter.value`).
  }];
  let arguments = (ins ATen_Tensor:$self, ATen_IntTensor:$index, ATen_Tensor:$src,
                       ATen_I64Attr:$dim, DefaultValuedStrAttr<StrAttr, "none">:$reduce,
                       DefaultValuedAttr<BoolAttr, "true">:$include_self);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self `,` $index `,` $src attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_IndexTensorOp : ATen_Op<"index_tensor"> {
  let summary = "aten::index.Tensor with integer index tensors (advanced indexing)";
  let description = [{
    `indices[k]` indexes dim `index_dims[k]` of self (dims without an index
    are None entries of ATen's list). The indices broadcast together to a
    shape B. If the indexed dims are adjacent, B replaces them in the result;
    otherwise B comes first, followed by the dims without an index. Boolean
    masks are imported as the integer indices of their nonzero entries.
  }];
  let arguments = (ins ATen_Tensor:$self, Variadic<ATen_IntTensor>:$indices,
                       DenseI64ArrayAttr:$index_dims);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self `[` $indices `]` attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_IndexPutOp : ATen_Op<"index_put"> {
  let summary = "aten::index_put: self with values written (or added) at advanced indices";
  let description = [{
    The positions are those `index_tensor` with the same indices would read;
    `values` broadcasts to that result's shape. Without `accumulate` the last
    write to a repeated position wins; with it the values are added.
  }];
  let arguments = (ins ATen_Tensor:$self, Variadic<ATen_IntTensor>:$indices,
                       ATen_Tensor:$values, DenseI64ArrayAttr:$index_dims,
                       DefaultValuedAttr<BoolAttr, "false">:$accumulate);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self `[` $indices `]` `,` $values attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_NonzeroOp : ATen_Op<"nonzero"> {
  let summary = "aten::nonzero: the coordinates of the nonzero elements, row-major order";
  let arguments = (ins ATen_Tensor:$self);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_FlipOp : ATen_Op<"flip"> {
  let summary = "aten::flip: reverses the order of elements along dims";
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$dims);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_RollOp : ATen_Op<"roll"> {
  let summary = "aten::roll: rotates elements along dims by shifts (no dims: the flattened tensor)";
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$shifts, DenseI64ArrayAttr:$dims);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_RepeatOp : ATen_Op<"repeat"> {
  let summary = "aten::repeat: tiles self `repeats` times along each dim (leading dims added)";
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$repeats);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class ATen_TriangleOp<string mnemonic, string what> : ATen_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "aten::" # mnemonic # ": " # what # " of the last two dims, the rest zero";
  let arguments = (ins ATen_Tensor:$self, DefaultValuedAttr<ATen_I64Attr, "0">:$diagonal);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
  let hasVerifier = 1;
}
def ATen_TrilOp : ATen_TriangleOp<"tril", "elements on and below the diagonal-th diagonal">;
def ATen_TriuOp : ATen_TriangleOp<"triu", "elements on and above the diagonal-th diagonal">;

def ATen_ConstantPadNdOp : ATen_Op<"constant_pad_nd"> {
  let summary = "aten::constant_pad_nd: pads (negative: crops) the last dims with a value";
  let description = [{
    `pad` holds (low, high) pairs, the first pair for the last dim.
  }];
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$pad,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class ATen_GatherPadOp<string mnemonic, string what> : ATen_Op<mnemonic> {
  let summary = "aten::" # mnemonic # "{1,2,3}d: pads the last dims by " # what;
  let description = [{
    `padding` holds (low, high) pairs, the first pair for the last dim; as
    many dims are padded as there are pairs.
  }];
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$padding);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
def ATen_ReflectionPadOp : ATen_GatherPadOp<"reflection_pad",
    "reflecting the input at its edges (the edge element is not repeated)">;
def ATen_ReplicationPadOp : ATen_GatherPadOp<"replication_pad", "repeating the edge element">;
def ATen_CircularPadOp : ATen_GatherPadOp<"circular_pad", "wrapping around (_pad_circular)">;

#endif // KILN_ATEN_INDEXING_OPS
