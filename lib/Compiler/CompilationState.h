//===- CompilationState.h - what a Compilation carries between stages -*- C++ -*-===//
//
// Private to lib/Compiler: the checked options (ResolvedOptions) and the
// state the stages of Compiler.h hand on to each other.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_COMPILER_COMPILATIONSTATE_H
#define KILN_LIB_COMPILER_COMPILATIONSTATE_H

#include "kiln/Compiler/Compiler.h"
#include "kiln/Compiler/GraphPicture.h"

#include "CompileProgress.h"

#include "ATen/Transforms/Passes.h"
#include "kiln/Conversion/AutogradToATen.h"
#include "kiln/Target/CPU.h"
#ifdef KILN_ENABLE_ROCM
#include "kiln/Target/ROCm.h"
#endif
#ifdef KILN_ENABLE_CUDA
#include "kiln/Target/CUDA.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// The options after their checks: what the stages read.
struct ResolvedOptions {
  bool cuda = false, rocm = false;
  bool embed = true;  ///< --weights=embed
  bool foldBn = false; ///< --fold-batch-norm, after `auto`
  bool concatLinear = false; ///< --concat-linear, after `auto`
  std::string gpuArch;
#ifdef KILN_ENABLE_CUDA
  CUDAPipelineOptions cudaOpts;
#endif
#ifdef KILN_ENABLE_ROCM
  ROCmPipelineOptions rocmOpts;
#endif
  aten::ATenInjectFaultOptions faultOptions;
  TrainStepOptions step;
};

/// Checks `o` as kiln-compile's command line is checked; false with a
/// message naming the option in `error`.
bool resolveOptions(const CompileOptions &o, ResolvedOptions &r, std::string &error);

/// "file:line: error: message [node 'name']" for a user's Python line, or
/// "kiln-compile: error: message" without one (CompilationOutput.cpp).
void printDiagnostic(llvm::raw_ostream &os, mlir::Diagnostic &d);

/// A pass manager's IR printer writing DIR/NN-<pass>.mlir after every pass.
std::unique_ptr<mlir::PassManager::IRPrinterConfig> dumpDirPrinter(std::string dir, unsigned &counter);

/// DIR/graph.dot (the picture of --emit=dot) and, when Graphviz's `dot` is on
/// the PATH, DIR/graph.svg.
void writeDumpPicture(llvm::StringRef dir, const ProgramPicture &picture, size_t maxNodes,
                      llvm::raw_ostream &diag);

struct Compilation::State {
  CompileOptions options;
  ResolvedOptions resolved;
  llvm::raw_ostream *diag = nullptr, *out = nullptr;

  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> ctx;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> diagHandler;
  llvm::SourceMgr sourceMgr;
  mlir::DefaultTimingManager timingManager;
  mlir::TimingScope root;
  std::unique_ptr<Progress> progress; ///< null: no progress lines
  FunctionTimes functionTimes;        ///< --timing's slowest functions
  unsigned dumpCounter = 0;

  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp entry;
  WeightMap weights;
  WeightLayout layout;
  std::string manifest;
  std::string entryName;
  ProgramPicture picture;
  bool done = false;

  /// Prints "kiln-compile: error: MSG" and returns kExitBadInput.
  int fail(const llvm::Twine &msg);
  /// Writes DIR/NN-STAGE with `print` when --dump-dir is set.
  void dumpStage(llvm::StringRef stage, llvm::function_ref<void(llvm::raw_ostream &)> print);
  /// Runs `write` on a temporary beside `output` (elsewhere for "-") and
  /// renames it into place (copies it to stdout) only on success.
  int writeOutput(llvm::function_ref<mlir::LogicalResult(llvm::StringRef tmpPath)> write);
  bool differentiating() const;
  /// A progress line for the stage starting now.
  void step(llvm::StringRef stage, llvm::StringRef detail = "") {
    if (progress)
      progress->stage(stage, detail);
  }
};

} // namespace kiln

#endif
