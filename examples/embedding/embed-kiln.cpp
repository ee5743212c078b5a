// embed-kiln: how another MLIR-based compiler uses kiln. It registers kiln's
// dialects, passes and named pipelines in its own context, parses a module,
// and runs a kiln pipeline chosen by name on it.
//
//   embed-kiln input.mlir kiln-lower-to-linalg
#include "kiln/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: embed-kiln INPUT.mlir PIPELINE\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  mlir::MLIRContext ctx(registry);
  llvm::SourceMgr sm;
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(argv[1], sm, &ctx);
  if (!module)
    return 2;
  mlir::PassManager pm(&ctx);
  if (mlir::failed(mlir::parsePassPipeline(argv[2], pm, llvm::errs())))
    return 2;
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
