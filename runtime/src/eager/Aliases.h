// kiln runtime — ATen's alias op names for the eager interpreter (Aliases.cpp).
#pragma once

#include <string>

namespace kiln::eager {

/// The canonical op of an alias ("aten::multiply.Tensor" -> "aten::mul.Tensor"), or "" if
/// `qualified` (namespace::name.overload) names no alias.
std::string canonicalOpName(const std::string &qualified);

} // namespace kiln::eager
