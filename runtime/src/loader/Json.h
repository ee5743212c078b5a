// kiln runtime — nlohmann::json as the runtime's readers use it: every runtime
// source includes nlohmann through this header (the layering test checks it).
//
// The graph JSON comes from files kiln did not write. nlohmann's const
// `operator[]` on a missing key (and its other preconditions) is checked only
// by JSON_ASSERT, which is `assert` and so compiled out of release builds:
// a reader that forgot a `contains` check read past the end of a map (found by
// fuzz-pt2-import, test/fuzz/regressions/fuzz-pt2-import/). Here a failed
// precondition throws instead, and the readers' usual error path turns it into
// a clear error.
#ifndef KILN_RUNTIME_LOADER_JSON_H
#define KILN_RUNTIME_LOADER_JSON_H

#ifdef NLOHMANN_JSON_VERSION_MAJOR
#error "include runtime/src/loader/Json.h before anything that includes <nlohmann/json.hpp>"
#endif

#include <stdexcept>

#define JSON_ASSERT(cond)                                                                      \
  ((cond) ? static_cast<void>(0)                                                               \
          : throw std::out_of_range("kiln: the graph JSON lacks a field or element it needs"))

#include <nlohmann/json.hpp>

#endif // KILN_RUNTIME_LOADER_JSON_H
