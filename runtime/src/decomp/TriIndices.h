// kiln runtime — tril_indices and triu_indices as ATen nodes (TriIndices.cpp), for expand().
#ifndef KILN_RUNTIME_DECOMP_TRIINDICES_H
#define KILN_RUNTIME_DECOMP_TRIINDICES_H

#include "kiln/decompose.h"

#include "../loader/Json.h"

#include <optional>
#include <string>

namespace kiln::decomp {

/// Whether `target` is tril_indices or triu_indices.
bool isTriIndicesTarget(const std::string &target);

/// The node as arange and elementwise ops over its positions, stacked (TriIndices.cpp).
/// Throws kiln::Error on a malformed node or symbolic sizes.
std::optional<Expansion> expandTriIndices(const nlohmann::json &node, const MetaLookup &metaOf);

} // namespace kiln::decomp

#endif
