// kiln runtime — _unsafe_masked_index(_put_accumulate) as ATen nodes (MaskedIndex.cpp), for expand().
#ifndef KILN_RUNTIME_DECOMP_MASKEDINDEX_H
#define KILN_RUNTIME_DECOMP_MASKEDINDEX_H

#include "kiln/decompose.h"

#include "../loader/Json.h"

#include <optional>
#include <string>

namespace kiln::decomp {

/// Whether `target` is one of the composites MaskedIndex.cpp expands.
bool isMaskedIndexTarget(const std::string &target);

/// The node as clamps of its indices, an index (or index_put) and a where;
/// std::nullopt where an indexed dim is symbolic. Throws kiln::Error on a
/// malformed node.
std::optional<Expansion> expandMaskedIndex(const nlohmann::json &node, const MetaLookup &metaOf);

} // namespace kiln::decomp

#endif
