//===- NodeNames.h - the program node an op's location names ----*- C++ -*-===//
//
// The importer locates each op at NameLoc(<node name>, <user's line>); ops a
// decomposition expands a node into are named `<node>__<var>`. torch's own
// node names may hold `__<n>` too (`relu__1`, the second in-place relu), so
// only a non-numeric suffix is a decomposition's.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_IR_NODENAMES_H
#define KILN_ATEN_IR_NODENAMES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

namespace kiln::aten {

/// `name` without the suffixes decompositions add.
inline llvm::StringRef programNodeName(llvm::StringRef name) {
  while (true) {
    size_t pos = name.rfind("__");
    if (pos == llvm::StringRef::npos || pos == 0)
      return name;
    llvm::StringRef suffix = name.drop_front(pos + 2);
    if (suffix.empty() || llvm::all_of(suffix, llvm::isDigit))
      return name;
    name = name.take_front(pos);
  }
}

/// The program node an op's own location names, or "".
inline llvm::StringRef programNodeName(mlir::Location loc) {
  if (auto n = llvm::dyn_cast<mlir::NameLoc>(loc))
    return programNodeName(n.getName().strref());
  return "";
}

} // namespace kiln::aten

#endif
