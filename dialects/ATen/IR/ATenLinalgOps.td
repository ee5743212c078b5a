//===- ATenLinalgOps.td - aten ops: linear algebra -----------*- tablegen -*-===//
#ifndef KILN_ATEN_LINALG_OPS
#define KILN_ATEN_LINALG_OPS

include "ATenBase.td"

def ATen_LinearOp : ATen_Op<"linear"> {
  let summary = "aten::linear: input @ weight^T + bias";
  let arguments = (ins ATen_FloatTensor:$input, ATen_FloatTensor:$weight,
                       Optional<ATen_FloatTensor>:$bias);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_AddmmOp : ATen_Op<"addmm"> {
  let summary = "aten::addmm: beta * self + alpha * (mat1 @ mat2)";
  let arguments = (ins ATen_FloatTensor:$self, ATen_FloatTensor:$mat1,
                       ATen_FloatTensor:$mat2,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $self `,` $mat1 `,` $mat2 attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // KILN_ATEN_LINALG_OPS
