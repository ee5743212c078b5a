//===- Registration.cpp - register kiln's dialects, passes, pipelines -----===//
#include "kiln/Registration.h"

#include "ATen/IR/ATenDialect.h"
#include "ATen/Transforms/Passes.h"
#include "Autograd/IR/AutogradDialect.h"
#include "Autograd/Rules/Rules.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#ifdef KILN_ENABLE_CUDA
#include "kiln/Target/CUDA.h"
#endif
#ifdef KILN_ENABLE_ROCM
#include "kiln/Target/ROCm.h"
#endif

void kiln::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<aten::ATenDialect, autograd::AutogradDialect, mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::tensor::TensorDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::affine::AffineDialect,
                  mlir::scf::SCFDialect, mlir::memref::MemRefDialect,
                  mlir::bufferization::BufferizationDialect, mlir::cf::ControlFlowDialect,
                  mlir::LLVM::LLVMDialect, mlir::gpu::GPUDialect, mlir::vector::VectorDialect>();
  // Derivative rules of the aten ops (dialects/Autograd/Rules).
  autograd::registerATenGradientRules(registry);
  // Bufferization and deallocation models of the upstream dialects kiln lowers to.
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  mlir::bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::memref::registerAllocationOpInterfaceExternalModels(registry);
  mlir::scf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // Lowerings to LLVM found through the dialects (the GPU conversions, such
  // as convert-gpu-to-nvvm, lower kernel bodies with these).
  mlir::arith::registerConvertArithToLLVMInterface(registry);
  mlir::cf::registerConvertControlFlowToLLVMInterface(registry);
  mlir::registerConvertFuncToLLVMInterface(registry);
  mlir::gpu::registerConvertGpuToLLVMInterface(registry);
  mlir::index::registerConvertIndexToLLVMInterface(registry);
  mlir::registerConvertMathToLLVMInterface(registry);
  mlir::registerConvertMemRefToLLVMInterface(registry);
  mlir::ub::registerConvertUBToLLVMInterface(registry);
  mlir::vector::registerConvertVectorToLLVMInterface(registry);
#ifdef KILN_ENABLE_CUDA
  registerCUDADialects(registry);
#endif
#ifdef KILN_ENABLE_ROCM
  registerROCmDialects(registry);
#endif
}

void kiln::registerAllPasses() {
  static bool done = false;
  if (done)
    return;
  done = true;
  aten::registerATenPasses();
  kiln::registerKilnConversionPasses();
  kiln::registerKilnTransformsPasses();
  registerPipelines();
#ifdef KILN_ENABLE_CUDA
  registerCUDAPipeline();
#endif
#ifdef KILN_ENABLE_ROCM
  registerROCmPipeline();
#endif
}
