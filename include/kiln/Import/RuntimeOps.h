//===- RuntimeOps.h - what the compiler asks the runtime dispatcher -*- C++ -*-===//
//
// The compiler learns about custom ops (and ATen ops it cannot lower) from the
// runtime's dispatcher, in-process: plugins passed with --plugin register
// their schemas and fake functions there. It asks through the runtime's C
// query API (kiln/abi/query.h) only, never the dispatcher's C++ headers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_RUNTIMEOPS_H
#define KILN_IMPORT_RUNTIMEOPS_H

namespace mlir {
class Operation;
}

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// A literal default from a schema.
struct RuntimeDefault {
  enum Kind { None, Int, Float, Bool, IntList, FloatList, String } kind = None;
  int64_t i = 0;
  double f = 0;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::string s;
};

struct RuntimeArgInfo {
  std::string name;
  std::string type; ///< schema spelling: "Tensor", "float", "int[]", "Tensor?", ...
  bool isTensor = false;
  std::optional<RuntimeDefault> defaultValue;
};

struct RuntimeOpInfo {
  std::string qualifiedName;
  std::vector<RuntimeArgInfo> arguments;
  unsigned numReturns = 0;
  bool allReturnsTensors = true;
  bool hasFake = false;
  /// A backward formula is registered (register_autograd).
  bool hasBackward = false;
  /// A batching rule is registered (register_vmap).
  bool hasVmap = false;
  /// Keys with kernels, e.g. "CPU", "Meta", "CompositeImplicitAutograd".
  std::vector<std::string> kernelKeys;
};

/// Loads a plugin into this process's dispatcher; false and `err` on failure.
bool loadRuntimePlugin(const std::string &path, std::string &err);
/// The dispatcher's view of "ns::name" / "ns::name.overload", if defined.
std::optional<RuntimeOpInfo> lookupRuntimeOp(const std::string &qualifiedName);
/// The runtime call that computes the gradients of `info`'s op
/// ("ns::op#backward"), or "" if the dispatcher has no autograd formula.
std::string runtimeBackwardCallee(const RuntimeOpInfo &info);
/// The runtime call that runs `info`'s op over a batch ("ns::op#vmap"), or
/// "" if the dispatcher has no batching rule for it.
std::string runtimeVmapCallee(const RuntimeOpInfo &info);
/// Records on each aten.call_runtime under `root` what the autograd rules
/// need to know of it (kiln.runtime_backward, kiln.runtime_vmap), as the importer does for the
/// calls it makes; for modules that come as .mlir text.
void recordRuntimeOpFacts(mlir::Operation *root);

/// A composite node expanded by the runtime's decomposition table
/// (through kiln/abi/query.h): the nodes and the new tensor metadata, as JSON text.
struct CompositeExpansion {
  std::string nodes, tensorValues, rule;
};

/// True if the decomposition table has a rule for `target`
/// ("torch.ops.aten.hardswish.default").
bool hasCompositeRule(const std::string &target);
/// Expands `nodeJson` with the table; `metaOf` gives a tensor value's
/// metadata as JSON text ("" if unknown). std::nullopt with `err` empty when
/// no rule applies, with `err` set when the node does not fit its rule.
std::optional<CompositeExpansion>
expandCompositeNode(const std::string &nodeJson,
                    const std::function<std::string(const std::string &)> &metaOf,
                    std::string &err);

/// A serialized graph (graph_module.graph, JSON text) with its complex
/// values as real pairs, by the runtime's complex lowering (through
/// kiln/abi/query.h): std::nullopt with `err` empty when the graph has no
/// complex value, with `err` set when a node cannot be rewritten.
std::optional<std::string> lowerComplexGraph(const std::string &graphJson, std::string &err);

} // namespace kiln

#endif
