//===- Passes.h - aten dialect passes ---------------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_ATEN_TRANSFORMS_PASSES_H
#define KILN_DIALECTS_ATEN_TRANSFORMS_PASSES_H

#include "ATen/IR/ATenDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::aten {
#define GEN_PASS_DECL
#include "ATen/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ATen/Transforms/Passes.h.inc"
} // namespace kiln::aten

#endif
