//===- Pipelines.h - kiln's named pass pipelines ----------------*- C++ -*-===//
#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace kiln {
/// aten -> linalg on tensors, fused (`kiln-lower-to-linalg`).
void buildLowerToLinalgPipeline(mlir::OpPassManager &pm);
/// linalg on tensors -> bufferized loops -> LLVM dialect (`kiln-linalg-to-llvm`).
void buildLinalgToLLVMPipeline(mlir::OpPassManager &pm);
/// The whole CPU path, aten -> LLVM dialect (`kiln-cpu-pipeline`).
void buildCPUPipeline(mlir::OpPassManager &pm);
/// Registers the pipelines above by name with MLIR's pass registry.
void registerPipelines();
} // namespace kiln

#endif
