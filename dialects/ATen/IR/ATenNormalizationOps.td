//===- ATenNormalizationOps.td - aten ops: normalization -----*- tablegen -*-===//
#ifndef KILN_ATEN_NORMALIZATION_OPS
#define KILN_ATEN_NORMALIZATION_OPS

include "ATenBase.td"

def ATen_BatchNormOp : ATen_Op<"batch_norm", [AttrSizedOperandSegments]> {
  let summary = "aten::batch_norm";
  let arguments = (ins ATen_FloatTensor:$input,
                       Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       Optional<ATen_FloatTensor>:$running_mean,
                       Optional<ATen_FloatTensor>:$running_var,
                       BoolAttr:$training, F64Attr:$momentum, F64Attr:$eps,
                       DefaultValuedAttr<BoolAttr, "true">:$cudnn_enabled);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? (`mean` $running_mean^)?
    (`var` $running_var^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_NativeBatchNormLegitNoTrainingOp
    : ATen_Op<"_native_batch_norm_legit_no_training", [AttrSizedOperandSegments]> {
  let summary = "aten::_native_batch_norm_legit_no_training (inference batch norm)";
  let description = [{
    Results: the normalised tensor, then the saved mean and saved inverse
    standard deviation (empty, shape [0], as ATen returns them in inference).
  }];
  let arguments = (ins ATen_FloatTensor:$input,
                       Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       ATen_FloatTensor:$running_mean, ATen_FloatTensor:$running_var,
                       F64Attr:$momentum, F64Attr:$eps);
  let results = (outs ATen_FloatTensor:$result, ATen_FloatTensor:$save_mean,
                      ATen_FloatTensor:$save_invstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `mean` $running_mean `var` $running_var
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // KILN_ATEN_NORMALIZATION_OPS
