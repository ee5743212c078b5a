//===- ATenNormalizationOps.td - aten ops: normalization -----*- tablegen -*-===//
#ifndef KILN_ATEN_NORMALIZATION_OPS
#define KILN_ATEN_NORMALIZATION_OPS

include "ATenBase.td"

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

class ATen_SoftmaxBase<string mnemonic, string atenName, dag extra>
    : ATen_Op<mnemonic> {
  let summary = "aten::" # atenName;
  let description = [{
    Along `dim` (negative counts from the end). The result element type is
    the input's, float32 for a float16/bfloat16 input with `half_to_float`, or
    `dtype` when given (the input is converted to it first). Float16 and
    bfloat16 are computed in float32, as ATen's CPU kernels do.
  }];
  let arguments = !con((ins ATen_Tensor:$self, ATen_I64Attr:$dim), extra);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_SoftmaxOp : ATen_SoftmaxBase<"_softmax", "_softmax",
    (ins DefaultValuedAttr<BoolAttr, "false">:$half_to_float)>;
def ATen_LogSoftmaxOp : ATen_SoftmaxBase<"_log_softmax", "_log_softmax",
    (ins DefaultValuedAttr<BoolAttr, "false">:$half_to_float)>;
def ATen_SoftmaxIntOp : ATen_SoftmaxBase<"softmax_int", "softmax.int",
    (ins OptionalAttr<TypeAttr>:$dtype)>;
def ATen_LogSoftmaxIntOp : ATen_SoftmaxBase<"log_softmax_int", "log_softmax.int",
    (ins OptionalAttr<TypeAttr>:$dtype)>;

//===----------------------------------------------------------------------===//
// Layer, RMS and group normalisation
//===----------------------------------------------------------------------===//

def ATen_LayerNormOp : ATen_Op<"layer_norm", [AttrSizedOperandSegments]> {
  let summary = "aten::layer_norm";
  let description = [{
    Normalises over the trailing `normalized_shape` dims (a symbolic entry is
    kept as `?`; only their number matters, the sizes must be the input's).
  }];
  let arguments = (ins ATen_FloatTensor:$input, Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$normalized_shape,
                       DefaultValuedAttr<F64Attr, "1e-05">:$eps,
                       DefaultValuedAttr<BoolAttr, "true">:$cudnn_enable);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_NativeLayerNormOp : ATen_Op<"native_layer_norm", [AttrSizedOperandSegments]> {
  let summary = "aten::native_layer_norm";
  let description = [{
    Results: the normalised tensor, then the mean and the reciprocal standard
    deviation of each normalised group, shaped as the input with the
    normalised dims set to 1.
  }];
  let arguments = (ins ATen_FloatTensor:$input, Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$normalized_shape, F64Attr:$eps);
  let results = (outs ATen_FloatTensor:$result, ATen_FloatTensor:$mean,
                      ATen_FloatTensor:$rstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_RmsNormOp : ATen_Op<"rms_norm"> {
  let summary = "aten::rms_norm";
  let description = [{
    x * rsqrt(mean(x^2) + eps) * weight over the trailing `normalized_shape`
    dims; an absent `eps` is the machine epsilon of the input's dtype.
  }];
  let arguments = (ins ATen_FloatTensor:$input, Optional<ATen_FloatTensor>:$weight,
                       DenseI64ArrayAttr:$normalized_shape, OptionalAttr<F64Attr>:$eps);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_GroupNormOp : ATen_Op<"group_norm", [AttrSizedOperandSegments]> {
  let summary = "aten::group_norm";
  let arguments = (ins ATen_FloatTensor:$input, Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias, ATen_I64Attr:$num_groups,
                       DefaultValuedAttr<F64Attr, "1e-05">:$eps);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_NativeGroupNormOp : ATen_Op<"native_group_norm", [AttrSizedOperandSegments]> {
  let summary = "aten::native_group_norm";
  let description = [{
    Results: the normalised tensor, then the mean and reciprocal standard
    deviation of each (sample, group), shaped [N, group]. ATen's N, C and HxW
    arguments are the input's sizes and are not kept.
  }];
  let arguments = (ins ATen_FloatTensor:$input, Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias, ATen_I64Attr:$group, F64Attr:$eps);
  let results = (outs ATen_FloatTensor:$result, ATen_FloatTensor:$mean,
                      ATen_FloatTensor:$rstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Batch and instance normalisation
//===----------------------------------------------------------------------===//

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

def ATen_NativeBatchNormOp : ATen_Op<"native_batch_norm", [AttrSizedOperandSegments]> {
  let summary = "aten::native_batch_norm, aten::_native_batch_norm_legit(.no_stats)";
  let description = [{
    With `training`, normalises with the batch statistics (over every dim but
    dim 1, biased variance) and returns them as the saved mean and inverse
    standard deviation (shape [C]); the running statistics are not updated
    here (`_native_batch_norm_legit_functional` returns their new values).
    Without `training` it is inference batch norm and the saved statistics
    are empty (shape [0]).
  }];
  let arguments = (ins ATen_FloatTensor:$input,
                       Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       Optional<ATen_FloatTensor>:$running_mean,
                       Optional<ATen_FloatTensor>:$running_var,
                       BoolAttr:$training, F64Attr:$momentum, F64Attr:$eps);
  let results = (outs ATen_FloatTensor:$result, ATen_FloatTensor:$save_mean,
                      ATen_FloatTensor:$save_invstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? (`mean` $running_mean^)?
    (`var` $running_var^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_NativeBatchNormLegitFunctionalOp
    : ATen_Op<"_native_batch_norm_legit_functional", [AttrSizedOperandSegments]> {
  let summary = "aten::_native_batch_norm_legit_functional";
  let description = [{
    native_batch_norm that also returns the updated running statistics:
    with `training`, running_mean' = (1 - momentum) * running_mean +
    momentum * batch_mean and running_var' likewise with the unbiased batch
    variance; without it they are returned unchanged.
  }];
  let arguments = (ins ATen_FloatTensor:$input,
                       Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       ATen_FloatTensor:$running_mean, ATen_FloatTensor:$running_var,
                       BoolAttr:$training, F64Attr:$momentum, F64Attr:$eps);
  let results = (outs ATen_FloatTensor:$result, ATen_FloatTensor:$save_mean,
                      ATen_FloatTensor:$save_invstd, ATen_FloatTensor:$running_mean_out,
                      ATen_FloatTensor:$running_var_out);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `mean` $running_mean `var` $running_var
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_InstanceNormOp : ATen_Op<"instance_norm", [AttrSizedOperandSegments]> {
  let summary = "aten::instance_norm";
  let description = [{
    With `use_input_stats`, each (sample, channel) is normalised by its own
    statistics over the spatial dims; otherwise by the running statistics.
  }];
  let arguments = (ins ATen_FloatTensor:$input,
                       Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       Optional<ATen_FloatTensor>:$running_mean,
                       Optional<ATen_FloatTensor>:$running_var,
                       BoolAttr:$use_input_stats, F64Attr:$momentum, F64Attr:$eps,
                       DefaultValuedAttr<BoolAttr, "true">:$cudnn_enabled);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? (`mean` $running_mean^)?
    (`var` $running_var^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // KILN_ATEN_NORMALIZATION_OPS
