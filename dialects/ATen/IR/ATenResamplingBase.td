//===- ATenResamplingBase.td - the upsample op classes -----*- tablegen -*-===//
//
// The argument lists and descriptions the upsample ops share (ATenResamplingOps.td
// and the antialiased ones of ATenAntialiasOps.td); no op is defined here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_RESAMPLING_BASE
#define KILN_ATEN_RESAMPLING_BASE

include "ATenBase.td"

class ATen_UpsampleBase<string mnemonic, dag extra> : ATen_Op<mnemonic> {
  let arguments = !con((ins ATen_Tensor:$self, OptionalAttr<DenseI64ArrayAttr>:$output_size,
                            OptionalAttr<DenseF64ArrayAttr>:$scales), extra);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class ATen_UpsampleNearest<string mnemonic> : ATen_UpsampleBase<mnemonic, (ins)> {
  let description = [{ Output index o reads input floor(o * s) (clamped), s = 1 /
    scale, or input / output size, in float32 as ATen computes it. }];
}
class ATen_UpsampleNearestExact<string mnemonic> : ATen_UpsampleBase<mnemonic, (ins)> {
  let description = [{ Output index o reads input floor((o + 0.5) * s) (clamped). }];
}
class ATen_UpsampleInterp<string mnemonic>
    : ATen_UpsampleBase<mnemonic, (ins DefaultValuedAttr<BoolAttr, "false">:$align_corners)> {
  let description = [{ With `align_corners` the corner samples of input and output
    coincide (source = o * (in - 1) / (out - 1)); without, source = (o + 0.5) * s
    - 0.5. Floats of 16 bits compute in float32, float64 in float64. }];
}

#endif // KILN_ATEN_RESAMPLING_BASE
