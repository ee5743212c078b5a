//===- ATenShapeOps.td - aten ops: shapes and views ----------*- tablegen -*-===//
#ifndef KILN_ATEN_SHAPE_OPS
#define KILN_ATEN_SHAPE_OPS

include "ATenBase.td"

def ATen_PermuteOp : ATen_Op<"permute"> {
  let summary = "aten::permute";
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$dims);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def ATen_ViewOp : ATen_Op<"view"> {
  let summary = "aten::view / aten::reshape on a value tensor";
  let description = [{
    Sizes mix static entries (`static_sizes`, where -1 means "infer") and
    symbolic ones (`index` operands, marked dynamic in `static_sizes`).
  }];
  let arguments = (ins ATen_Tensor:$self, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$static_sizes);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self `` custom<DynamicIndexList>($sizes, $static_sizes) attr-dict
    `:` type($self) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def ATen_FlattenUsingIntsOp : ATen_Op<"flatten_using_ints"> {
  let summary = "aten::flatten.using_ints";
  let arguments = (ins ATen_Tensor:$self, DefaultValuedAttr<ATen_I64Attr, "0">:$start_dim,
                       DefaultValuedAttr<ATen_I64Attr, "-1">:$end_dim);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_SymSizeIntOp : ATen_Op<"sym_size_int"> {
  let summary = "aten::sym_size.int: a (possibly symbolic) dimension size";
  let arguments = (ins ATen_Tensor:$self, ATen_I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$self `,` $dim attr-dict `:` type($self)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def ATen_UnsqueezeOp : ATen_Op<"unsqueeze"> {
  let summary = "aten::unsqueeze: a new size-1 dim at `dim` (negative: counted from the end of the result)";
  let arguments = (ins ATen_Tensor:$self, ATen_I64Attr:$dim);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self `,` $dim attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_SqueezeDimsOp : ATen_Op<"squeeze_dims"> {
  let summary = "aten::squeeze.dims: drops the listed dims, each of static size 1";
  let description = [{
    `squeeze.default` and `squeeze.dim` import as this op with the dims that
    are size 1 (ATen leaves a listed dim of another size in place, so the
    importer lists only the size-1 ones).
  }];
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$dims);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_ExpandOp : ATen_Op<"expand"> {
  let summary = "aten::expand: broadcasts size-1 dims and adds leading dims";
  let description = [{
    `static_sizes` has one entry per result dim: a size, -1 (keep the input's
    size) or dynamic (the next `sizes` operand). The result is a value: an
    in-place write through an expanded tensor is rejected at import.
  }];
  let arguments = (ins ATen_Tensor:$self, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$static_sizes);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self `` custom<DynamicIndexList>($sizes, $static_sizes) attr-dict
    `:` type($self) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def ATen_SliceTensorOp : ATen_Op<"slice_tensor"> {
  let summary = "aten::slice.Tensor: elements start, start+step, ... before end along dim";
  let description = [{
    `static_bounds` is [start, end]; either may be dynamic (an `index`
    operand). As in ATen, negative bounds count from the end, bounds are then
    clamped to [0, size] and an end before the start gives an empty slice.
    A missing start is 0, a missing end INT64_MAX.
  }];
  let arguments = (ins ATen_Tensor:$self, Variadic<Index>:$bounds,
                       DenseI64ArrayAttr:$static_bounds, ATen_I64Attr:$dim,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$step);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self `` custom<DynamicIndexList>($bounds, $static_bounds) attr-dict
    `:` type($self) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def ATen_SelectIntOp : ATen_Op<"select_int"> {
  let summary = "aten::select.int: the slice at `index` along dim, without that dim";
  let description = [{
    `static_index` has one entry, a literal or dynamic (an `index` operand).
    A negative index counts from the end. An index outside the dim is an
    error when both are static; at run time it is clamped to the dim.
  }];
  let arguments = (ins ATen_Tensor:$self, Variadic<Index>:$index,
                       DenseI64ArrayAttr:$static_index, ATen_I64Attr:$dim);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self `` custom<DynamicIndexList>($index, $static_index) attr-dict
    `:` type($self) `->` type($result)
  }];
  let hasVerifier = 1;
}

def ATen_DiagonalOp : ATen_Op<"diagonal"> {
  let summary = "aten::diagonal: the diagonal of dims dim1/dim2 (shifted by offset), as a last dim";
  let arguments = (ins ATen_Tensor:$self, DefaultValuedAttr<ATen_I64Attr, "0">:$offset,
                       DefaultValuedAttr<ATen_I64Attr, "0">:$dim1,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$dim2);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_UnfoldOp : ATen_Op<"unfold"> {
  let summary = "aten::unfold: windows of `size` every `step` along `dimension`, as a last dim";
  let arguments = (ins ATen_Tensor:$self, ATen_I64Attr:$dimension, ATen_I64Attr:$size,
                       ATen_I64Attr:$step);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_AsStridedOp : ATen_Op<"as_strided"> {
  let summary = "aten::as_strided of a contiguous tensor: result[i] = flat(self)[offset + i . stride]";
  let description = [{
    The importer accepts as_strided only on a tensor whose storage is its
    own, contiguous from offset 0, so the strides address its row-major
    elements. Every addressed element must lie inside the input (checked).
  }];
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$size, DenseI64ArrayAttr:$stride,
                       DefaultValuedAttr<ATen_I64Attr, "0">:$storage_offset);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_CopyOp : ATen_Op<"copy"> {
  let summary = "aten::copy: `src` broadcast to the shape of `self` and converted to its dtype";
  let description = [{
    The out-of-place form of `copy_`: the result has the type of `self`,
    whose values it replaces.
  }];
  let arguments = (ins ATen_Tensor:$self, ATen_Tensor:$src);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self `,` $src attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_CatOp : ATen_Op<"cat"> {
  let summary = "aten::cat: tensors joined along dim (1-d empty tensors are skipped, as in ATen)";
  let arguments = (ins Variadic<ATen_Tensor>:$tensors, DefaultValuedAttr<ATen_I64Attr, "0">:$dim);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$tensors attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def ATen_SliceScatterOp : ATen_Op<"slice_scatter"> {
  let summary = "aten::slice_scatter: self with the slice (as slice.Tensor) replaced by src";
  let arguments = (ins ATen_Tensor:$self, ATen_Tensor:$src, Variadic<Index>:$bounds,
                       DenseI64ArrayAttr:$static_bounds, ATen_I64Attr:$dim,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$step);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self `,` $src `` custom<DynamicIndexList>($bounds, $static_bounds) attr-dict
    `:` type($self) `,` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def ATen_SelectScatterOp : ATen_Op<"select_scatter"> {
  let summary = "aten::select_scatter: self with the slice at index along dim replaced by src";
  let arguments = (ins ATen_Tensor:$self, ATen_Tensor:$src, Variadic<Index>:$index,
                       DenseI64ArrayAttr:$static_index, ATen_I64Attr:$dim);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self `,` $src `` custom<DynamicIndexList>($index, $static_index) attr-dict
    `:` type($self) `,` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def ATen_DiagonalScatterOp : ATen_Op<"diagonal_scatter"> {
  let summary = "aten::diagonal_scatter: self with its diagonal (as diagonal) replaced by src";
  let arguments = (ins ATen_Tensor:$self, ATen_Tensor:$src,
                       DefaultValuedAttr<ATen_I64Attr, "0">:$offset,
                       DefaultValuedAttr<ATen_I64Attr, "0">:$dim1,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$dim2);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self `,` $src attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // KILN_ATEN_SHAPE_OPS
