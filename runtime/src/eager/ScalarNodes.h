// kiln runtime — the nodes of a program that compute on Python scalars (SymInts,
// SymBools), which the eager interpreter evaluates itself (ScalarNodes.cpp).
#pragma once

#include "kiln/ivalue.h"

#include <string>
#include <vector>

namespace kiln::eager {

/// Whether the node target `target` is one of them: the integer arithmetic and
/// comparisons of Python's operator module (_operator.add, _operator.ge, ...),
/// Tensor.item() (aten.item, aten._local_scalar_dense) and aten._assert_scalar.
bool isScalarNode(const std::string &target);
/// Its one result for the argument values `args` (None for _assert_scalar, which
/// throws when its condition is false, with its message).
IValue runScalarNode(const std::string &target, const std::vector<IValue> &args);

} // namespace kiln::eager
