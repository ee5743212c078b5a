// kiln runtime — composites whose result sizes depend on tensor values (DataDependent.cpp),
// for expand(): tensor_split by a tensor of indices.
#ifndef KILN_RUNTIME_DECOMP_DATADEPENDENT_H
#define KILN_RUNTIME_DECOMP_DATADEPENDENT_H

#include "kiln/decompose.h"

#include "../loader/Json.h"

#include <optional>
#include <string>

namespace kiln::decomp {

/// Whether DataDependent.cpp expands `target`.
bool isDataDependentTarget(const std::string &target);

/// The node as ATen nodes whose sizes come from the values they read (a
/// `_local_scalar_dense` per value, unbacked SymInts in torch's terms); std::nullopt
/// when the node's form has no expansion. Throws kiln::Error on a malformed node.
std::optional<Expansion> expandDataDependent(const nlohmann::json &node, const MetaLookup &metaOf);

} // namespace kiln::decomp

#endif
