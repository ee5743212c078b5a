// compile-model: kiln's compiler called in-process through its library API
// (kiln/Compiler/Compiler.h). It compiles a torch.export archive into a model
// shared object stage by stage, and says what each stage left.
//
//   compile-model MODEL.pt2 OUT.so [TARGET]
#include "kiln/Compiler/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace {
size_t countOps(mlir::ModuleOp module) {
  size_t n = 0;
  module.walk([&](mlir::Operation *) { ++n; });
  return n;
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    llvm::errs() << "usage: compile-model MODEL.pt2 OUT.so [TARGET]\n";
    return kiln::kExitBadInput;
  }
  kiln::CompileOptions options;
  options.input = argv[1];
  options.output = argv[2];
  if (argc == 4)
    options.target = argv[3];
  auto compilation = kiln::Compilation::create(options);
  if (!compilation)
    return kiln::kExitBadInput;
  if (int rc = compilation->importProgram())
    return rc;
  llvm::outs() << "imported: " << countOps(compilation->module()) << " ops\n";
  if (int rc = compilation->differentiate())
    return rc;
  if (int rc = compilation->lower())
    return rc;
  llvm::outs() << "lowered: " << countOps(compilation->module()) << " ops\n";
  if (int rc = compilation->emit())
    return rc;
  llvm::outs() << "wrote " << options.output << "\n";
  return kiln::kExitOk;
}
