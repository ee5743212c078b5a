//===- Composites.cpp - composite nodes through the runtime's decomposition table -===//
//
// A composite ATen op (one the table in runtime/src/decomp has a rule for) is
// imported as the nodes the table expands it into, each imported like a graph
// node, so the compiler runs the decomposition the eager runtime runs.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"
#include "JsonItems.h"

#include "kiln/Import/RuntimeOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace kiln::importer {

std::string GraphImporter::nodeDtypes(const Object &node) {
  // The dtypes of the node's tensor inputs, in order and without repeats.
  SmallVector<std::string> names;
  const Array *ins = node.getArray("inputs");
  for (const json::Value &in : itemsOf(ins)) {
    const Object *o = in.getAsObject();
    const Object *arg = o ? o->getObject("arg") : nullptr;
    const Object *t = arg ? arg->getObject("as_tensor") : nullptr;
    if (!t)
      continue;
    auto ty = tensorType(t->getString("name").value_or(""), archiveLoc);
    if (failed(ty))
      continue;
    std::string s;
    llvm::raw_string_ostream os(s);
    Type e = ty->getElementType();
    if (e.isF32()) os << "float32";
    else if (e.isF64()) os << "float64";
    else if (e.isF16()) os << "float16";
    else if (e.isBF16()) os << "bfloat16";
    else if (e.isInteger(1)) os << "bool";
    else if (e.isUnsignedInteger(8)) os << "uint8";
    else if (auto i = dyn_cast<IntegerType>(e)) os << "int" << i.getWidth();
    else os << e;
    if (!llvm::is_contained(names, s))
      names.push_back(s);
  }
  if (names.empty())
    return "";
  return " on " + llvm::join(names, ", ") + " tensors";
}

bool GraphImporter::importComposite(const Object &node, Location loc, NodeDecision &decision,
                                    bool &ok) {
  std::string text = jsonText(node);
  auto metaOf = [&](const std::string &name) -> std::string {
    const Object *meta = tensorMeta(name);
    return meta ? jsonText(*meta) : "";
  };
  std::string err;
  std::optional<CompositeExpansion> e = expandCompositeNode(text, metaOf, err);
  if (!err.empty()) {
    decision.kind = NodeDecision::Unsupported;
    decision.why = err;
    decisions.push_back(decision);
    if (!explainOnly)
      emitError(loc) << err;
    ok = false;
    return true;
  }
  if (!e)
    return false;
  auto nodes = json::parse(e->nodes);
  auto values = json::parse(e->tensorValues);
  if (!nodes || !values || !nodes->getAsArray() || !values->getAsObject()) {
    if (!nodes)
      llvm::consumeError(nodes.takeError());
    if (!values)
      llvm::consumeError(values.takeError());
    emitError(loc) << "the decomposition of '" << decision.op << "' is malformed";
    ok = false;
    return true;
  }
  for (auto &kv : *values->getAsObject())
    expandedTensorValues[kv.first] = kv.second;
  decision.kind = NodeDecision::Decomposed;
  decision.why = "decomposed by kiln's composite table: " + e->rule;
  decisions.push_back(decision);
  expandedNodes.push_back(std::move(*nodes));
  for (const json::Value &v : *expandedNodes.back().getAsArray())
    if (const Object *sub = v.getAsObject())
      importNode(*sub, ok);
  return true;
}

} // namespace kiln::importer
