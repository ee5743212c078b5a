//===- CompileProgress.h - signs of life and where compile time goes -*- C++ -*-===//
//
// Private to lib/Compiler. Progress: the stage, the pass of the pipeline
// (k of n) and LLVM's parts as they finish, on one line that a terminal
// redraws, or a line each when asked for off a terminal. FunctionTimes: the
// functions (the entry, outlined loop bodies, GPU kernels) that took longest
// through the pipeline's function passes and LLVM's optimisation (--timing).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_COMPILER_COMPILEPROGRESS_H
#define KILN_LIB_COMPILER_COMPILEPROGRESS_H

#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln {

class Progress {
public:
  /// `redraw`: one line redrawn in place (a terminal); else a line each.
  Progress(llvm::raw_ostream &os, bool redraw) : os(os), redraw(redraw) {}
  ~Progress() { finish(); }
  void stage(llvm::StringRef name, llvm::StringRef detail = "");
  /// An instrumentation reporting `pm`'s passes as they start, k of n.
  std::unique_ptr<mlir::PassInstrumentation> passes(mlir::PassManager &pm, llvm::StringRef stage);
  /// Clears a redrawn line.
  void finish();
  /// Thread-safe: one line of `stage`.
  void report(llvm::StringRef stage, llvm::StringRef detail, bool force = false);

private:
  llvm::raw_ostream &os;
  bool redraw;
  bool dirty = false;
  std::mutex mutex;
  std::chrono::steady_clock::time_point last{};
};

/// The passes of `pm`, nested pipelines included, each counted once
/// (from its textual pipeline).
unsigned countPasses(mlir::PassManager &pm);

class FunctionTimes {
public:
  /// Times the passes nested under symbols (func.func, gpu.module, ...) per
  /// symbol name.
  std::unique_ptr<mlir::PassInstrumentation> instrumentation();
  /// Thread-safe: `seconds` more for `name` in `table` (0: the MLIR pipeline,
  /// 1: LLVM's optimisation).
  void add(unsigned table, llvm::StringRef name, double seconds);
  /// Thread-safe: LLVM's part `part` of the model held `functions`
  /// functions of `instructions` instructions and took `cpuSeconds`.
  void addPart(unsigned part, size_t functions, size_t instructions, double cpuSeconds);
  /// The top `n` of each table, then the parts.
  void print(llvm::raw_ostream &os, size_t n = 10);

private:
  struct Part {
    unsigned part;
    size_t functions, instructions;
    double cpuSeconds;
  };
  std::mutex mutex;
  llvm::StringMap<double> tables[2];
  std::vector<Part> parts;
};

} // namespace kiln

#endif
