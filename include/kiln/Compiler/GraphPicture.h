//===- GraphPicture.h - DOT pictures of a program and its kernels -*- C++ -*-===//
//
// `kiln-compile --emit=dot` and the `graph.dot` of `--dump-dir`: the imported
// program's nodes (op, node name, the user's line), its tensors' shapes on the
// edges, and what the pipeline made of each node: the fused kernel it joined
// (a cluster), a library call (oneDNN, cuBLAS, cuDNN) or a call into the
// runtime's dispatcher (eager kernels, plugins). docs/debugging.md.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_GRAPHPICTURE_H
#define KILN_COMPILER_GRAPHPICTURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kiln {

/// The program as imported, kept apart from the IR the pipeline rewrites.
struct ProgramPicture {
  struct Node {
    std::string op;       // aten.relu
    std::string name;     // the program's node name (relu_1)
    std::string line;     // the user's file:line, or ""
    bool runtime = false; // aten.call_runtime: run by the dispatcher
  };
  struct Edge {
    int from; // node index, or -1 - i for user input i
    int to;
    std::string label; // the tensor's shape and dtype
  };
  std::vector<Node> nodes;
  std::vector<std::string> inputs; // user inputs: "name: shape"
  std::vector<Edge> edges;
  std::vector<std::pair<int, std::string>> outputs; // node index, output name
  /// Filled while the pipeline runs: kernel -> node names it holds, and the
  /// node names that became library calls.
  std::vector<std::set<std::string>> kernels;
  std::set<std::string> libraryCalls;
};

/// Reads the imported entry function `fn` (aten dialect).
ProgramPicture readProgram(mlir::func::FuncOp fn);

/// A pass instrumentation that records, after kiln-fuse-elementwise, which
/// program nodes each fused kernel of `entry` holds (from the locations the
/// fusion merges), and after the library-call passes which nodes became calls.
std::unique_ptr<mlir::PassInstrumentation> recordKernels(ProgramPicture &picture, std::string entry);

/// Writes the picture as a Graphviz digraph. Programs of more than
/// `maxNodes` nodes draw one box per kernel instead of one per node.
void writeDot(const ProgramPicture &picture, llvm::raw_ostream &os, size_t maxNodes = 400);

} // namespace kiln

#endif
