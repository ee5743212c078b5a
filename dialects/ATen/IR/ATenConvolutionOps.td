//===- ATenConvolutionOps.td - aten ops: convolution ---------*- tablegen -*-===//
#ifndef KILN_ATEN_CONVOLUTION_OPS
#define KILN_ATEN_CONVOLUTION_OPS

include "ATenBase.td"

// Floats and signed integers: ATen convolves int64 (and the other signed
// integer dtypes) exactly, with integer arithmetic. uint8 is not signless and
// fails this constraint; the verifier rejects bool.
def ATen_ConvTensor : RankedTensorOf<[AnyFloat, AnySignlessInteger]>;

def ATen_Conv2dOp : ATen_Op<"conv2d"> {
  let summary = "aten::conv2d (NCHW input, FCHW weight)";
  let arguments = (ins ATen_ConvTensor:$input, ATen_ConvTensor:$weight,
                       Optional<ATen_ConvTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$groups);
  let results = (outs ATen_ConvTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_ConvolutionOp : ATen_Op<"convolution"> {
  let summary = "aten::convolution (1-, 2- and 3-d, direct and transposed)";
  let description = [{
    The weight's rank gives the number of spatial dims k (1 to 3); the input
    is [N, C, k dims] or unbatched [C, k dims], and stride, padding, dilation
    and output_padding have k entries. A transposed convolution's weight is
    [C_in, C_out / groups, k dims].
  }];
  let arguments = (ins ATen_ConvTensor:$input, ATen_ConvTensor:$weight,
                       Optional<ATen_ConvTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$transposed,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$groups);
  let results = (outs ATen_ConvTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // KILN_ATEN_CONVOLUTION_OPS
