//===- CPU.h - x86-64 object code and model shared objects -------*- C++ -*-===//
#ifndef KILN_TARGET_CPU_H
#define KILN_TARGET_CPU_H

#include "kiln/Import/WeightData.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

#include <map>
#include <functional>
#include <string>
#include <vector>

namespace kiln {

/// Where each weight argument's bytes sit in the embedded blob.
struct WeightLayout {
  struct Entry {
    std::string name;
    uint64_t offset = 0, nbytes = 0;
  };
  std::vector<Entry> entries; // in argument order, weights only
  uint64_t totalBytes = 0;
};

/// Where a compiled model's weights are (the manifest's `weights` line).
enum class WeightPlacement {
  Embedded, ///< the symbol KILN_SYM_WEIGHTS, an LLVM constant (--emit=obj, --emit=llvm)
  Appended, ///< after the linked .so's code, in its file (appendWeights)
  External, ///< not in the model: read from the .pt2 at load (--weights=external)
};

/// Builds the text manifest (runtime/abi/kiln/abi/model_format.h) from the
/// imported @forward (argument attributes kiln.kind/kiln.name/kiln.dims) and,
/// unless `placement` is External, lays out the weights. Fails with a
/// diagnostic if a weight's byte size does not match its type. A non-empty
/// `device` ("cuda sm_90") adds a `device` line: the model's code runs there
/// and takes device buffers. Each op the module calls through the runtime's
/// dispatcher (aten.call_runtime) gets an `op` line and each of `plugins`
/// (kiln-compile --plugin) a `plugin` line with its file name, so the loader
/// refuses the model at load, naming both, when the op is not defined.
mlir::FailureOr<std::string> buildManifest(mlir::ModuleOp module, mlir::func::FuncOp forward,
                                           const WeightMap &weights,
                                           WeightPlacement placement, WeightLayout &layout,
                                           llvm::StringRef device = "",
                                           llvm::ArrayRef<std::string> plugins = {});

/// Adds the model ABI to a translated module: `kiln_model_entry(void**)`
/// calling `_mlir_ciface_<entry>`, the manifest and, when `layout` has
/// entries, the 64-byte aligned weight blob.
mlir::LogicalResult addModelABI(llvm::Module &module, llvm::StringRef entryName,
                                llvm::StringRef manifest, const WeightLayout &layout,
                                const WeightMap &weights,
                                bool embedWeights, std::string &error);

/// Appends the weight blob (`layout`'s entries at their offsets) and its
/// trailer to the linked shared object `soPath`, as
/// kiln/abi/appended_weights.h describes: the blob is written once, never
/// through LLVM or the linker. For a model whose manifest says `weights
/// appended` and whose addModelABI left the blob out.
mlir::LogicalResult appendWeights(llvm::StringRef soPath, const WeightLayout &layout,
                                  const WeightMap &weights,
                                  std::string &error);

struct CPUCodegenOptions {
  /// Target CPU ("native" = the host's CPU and features).
  std::string cpu = "native";
  unsigned optLevel = 3;
  /// Code generation level (0: fast instruction selection and register
  /// allocation), independent of the IR optimisation level above.
  unsigned codegenOptLevel = 3;
  /// Run LLVM's loop and SLP vectorizers (at any optLevel).
  bool vectorize = true;
  /// Define the object's support routines (__truncsfbf2); exactly one of the
  /// objects linked into a model does.
  bool defineSupportRoutines = true;
  /// When set: each function's time in LLVM's optimisation pipeline (the
  /// passes that ran on it, in seconds), called from the thread that
  /// optimised it (kiln-compile --timing's slowest functions).
  std::function<void(llvm::StringRef function, double seconds)> onFunctionOptimized;
  /// When set: emitObjects' parts as they get their object files (parts
  /// done, parts), called from the thread that finished one (progress).
  std::function<void(unsigned done, unsigned total)> onPartDone;
  /// When set: what each of emitObjects' parts held and cost (its functions,
  /// their instructions before optimisation, the CPU seconds of the thread that
  /// optimised and compiled it), called once per part (kiln-compile --timing).
  std::function<void(unsigned part, size_t functions, size_t instructions, double cpuSeconds)> onPartCompiled;
};

/// Optimizes `module` and writes an ELF object to `objPath`.
mlir::LogicalResult emitObject(llvm::Module &module, const CPUCodegenOptions &options,
                               llvm::StringRef objPath, std::string &error);

/// emitObject over up to `jobs` threads: the module's functions are split
/// into `jobs` parts of about equal size (local symbols become hidden
/// globals so the parts can refer to each other), each optimised and
/// compiled on a thread of its own, in an LLVMContext of its own; the data
/// stays in the first part, which `module` becomes. Writes one object per
/// part, `objBase`.0.o, .1.o, ..., and returns their paths in `objPaths`.
/// jobs <= 1, or a module with one function, gives one object.
mlir::LogicalResult emitObjects(llvm::Module &module, const CPUCodegenOptions &options,
                                llvm::StringRef objBase, unsigned jobs,
                                std::vector<std::string> &objPaths, std::string &error);

/// The cores this process may run on (what --compile-jobs defaults to).
unsigned availableCompileJobs();

/// Links `objPaths` into the shared object `soPath` with the system C
/// compiler driver (KILN_CC, else the clang kiln was configured with, else cc).
mlir::LogicalResult linkSharedObject(llvm::ArrayRef<std::string> objPaths, llvm::StringRef soPath,
                                     std::string &error);

} // namespace kiln

#endif
