// kiln runtime — composite ATen ops as graphs of simpler ATen ops: the one
// table that both the compiler's importer and the eager interpreter expand.
#ifndef KILN_DECOMPOSE_H
#define KILN_DECOMPOSE_H

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln::decomp {

/// What a node expands into, in torch.export's serialized graph format (the
/// `nodes` and `tensor_values` of a graph), as JSON text:
///  - `nodes`: an array of nodes that computes the original node's outputs,
///    under the original output names; the other values are new names
///    ("<node>__<local>") and every node keeps the original's metadata (so
///    its stack trace, i.e. the user's Python line);
///  - `tensorValues`: an object with the metadata (dtype, sizes) of each new
///    tensor value. A dynamic dim of an input stays the same symbolic dim
///    wherever the rule says a result has that dim.
struct Expansion {
  std::string nodes;
  std::string tensorValues;
  std::string rule; ///< the rule that applied, e.g. "aten::hardswish (elementwise)"
};

/// The metadata of a tensor value by name (a `tensor_values` entry as JSON
/// text), or "" if the graph has none.
using MetaLookup = std::function<std::string(const std::string &name)>;

/// True if the table has a rule for the node target (e.g.
/// "torch.ops.aten.hardswish.default"); a rule may still not apply to a
/// given node (its conditions on the arguments).
bool hasRule(const std::string &target);

/// Expands one node (its JSON text) with the first of its target's rules
/// whose conditions hold. std::nullopt if no rule applies. Throws kiln::Error
/// when the node does not fit its rule (a missing argument, an argument of
/// an unexpected kind), naming the node.
std::optional<Expansion> expand(const std::string &nodeJson, const MetaLookup &metaOf);

/// Complex tensors as real ones (runtime/src/decomp/Complex.cpp): a graph
/// (graph_module.graph, as JSON text) rewritten so that every complex64 /
/// complex128 value is a float32 / float64 value with a trailing dim of 2
/// (real, imaginary) and every node on complex values is real ATen nodes;
/// std::nullopt if the graph has no complex value. Throws kiln::Error naming
/// a node it cannot rewrite, or a complex graph output.
std::optional<std::string> lowerComplex(const std::string &graphJson);

/// Every op the table decomposes ("aten::hardswish"), sorted (docs, tests).
std::vector<std::string> decomposedOps();

} // namespace kiln::decomp

#endif // KILN_DECOMPOSE_H
