//===- BufferAllocs.cpp - the model's heap buffers through kiln_cpu_alloc / kiln_cpu_free ===//
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

#include "kiln/abi/cpu_memory.h"

namespace kiln {
#define GEN_PASS_DEF_LOWERBUFFERALLOCS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

// The generic allocation functions of finalize-memref-to-llvm's
// use-generic-functions option.
constexpr llvm::StringLiteral kGenericAlignedAlloc = "_mlir_memref_to_llvm_aligned_alloc";
constexpr llvm::StringLiteral kGenericAlloc = "_mlir_memref_to_llvm_alloc";
constexpr llvm::StringLiteral kGenericFree = "_mlir_memref_to_llvm_free";

struct LowerBufferAllocsPass : kiln::impl::LowerBufferAllocsBase<LowerBufferAllocsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    if (auto plain = symbols.lookup<LLVM::LLVMFuncOp>(kGenericAlloc)) {
      plain.emitOpError() << "is an unaligned allocation; kiln's runtime allocates aligned buffers only "
                             "(finalize-memref-to-llvm needs use-aligned-alloc)";
      return signalPassFailure();
    }
    // Renames `from` to the runtime's `to`, which must not exist yet.
    auto rename = [&](StringRef from, StringRef to) -> LLVM::LLVMFuncOp {
      auto fn = symbols.lookup<LLVM::LLVMFuncOp>(from);
      if (!fn)
        return nullptr;
      if (symbols.lookup(to)) {
        fn.emitOpError() << "cannot become @" << to << ": the module already defines that symbol";
        signalPassFailure();
        return nullptr;
      }
      if (failed(symbols.rename(fn, StringAttr::get(ctx, to)))) {
        signalPassFailure();
        return nullptr;
      }
      return fn;
    };
    if (LLVM::LLVMFuncOp alloc = rename(kGenericAlignedAlloc, KILN_SYM_CPU_ALLOC))
      alloc.setResultAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
    rename(kGenericFree, KILN_SYM_CPU_FREE);
  }
};

} // namespace
