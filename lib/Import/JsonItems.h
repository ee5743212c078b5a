//===- JsonItems.h - a JSON list or object that may be missing, without a copy -*- C++ -*-===//
//
// Internal to lib/Import. `for (auto &v : list ? *list : Array())` copies the
// whole list: the conditional's result is a new value when one side is a
// temporary. On a graph's node list or tensor_values that is a deep copy of
// most of models/model.json, made and freed on every import. The same holds
// for `os << json::Value(Object(o))`, which copies `o` to print it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_JSONITEMS_H
#define KILN_LIB_IMPORT_JSONITEMS_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln::importer {

/// The list `a` points to, or an empty one when it is missing.
inline const llvm::json::Array &itemsOf(const llvm::json::Array *a) {
  static const llvm::json::Array empty;
  return a ? *a : empty;
}

/// The object `o` points to, or an empty one when it is missing.
inline const llvm::json::Object &itemsOf(const llvm::json::Object *o) {
  static const llvm::json::Object empty;
  return o ? *o : empty;
}

/// `o` as JSON text, written from where it is (`os << json::Value(Object(o))`
/// would copy it first). Keys come in the object's own order, not sorted.
inline std::string jsonText(const llvm::json::Object &o) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream j(os);
  j.object([&] {
    for (const auto &kv : o)
      j.attribute(kv.first, kv.second);
  });
  return text;
}

} // namespace kiln::importer

#endif
