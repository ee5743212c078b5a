//===- ATenConvolutionOps.td - aten ops: convolution ---------*- tablegen -*-===//
#ifndef KILN_ATEN_CONVOLUTION_OPS
#define KILN_ATEN_CONVOLUTION_OPS

include "ATenBase.td"

def ATen_Conv2dOp : ATen_Op<"conv2d"> {
  let summary = "aten::conv2d (NCHW input, FCHW weight)";
  let arguments = (ins ATen_FloatTensor:$input, ATen_FloatTensor:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$groups);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_ConvolutionOp : ATen_Op<"convolution"> {
  let summary = "aten::convolution (2-d forms)";
  let arguments = (ins ATen_FloatTensor:$input, ATen_FloatTensor:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$transposed,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$groups);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // KILN_ATEN_CONVOLUTION_OPS
