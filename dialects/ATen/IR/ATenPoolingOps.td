//===- ATenPoolingOps.td - aten ops: pooling -----------------*- tablegen -*-===//
#ifndef KILN_ATEN_POOLING_OPS
#define KILN_ATEN_POOLING_OPS

include "ATenBase.td"

class ATen_MaxPool2dBase<string mnemonic, dag outs> : ATen_Op<mnemonic> {
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = outs;
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_MaxPool2dOp : ATen_MaxPool2dBase<"max_pool2d", (outs ATen_Tensor:$result)> {
  let summary = "aten::max_pool2d (NCHW or CHW)";
}

def ATen_MaxPool2dWithIndicesOp
    : ATen_MaxPool2dBase<"max_pool2d_with_indices",
                         (outs ATen_Tensor:$result, TensorOf<[I64]>:$indices)> {
  let summary = "aten::max_pool2d_with_indices";
  let hasCanonicalizer = 1;
}

def ATen_AdaptiveAvgPool2dOp : ATen_Op<"adaptive_avg_pool2d"> {
  let summary = "aten::adaptive_avg_pool2d (NCHW or CHW)";
  let arguments = (ins ATen_FloatTensor:$self, DenseI64ArrayAttr:$output_size);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // KILN_ATEN_POOLING_OPS
