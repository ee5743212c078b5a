// kiln runtime — checks of a torch.export graph JSON before anything reads it.
#ifndef KILN_RUNTIME_LOADER_SERDECHECKS_H
#define KILN_RUNTIME_LOADER_SERDECHECKS_H

#include "Json.h"

#include <string>

namespace kiln {

/// Throws kiln::Error, naming `where` and the field, when a field torch's
/// serde writes as an integer ("as_int", "as_ints", "dtype", "layout",
/// "as_scalar_type", "as_memory_format", "as_layout") holds anything but
/// integers: readers then convert those fields without more checks (a
/// float such as 1e308 converted to an int is undefined behaviour). Walks the
/// tree without recursion, so deep nesting cannot exhaust the stack.
void checkSerdeIntegers(const nlohmann::json &graph, const std::string &where);

} // namespace kiln

#endif
