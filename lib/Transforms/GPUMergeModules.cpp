//===- GPUMergeModules.cpp - every outlined kernel in one gpu.module ------===//
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

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
    if (modules.empty())
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

    // Identical kernels (a model's repeated layers outline the same code once
    // per layer) become one: each kernel is printed with a placeholder name,
    // and a kernel printing like an earlier one is erased, its launches
    // redirected. Symbol references (globals) are part of the text, so only
    // kernels reading the same globals merge.
    DenseMap<StringAttr, StringAttr> sameAs;
    llvm::StringMap<StringAttr> byText;
    StringAttr placeholder = StringAttr::get(&getContext(), "__kiln_kernel");
    for (auto kernel : llvm::make_early_inc_range(target.getOps<gpu::GPUFuncOp>())) {
      if (!kernel.isKernel())
        continue;
      StringAttr name = kernel.getNameAttr();
      kernel.setName(placeholder);
      std::string text;
      llvm::raw_string_ostream os(text);
      kernel->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
      kernel.setName(name);
      auto [it, inserted] = byText.try_emplace(text, name);
      if (inserted)
        continue;
      sameAs[name] = it->second;
      table.erase(kernel);
    }
    for (auto &entry : renamed)
      if (auto it = sameAs.find(entry.second); it != sameAs.end())
        entry.second = it->second;

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
