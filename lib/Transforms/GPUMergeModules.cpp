//===- GPUMergeModules.cpp - every outlined kernel in one gpu.module ------===//
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace kiln {
#define GEN_PASS_DEF_KILNGPUMERGEMODULES
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct KilnGPUMergeModulesPass : kiln::impl::KilnGPUMergeModulesBase<KilnGPUMergeModulesPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(top.getOps<gpu::GPUModuleOp>());
    if (modules.size() <= 1)
      return;
    gpu::GPUModuleOp target = modules.front();
    SymbolTable table(target);
    // (module, kernel) -> the kernel's name in `target`.
    DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;

    for (gpu::GPUModuleOp mod : modules) {
      StringAttr modName = mod.getNameAttr();
      SmallVector<Operation *> ops;
      for (Operation &op : mod.getBody()->without_terminator())
        ops.push_back(&op);
      for (Operation *opPtr : ops) {
        Operation &op = *opPtr;
        auto sym = dyn_cast<SymbolOpInterface>(op);
        if (!sym)
          continue;
        StringAttr oldName = sym.getNameAttr();
        auto kernel = dyn_cast<gpu::GPUFuncOp>(op);
        if (kernel && kernel.isKernel()) {
          if (mod == target)
            table.remove(&op);
          else
            op.remove();
          // Kernels take their module's name, unique at the top level.
          sym.setName(modName);
          renamed[{modName, oldName}] = table.insert(&op);
          continue;
        }
        if (mod == target)
          continue;
        // A global or helper outlining copied into several modules: keep one.
        if (table.lookup(oldName)) {
          op.erase();
          continue;
        }
        op.remove();
        table.insert(&op);
      }
      if (mod != target)
        mod.erase();
    }

    top.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr ref = launch.getKernel();
      auto it = renamed.find({ref.getRootReference(), ref.getLeafReference()});
      if (it == renamed.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(target.getNameAttr(),
                                              {FlatSymbolRefAttr::get(it->second)}));
    });
  }
};

} // namespace
