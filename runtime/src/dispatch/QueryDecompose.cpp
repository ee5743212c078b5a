//===- QueryDecompose.cpp - the decomposition table and complex lowering through the C query API (kiln/abi/query.h) ===//
#include "kiln/abi/query.h"

#include "kiln/decompose.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {
/// Keeps `msg` for the caller (valid until the next failing query call on
/// this thread), points *error at it, and returns -1.
int32_t queryFailure(std::string msg, const char **error) {
  static thread_local std::string tError;
  tError = std::move(msg);
  if (error) *error = tError.c_str();
  return -1;
}
} // namespace

extern "C" int32_t kiln_query_has_decomposition(const char *target) {
  if (!target) return 0;
  try {
    return kiln::decomp::hasRule(target) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

extern "C" int32_t kiln_query_decompose(const char *node_json, kiln_query_meta_fn meta, void *ctx,
                                        kiln_query_expansion **out, const char **error) {
  if (out) *out = nullptr;
  auto fail = [&](std::string msg) { return queryFailure(std::move(msg), error); };
  if (!node_json || !out) return fail("kiln_query_decompose: a null node or result pointer");
  try {
    kiln::decomp::MetaLookup lookup = [&](const std::string &name) -> std::string {
      if (!meta) return "";
      const char *text = meta(ctx, name.c_str());
      return text ? text : "";
    };
    auto e = kiln::decomp::expand(node_json, lookup);
    if (!e) return 1;
    // Each string its own copy, released by kiln_query_expansion_free.
    *out = new kiln_query_expansion{strdup(e->nodes.c_str()), strdup(e->tensorValues.c_str()),
                                    strdup(e->rule.c_str())};
    return 0;
  } catch (const std::exception &ex) {
    return fail(ex.what());
  } catch (...) {
    return fail("kiln_query_decompose: an unknown error in the decomposition table");
  }
}

extern "C" void kiln_query_expansion_free(kiln_query_expansion *expansion) {
  if (!expansion) return;
  free(const_cast<char *>(expansion->nodes));
  free(const_cast<char *>(expansion->tensor_values));
  free(const_cast<char *>(expansion->rule));
  delete expansion;
}

extern "C" int32_t kiln_query_lower_complex(const char *graph_json, char **out, const char **error) {
  if (out) *out = nullptr;
  auto fail = [&](std::string msg) { return queryFailure(std::move(msg), error); };
  if (!graph_json || !out) return fail("kiln_query_lower_complex: a null graph or result pointer");
  try {
    std::optional<std::string> lowered = kiln::decomp::lowerComplex(graph_json);
    if (!lowered) return 1;
    *out = strdup(lowered->c_str());
    return 0;
  } catch (const std::exception &ex) {
    return fail(ex.what());
  } catch (...) {
    return fail("kiln_query_lower_complex: an unknown error");
  }
}

extern "C" void kiln_query_string_free(char *s) { free(s); }
