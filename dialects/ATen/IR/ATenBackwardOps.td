//===- ATenBackwardOps.td - aten ops: backward formulas ------*- tablegen -*-===//
//
// The ATen overloads that reverse-mode differentiation (dialects/Autograd)
// produces: the gradient of one forward op each, as ATen's own derivative
// formulas name them, plus sum_to_size for the broadcast dims of a gradient.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_BACKWARD_OPS
#define KILN_ATEN_BACKWARD_OPS

include "ATenBase.td"

def ATen_ThresholdBackwardOp : ATen_Op<"threshold_backward"> {
  let summary = "aten::threshold_backward: grad_output where self > threshold, else 0";
  let description = [{ The gradient of relu (threshold 0) and of threshold. Operands
    have one shape. }];
  let arguments = (ins ATen_FloatTensor:$grad_output, ATen_FloatTensor:$self,
                       DefaultValuedAttr<F64Attr, "0.0">:$threshold);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $self attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_GeluBackwardOp : ATen_Op<"gelu_backward"> {
  let summary = "aten::gelu_backward: grad_output * gelu'(self)";
  let arguments = (ins ATen_FloatTensor:$grad_output, ATen_FloatTensor:$self,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $self attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_SumToSizeOp : ATen_Op<"sum_to_size"> {
  let summary = "aten::sum_to_size: sums self down to the result's (broadcastable) shape";
  let description = [{
    The inverse of broadcasting: leading dims the result lacks, and dims where
    the result has a static 1 and self does not, are summed away. The result
    type is the target size.
  }];
  let arguments = (ins ATen_FloatTensor:$self);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_ConvolutionBackwardOp : ATen_Op<"convolution_backward"> {
  let summary = "aten::convolution_backward (2-d, not transposed)";
  let description = [{
    The gradients of `aten.convolution` with respect to its input, weight and
    bias, for the entries of `output_mask` that are set; a result whose mask
    entry is false is left unspecified (the lowering does not compute it).
  }];
  let arguments = (ins ATen_FloatTensor:$grad_output, ATen_FloatTensor:$input,
                       ATen_FloatTensor:$weight,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$transposed,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$groups,
                       DenseBoolArrayAttr:$output_mask);
  let results = (outs ATen_FloatTensor:$grad_input, ATen_FloatTensor:$grad_weight,
                      ATen_FloatTensor:$grad_bias);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $weight attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_MaxPool2dWithIndicesBackwardOp : ATen_Op<"max_pool2d_with_indices_backward"> {
  let summary = "aten::max_pool2d_with_indices_backward";
  let description = [{
    Routes each grad_output element to the input element its window took the
    maximum from (`indices`, flat h * W + w offsets within the plane, as
    `aten.max_pool2d_with_indices` returns them); overlapping windows add.
  }];
  let arguments = (ins ATen_FloatTensor:$grad_output, ATen_FloatTensor:$self,
                       DenseI64ArrayAttr:$kernel_size, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       TensorOf<[I64]>:$indices);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $self `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_AvgPool2dBackwardOp : ATen_Op<"avg_pool2d_backward"> {
  let summary = "aten::avg_pool2d_backward";
  let description = [{
    Each input element receives grad_output / divisor from every window of
    `aten.avg_pool2d` (same attributes) that holds it; `self` gives the shape.
  }];
  let arguments = (ins ATen_FloatTensor:$grad_output, ATen_FloatTensor:$self,
                       DenseI64ArrayAttr:$kernel_size, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                       OptionalAttr<ATen_I64Attr>:$divisor_override);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $self attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_AdaptiveAvgPool2dBackwardOp : ATen_Op<"_adaptive_avg_pool2d_backward"> {
  let summary = "aten::_adaptive_avg_pool2d_backward";
  let description = [{ Each input element receives grad_output / window size from
    every adaptive window (ATen's [floor(i*H/O), ceil((i+1)*H/O)) spans) that contains it. }];
  let arguments = (ins ATen_FloatTensor:$grad_output, ATen_FloatTensor:$self);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $self attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_NativeBatchNormBackwardOp
    : ATen_Op<"native_batch_norm_backward"> {
  let summary = "aten::native_batch_norm_backward (inference form: train = false)";
  let description = [{
    With `train` false the statistics are the running ones, constants of the
    forward: grad_input = grad_out * weight / sqrt(running_var + eps), and the
    weight and bias gradients reduce over every dim but the channel (dim 1).
    Results whose `output_mask` entry is false are left unspecified.
  }];
  let arguments = (ins ATen_FloatTensor:$grad_out, ATen_FloatTensor:$input,
                       Optional<ATen_FloatTensor>:$weight,
                       ATen_FloatTensor:$running_mean, ATen_FloatTensor:$running_var,
                       BoolAttr:$train, F64Attr:$eps, DenseBoolArrayAttr:$output_mask);
  let results = (outs ATen_FloatTensor:$grad_input, ATen_FloatTensor:$grad_weight,
                      ATen_FloatTensor:$grad_bias);
  let assemblyFormat = [{
    $grad_out `,` $input (`weight` $weight^)? `mean` $running_mean `var` $running_var
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // KILN_ATEN_BACKWARD_OPS
