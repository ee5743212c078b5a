//===- ATenPoolingOps.td - aten ops: pooling -----------------*- tablegen -*-===//
//
// Window attributes (kernel_size, stride, padding, dilation) have one entry per
// spatial dim: the importer expands ATen's "int or list" forms. An input may
// lack the batch dim (CHW for the 2-d ops, CDHW for the 3-d ones).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_POOLING_OPS
#define KILN_ATEN_POOLING_OPS

include "ATenBase.td"

class ATen_MaxPoolBase<string mnemonic, dag outs> : ATen_Op<mnemonic> {
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = outs;
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_MaxPool2dOp : ATen_MaxPoolBase<"max_pool2d", (outs ATen_Tensor:$result)> {
  let summary = "aten::max_pool2d (NCHW or CHW)";
}

def ATen_MaxPool2dWithIndicesOp
    : ATen_MaxPoolBase<"max_pool2d_with_indices",
                       (outs ATen_Tensor:$result, TensorOf<[I64]>:$indices)> {
  let summary = "aten::max_pool2d_with_indices";
  let description = [{ `indices` holds, per window, the flat offset h * W + w of
    the maximum within its input plane. }];
  let hasCanonicalizer = 1;
}

def ATen_MaxPool3dOp : ATen_MaxPoolBase<"max_pool3d", (outs ATen_Tensor:$result)> {
  let summary = "aten::max_pool3d (NCDHW or CDHW)";
}

def ATen_MaxPool3dWithIndicesOp
    : ATen_MaxPoolBase<"max_pool3d_with_indices",
                       (outs ATen_Tensor:$result, TensorOf<[I64]>:$indices)> {
  let summary = "aten::max_pool3d_with_indices";
  let description = [{ `indices` holds, per window, the flat offset
    (d * H + h) * W + w of the maximum within its input volume. }];
}

class ATen_AvgPoolBase<string mnemonic> : ATen_Op<mnemonic> {
  let description = [{
    Windows may reach into `padding` (zeros) and, with `ceil_mode`, past it;
    the sum covers the input elements a window holds. The divisor is
    `divisor_override` when given, else the window size clipped to the padded
    input (`count_include_pad`) or to the input. Float inputs of 16 bits sum in
    float32; int64 inputs sum in int64 and divide truncating, as ATen's CPU
    kernels do.
  }];
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                       OptionalAttr<ATen_I64Attr>:$divisor_override);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_AvgPool2dOp : ATen_AvgPoolBase<"avg_pool2d"> {
  let summary = "aten::avg_pool2d (NCHW or CHW)";
}

def ATen_AvgPool3dOp : ATen_AvgPoolBase<"avg_pool3d"> {
  let summary = "aten::avg_pool3d (NCDHW or CDHW)";
}

class ATen_AdaptiveAvgPoolBase<string mnemonic> : ATen_Op<mnemonic> {
  let description = [{ Window i along a spatial dim of size H with O outputs spans
    [floor(i*H/O), ceil((i+1)*H/O)). 16-bit floats sum in float32. }];
  let arguments = (ins ATen_FloatTensor:$self, DenseI64ArrayAttr:$output_size);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_AdaptiveAvgPool2dOp : ATen_AdaptiveAvgPoolBase<"adaptive_avg_pool2d"> {
  let summary = "aten::adaptive_avg_pool2d and aten::_adaptive_avg_pool2d (NCHW or CHW)";
}

def ATen_AdaptiveAvgPool3dOp : ATen_AdaptiveAvgPoolBase<"adaptive_avg_pool3d"> {
  let summary = "aten::adaptive_avg_pool3d and aten::_adaptive_avg_pool3d (NCDHW or CDHW)";
}

#endif // KILN_ATEN_POOLING_OPS
