// kiln runtime — complex tensors as real pairs (Complex.cpp), on parsed graphs: for the eager interpreter and the weights readers.
#ifndef KILN_RUNTIME_DECOMP_COMPLEX_H
#define KILN_RUNTIME_DECOMP_COMPLEX_H

#include "../loader/Json.h"

namespace kiln::decomp {

/// Rewrites a serialized graph (graph_module.graph) in place so that every
/// complex value is a real one with a trailing dim of 2; false (untouched)
/// when it has none. Throws kiln::Error naming a node it cannot rewrite.
bool lowerComplexGraph(nlohmann::json &graph);

/// A tensor_meta of a complex dtype as the real pair layout (sizes + [2],
/// strides doubled + [1], storage offset doubled); others unchanged.
void complexMetaToReal(nlohmann::json &meta);

} // namespace kiln::decomp

#endif
