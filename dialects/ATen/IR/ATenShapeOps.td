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

#endif // KILN_ATEN_SHAPE_OPS
