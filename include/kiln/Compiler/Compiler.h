//===- Compiler.h - kiln's compiler as a library: options and stages -*- C++ -*-===//
//
// What `kiln-compile` does, callable in-process: fill a CompileOptions, then
// either call compile() or run the stages of a Compilation one by one
// (import, differentiate, lower, emit) and look at the module in between.
// kiln-compile is a command line over this API (CompileMain.cpp); the
// installed CMake package exports it as Kiln::Compiler (docs/embedding.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_COMPILER_H
#define KILN_COMPILER_COMPILER_H

#include "kiln/Compiler/CompileMain.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm
namespace mlir {
class MLIRContext;
class ModuleOp;
} // namespace mlir

namespace kiln {

/// What a compilation writes.
enum class EmitKind { SO, Obj, MLIR, LLVM, Dot };

/// A derived program compiled instead of the model's forward (docs/autograd.md).
enum class Derivative { None, Grad, Jvp, Jacobian, Hessian, Hvp, TrainStep };

/// Everything kiln-compile's command line sets; the defaults are the CLI's.
/// Strings hold the CLI's spellings ("on"/"off", layouts, ...), checked by
/// Compilation::create with the messages the CLI prints.
struct CompileOptions {
  std::string input;  ///< model.pt2 or module.mlir
  std::string output; ///< the file to write ("-": stdout); may be empty with `explain`
  std::string target = "cpu"; ///< cpu, cuda or rocm
  EmitKind emit = EmitKind::SO;
  std::string weights = "embed"; ///< embed or external
  std::vector<std::string> plugins; ///< custom-op plugins loaded before import
  bool explain = false;             ///< list every op's decision on `out`
  std::string dumpDir;              ///< the IR after import and each pass
  unsigned dotMaxNodes = 400;
  bool timing = false; ///< stage and pass times, the slowest functions to compile
  /// Progress lines on `diagnostics`: auto (redrawn on one line where it is a
  /// terminal, else none), on (a line each off a terminal) or off.
  std::string progress = "auto";
  std::string injectFault; ///< test only: MODE:OP[:N]

  // CPU.
  std::string cpu = "native";
  int compileJobs = 0; ///< 0: the cores available
  std::string cpuLibrary = "on";
  std::string convLayout = "auto";
  std::string foldBatchNorm = "auto";
  std::string concatLinear = "auto";

  // GPUs (--target=cuda|rocm).
  std::string gpuArch;                  ///< empty: sm_90 or gfx90a
  std::optional<std::string> gpuBinary; ///< empty: fatbin for CUDA, the ROCm default
  std::string cudaGemm = "cublas";
  std::string cudaAttention; ///< empty: fused where this build has the kernels, else decomposed
  std::string cudaConv = "cudnn";
  std::string cudaGroupedLayout = "auto";
  std::string cudaDepthwise = "kernel";
  std::string cudaTf32 = "conv";
  std::string cudaToolkit;
  std::string rocmPath;

  // Derived programs.
  Derivative derivative = Derivative::None;
  std::string optimizer = "sgd"; ///< with Derivative::TrainStep: sgd or adamw
  std::optional<double> lr, momentum, weightDecay, eps; ///< unset: the optimizer's defaults
  std::optional<std::string> betas;                    ///< "B1,B2"
  bool remat = false;
  /// With Derivative::Grad: empty (the whole value and gradient), "forward"
  /// (outputs and residuals) or "backward" (residuals and cotangents to
  /// gradients); both halves of one cut, with remat (autograd-split-grad).
  std::string split;
  std::string vmap; ///< IN[:OUT] (docs/vmap.md)

  /// Where errors and --timing go (default llvm::errs()), and --explain's
  /// listing (default llvm::outs()).
  llvm::raw_ostream *diagnostics = nullptr;
  llvm::raw_ostream *out = nullptr;
};

/// One compilation: an MLIR context, the module and its weights as they go
/// through the stages. Each stage returns an ExitCode; stop at the first that
/// is not kExitOk, or when done() says the requested output is complete
/// (--explain alone, --vmap without -o, --emit=mlir after lower()).
class Compilation {
public:
  /// Checks the options (the message names the option) and loads the
  /// plugins; null, with the error printed, when they are wrong.
  static std::unique_ptr<Compilation> create(const CompileOptions &options);
  ~Compilation();

  int importProgram(); ///< the .pt2 (or .mlir) as aten-dialect IR
  int differentiate(); ///< --grad/--jvp/.../--train-step, then --vmap
  int lower();         ///< batch-norm folding, the manifest, the target's pipeline
  int emit();          ///< LLVM IR, object code, the linked model, written to `output`
  bool done() const;

  mlir::MLIRContext &context();
  mlir::ModuleOp module();
  const CompileOptions &options() const;

  struct State;

private:
  explicit Compilation(std::unique_ptr<State> state);
  std::unique_ptr<State> state;
};

/// All stages; never leaves a partial output file behind.
int compile(const CompileOptions &options);

} // namespace kiln

#endif
