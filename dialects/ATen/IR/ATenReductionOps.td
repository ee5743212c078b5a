//===- ATenReductionOps.td - aten ops: reductions ------------*- tablegen -*-===//
#ifndef KILN_ATEN_REDUCTION_OPS
#define KILN_ATEN_REDUCTION_OPS

include "ATenBase.td"

def ATen_MeanDimOp : ATen_Op<"mean_dim"> {
  let summary = "aten::mean.dim";
  let description = [{ An absent `dim` (ATen's `None`) reduces over every dimension. }];
  let arguments = (ins ATen_FloatTensor:$self, OptionalAttr<DenseI64ArrayAttr>:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The reduced dimensions, normalised to [0, rank) and sorted.
    ::llvm::SmallVector<int64_t> getReducedDims();
  }];
}

#endif // KILN_ATEN_REDUCTION_OPS
