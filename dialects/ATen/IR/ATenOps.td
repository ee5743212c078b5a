//===- ATenOps.td - aten dialect operations ------------------*- tablegen -*-===//
//
// One op per ATen overload kiln knows. Scalar arguments of the ATen schema that
// export records as literals become attributes; SymInt arguments that may be
// symbolic become `index` operands.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_OPS
#define KILN_ATEN_OPS

include "ATenBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

include "ATenElementwiseOps.td"
include "ATenCreationOps.td"
include "ATenLinalgOps.td"
include "ATenConvolutionOps.td"
include "ATenNormalizationOps.td"
include "ATenPoolingOps.td"
include "ATenResamplingOps.td"
include "ATenReductionOps.td"
include "ATenAttentionOps.td"
include "ATenShapeOps.td"
include "ATenIndexingOps.td"
include "ATenRuntimeOps.td"
include "ATenBackwardOps.td"

#endif // KILN_ATEN_OPS
