// kiln runtime — small readers and writers of torch.export's node format shared by the
// decomposition layer's C++ expansions (MaskedIndex.cpp, TriIndices.cpp).
#pragma once

#include "../loader/Json.h"

#include <string>

namespace kiln::decomp::nodejson {

/// The argument named `name` of a node's inputs, or null when the node has none.
inline const nlohmann::json *input(const nlohmann::json &node, const std::string &name) {
  auto ins = node.find("inputs");
  if (ins == node.end() || !ins->is_array()) return nullptr;
  for (const nlohmann::json &in : *ins)
    if (in.is_object() && in.value("name", "") == name && in.contains("arg")) return &in["arg"];
  return nullptr;
}

/// A positional input of a written node.
inline nlohmann::json inputArg(const std::string &name, const nlohmann::json &arg) {
  return {{"name", name}, {"arg", arg}, {"kind", 1}};
}

/// A reference to the tensor value `name`.
inline nlohmann::json tensorRef(const std::string &name) { return {{"as_tensor", {{"name", name}}}}; }

} // namespace kiln::decomp::nodejson
