// kiln runtime — the eager interpreter: runs a .pt2 program op by op through
// the dispatcher (the reference compiled results are compared with).
#ifndef KILN_EAGER_H
#define KILN_EAGER_H

#include "kiln/tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::eager {

/// A graph input or output: dims of -1 are symbolic (dynamic).
struct ValueSpec {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> minSizes, maxSizes; ///< per dim; equal to sizes for static dims
  /// Per dim: the size ("64"), the symbol ("s77") or the expression ("2*s77").
  std::vector<std::string> dimLabels;
};

/// A loaded .pt2 program: its graph (models/model.json) and its parameters,
/// buffers and constants. Ops are looked up in the dispatcher when loading, so
/// plugins for custom ops must be loaded first (kiln::loadPlugin).
class Program {
public:
  /// Reads `path`; throws kiln::Error naming the file and, for an op the
  /// dispatcher does not know, the node and its Python source line.
  static std::unique_ptr<Program> load(const std::string &path);
  ~Program();

  /// The user inputs and outputs, in graph order.
  const std::vector<ValueSpec> &inputs() const;
  const std::vector<ValueSpec> &outputs() const;
  /// The op names of the graph's nodes, in order ("aten::linear", ...).
  std::vector<std::string> opNames() const;

  /// Validates the inputs (count, dtype, rank, dims within range) and runs the
  /// graph on the CPU. Throws kiln::Error naming the failing node and its
  /// Python source line. Thread-safe: runs read the weights together; the
  /// buffers the program writes (a batch norm's running statistics in
  /// training) are written back after each run, one run at a time, and the
  /// next run sees them, as with a compiled model.
  std::vector<Tensor> run(const std::vector<Tensor> &inputs) const;

  /// Gradients of sum(outputs[i] * cotangents[i]).
  struct Gradients {
    std::vector<Tensor> outputs;                ///< the forward results
    std::vector<Tensor> inputs;                 ///< per user input (undefined if unused)
    std::vector<std::string> parameterNames;    ///< state-dict names ("l1.weight")
    std::vector<Tensor> parameters;             ///< per parameter name
  };
  /// Runs the program recording an autograd::Tape, then runs the ops'
  /// backward formulas in reverse (PyTorch's loss.backward() with the given
  /// cotangents). Throws kiln::Error if an op on the path has no formula.
  Gradients grad(const std::vector<Tensor> &inputs, const std::vector<Tensor> &cotangents) const;

  struct Impl;
private:
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace kiln::eager

#endif // KILN_EAGER_H
