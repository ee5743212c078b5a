//===- ATenDialect.h - the aten dialect -------------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_ATEN_IR_ATENDIALECT_H
#define KILN_DIALECTS_ATEN_IR_ATENDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "ATen/IR/ATenDialect.h.inc"

#define GET_OP_CLASSES
#include "ATen/IR/ATenOps.h.inc"

namespace kiln::aten {
/// Output size of a convolution or pooling window along one spatial dim, as
/// ATen computes it; ShapedType::kDynamic in gives kDynamic out.
int64_t slidingWindowOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                                int64_t dilation, bool ceilMode);
} // namespace kiln::aten

#endif
